import Foundation
import PrefsCore
import Testing

/// `export` writes a large document as it reads it (its memory does not grow with the store:
/// issue 41), and its answer and its refusals are those of the whole document.
@Suite("export of a large store", .timeLimit(.minutes(5)))
struct ExportStreamTests {
    static let count = 60_000

    static func key(_ index: Int) -> String { "key" + String(String(index + 100_000).dropFirst()) }
    static func value(_ index: Int) -> String { #"{"i":\#(index),"s":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}"# }

    @Test func aLargeExportIsTheWholeDocumentAndADamagedValueLeavesTheFileAlone() throws {
        let box = try Sandbox()
        let lines = (0..<Self.count).map { "set user \(Self.key($0)) \(Self.value($0))" }
        try box.runOK(["batch"], stdin: lines.joined(separator: "\n") + "\n")
        let expected =
            #"{"user":{"# + (0..<Self.count).map { #""\#(Self.key($0))":\#(Self.value($0))"# }.joined(separator: ",") + "}}\n"
        #expect(expected.utf8.count > 2 << 20, "over what standard output holds back")
        let printed = try box.runOK(["export"])
        #expect(printed.stdout == expected)
        let file = box.root + "/export.json"
        try box.runOK(["export", "-o", file])
        #expect(try String(contentsOfFile: file, encoding: .utf8) == expected)
        #expect(try box.runOK(["export", "user", "-o", "-"]).stdout == expected)

        // The last value damaged (as by hand): -o leaves the file as it was, and no temporary copy.
        let queue = try DatabaseQueue(path: box.store)
        try queue.writeWithoutTransaction {
            try $0.execute(sql: "UPDATE kv_user SET value = '{not json' WHERE key = ?", arguments: [Self.key(Self.count - 1)])
        }
        try queue.close()
        let refused = try box.runFailing(["export", "-o", file], status: 3)
        #expect(refused.stderr.contains("user/\(Self.key(Self.count - 1))"), "\(refused)")
        #expect(try String(contentsOfFile: file, encoding: .utf8) == expected)
        #expect(try FileManager.default.contentsOfDirectory(atPath: box.root).filter { $0.hasPrefix(".export.json") } == [])
        // Standard output got the document as far as the damaged value (it is over 2 MiB), then exit 3.
        let streamed = try box.runFailing(["export"], status: 3)
        #expect(streamed.stdout.hasPrefix(#"{"user":{"key00000":"#) && !streamed.stdout.hasSuffix("}}\n"))
    }

    /// A document of at most 2 MiB is written only once every value has been read: a damaged
    /// one writes nothing.
    @Test func aSmallExportWithADamagedValueWritesNothing() throws {
        let box = try Sandbox()
        try box.runOK(["set", "user", "a", "1"])
        try box.runOK(["set", "user", "b", "2"])
        let queue = try DatabaseQueue(path: box.store)
        try queue.writeWithoutTransaction { try $0.execute(sql: "UPDATE kv_user SET value = '{not json' WHERE key = 'b'") }
        try queue.close()
        let refused = try box.runFailing(["export"], status: 3)
        #expect(refused.stdout.isEmpty, "\(refused)")
    }
}
