import Foundation
import PrefsCore
import Testing

/// `flags.names()` (the did-you-mean of a missing flag) lists what `flags.flagSet().sortedKeys` lists,
/// without parsing a definition: stored keys in order, queued writes and removals, overrides;
/// never a default (registered in code: no flag, issue 38), `$evaluators` or `$metadata`
/// (issue 41).
@Suite("flag names", .timeLimit(.minutes(5)))
struct FlagNamesTests {
    @Test func theNamesAreTheFlagSetsKeys() throws {
        let store = try TemporaryStore()
        let flag: JSONValue = try JSONValue(parsing: #"{"state":"ENABLED","variants":{"on":true},"defaultVariant":"on"}"#)
        do {
            let writer = try store.open()
            try writer.flags.importDocument(
                JSONValue(
                    parsing:
                        #"{"$evaluators":{"e":{"==":[1,1]}},"metadata":{"flagSetId":"s"},"flags":{"b":\#(flag.compactText),"d":\#(flag.compactText),"é":\#(flag.compactText),"Z":\#(flag.compactText)}}"#
                ))
            try writer.set(.string("static"), in: .switch, forKey: "gone-soon", expiresIn: .milliseconds(1))
            try writer.flushSynchronously()
        }
        Thread.sleep(forTimeInterval: 0.01)  // gone-soon has expired
        var options = KeyValueStack.Options(window: .seconds(60), environment: ["XDG_RUNTIME_DIR": store.directory])
        options.overrides = [.switch: ["o": .bool(true), "$evaluators": .object([])]]
        let stack = try KeyValueStack(path: store.path, options: options)
        stack.registerDefaults([.switch: ["a-default": .bool(false), "d": .bool(true)]])
        // Queued, not yet committed: a new flag and the removal of a stored one.
        try stack.set(flag, in: .switch, forKey: "c-queued")
        _ = try stack.remove(in: .switch, keys: ["b"])
        let names = try stack.flags.names()
        #expect(names == ["Z", "c-queued", "d", "o", "é"], "\(names)")
        #expect(names == (try stack.flags.flagSet().sortedKeys))
    }

    /// `flags.names(near:)` reads the neighbours of a missing name, not every flag: among 5,000
    /// stored flags it returns at most `window` names on either side of the name and of the
    /// name without its first character, with the flags that are not stored; in a store that
    /// holds fewer, every name, as `flags.names()`.
    @Test func theNamesNearAMissingFlagAreBounded() throws {
        let store = try TemporaryStore()
        let flag = #"{"state":"ENABLED","variants":{"on":true},"defaultVariant":"on"}"#
        let many = (0..<5_000).map { #""flag-\#(String(format: "%04d", $0))":\#(flag)"# }.joined(separator: ",")
        do {
            let writer = try store.open()
            _ = try writer.flags.importDocument(JSONValue(parsing: #"{"flags":{\#(many),"new-checkout":\#(flag),"zeta":\#(flag)}}"#))
        }
        var options = KeyValueStack.Options(window: .seconds(60), environment: ["XDG_RUNTIME_DIR": store.directory])
        options.overrides = [.switch: ["brand-new": .bool(true)]]
        let stack = try KeyValueStack(path: store.path, options: options)
        try stack.set(try JSONValue(parsing: flag), in: .switch, forKey: "queued")
        #expect(try stack.flags.names().count == 5_004)

        let near = try stack.flags.names(near: "flag-2500x", window: 8)
        // 8 before and 8 from `flag-2500x`; 8 before and 8 from `lag-2500x`; the override and the queued flag.
        #expect(near.count <= 4 * 8 + 2, "\(near.count) names")
        #expect(near.contains("flag-2500") && near.contains("flag-2501") && near.contains("flag-2493"), "\(near)")
        #expect(near.contains("brand-new") && near.contains("queued"), "\(near)")
        #expect(near == near.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) })
        // One character typed too many in front: found through the name without it.
        #expect(try stack.flags.names(near: "xnew-checkout", window: 8).contains("new-checkout"))
        // The default window.
        #expect(try stack.flags.names(near: "flag-2500x").count <= 4 * 64 + 2)

        // A few flags: all of them.
        let small = try TemporaryStore()
        let writer = try small.open()
        _ = try writer.flags.importDocument(JSONValue(parsing: #"{"flags":{"a":\#(flag),"m":\#(flag),"z":\#(flag)}}"#))
        #expect(try writer.flags.names(near: "q") == ["a", "m", "z"])
    }
}
