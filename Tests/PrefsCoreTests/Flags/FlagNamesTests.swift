import Foundation
import PrefsCore
import Testing

/// `flagNames()` (the did-you-mean of a missing flag) lists what `flags().sortedKeys` lists,
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
            try writer.importFlags(
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
        let names = try stack.flagNames()
        #expect(names == ["Z", "c-queued", "d", "o", "é"], "\(names)")
        #expect(names == (try stack.flags().sortedKeys))
    }
}
