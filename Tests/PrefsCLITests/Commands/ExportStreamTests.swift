import Foundation
import PrefsCore
import PrefsTestSupport
import Testing

/// `export` writes a large document as it reads it (its memory does not grow with the store:
/// issue 41), and its answer and its refusals are those of the whole document.
@Suite("export of a large store", .timeLimit(.minutes(5)), .ownThreads)
struct ExportStreamTests {
    static let count = 60_000

    static func key(_ index: Int) -> String { "key" + String(String(index + 100_000).dropFirst()) }
    static func value(_ index: Int) -> String { #"{"i":\#(index),"s":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}"# }

    @Test func aLargeExportIsTheWholeDocumentAndADamagedValueLeavesTheFileAlone() throws {
        let box = try Sandbox(inProcess: true)
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
        let box = try Sandbox(inProcess: true)
        try box.runOK(["set", "user", "a", "1"])
        try box.runOK(["set", "user", "b", "2"])
        let queue = try DatabaseQueue(path: box.store)
        try queue.writeWithoutTransaction { try $0.execute(sql: "UPDATE kv_user SET value = '{not json' WHERE key = 'b'") }
        try queue.close()
        let refused = try box.runFailing(["export"], status: 3)
        #expect(refused.stdout.isEmpty, "\(refused)")
    }

    /// An export is one state of the store: while another process applies `aaa/x` and `zzz/x`
    /// together (all or nothing), every export shows them equal, however long the domain
    /// between them takes to read. (Each domain was read in its own transaction: 24 of 25
    /// exports of a 3 MB store were torn.)
    @Test func anExportIsOneStateOfTheStoreWhileAnotherProcessWrites() throws {
        let box = try Sandbox(inProcess: true)
        let lines = (0..<20_000).map { "set mmm \(Self.key($0)) \(Self.value($0))" }
        try box.runOK(["batch"], stdin: lines.joined(separator: "\n") + "\nset aaa x 0\nset zzz x 0\n")
        let script = """
            i=1
            while [ ! -e "$1" ]; do
              printf '[{"op":"set","domain":"aaa","key":"x","value":%d},{"op":"set","domain":"zzz","key":"x","value":%d}]' $i $i \\
                | "$0" --store "$2" apply - || exit 1
              i=$((i+1))
            done
            echo $i
            """
        let stop = box.root + "/stop"
        let writer = SpawnedProcess()
        writer.executableURL = URL(fileURLWithPath: "/bin/sh")
        writer.arguments = ["-c", script, Sandbox.binary, stop, box.store]
        writer.environment = box.environment()
        let output = Pipe()
        writer.standardOutput = output
        try writer.run()
        defer { if writer.isRunning { writer.terminate() } }
        var torn: [String] = []
        for _ in 0..<12 {
            let document = try JSONValue(parsing: try box.runOK(["export"]).stdout)
            let a = document["aaa"]?["x"]
            let z = document["zzz"]?["x"]
            if a != z { torn.append("aaa/x \(a.map(\.compactText) ?? "-"), zzz/x \(z.map(\.compactText) ?? "-")") }
        }
        #expect(FileManager.default.createFile(atPath: stop, contents: nil))
        writer.waitUntilExit()
        let applied =
            Int(
                String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).trimmingCharacters(
                    in: .whitespacesAndNewlines)) ?? 0
        #expect(writer.terminationStatus == 0 && applied > 12, "the writer ran alongside: \(applied) applies")
        #expect(torn.isEmpty, "torn exports: \(torn)")
    }
}
