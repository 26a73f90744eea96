import Foundation
import PrefsTestSupport
import Testing

/// `batch` and `import` write their change-log records in bulk (no trigger): `prefs log` shows
/// what the same sets one by one show, apart from the times (and import's op).
@Suite("bulk writes in prefs log", .timeLimit(.minutes(5)))
struct BulkLogHistoryTests {
    /// Keys in the order a flush writes them (sorted): keys there before, new keys between
    /// them and after them, more than one statement's worth (16 rows).
    let sets: [(key: String, json: String)] = (100..<161).map { ("k\($0)", $0 % 3 == 0 ? "[\($0)]" : "{\"i\":\($0)}") }

    /// The same 20 keys in each store, one `set` each.
    private func seeded() throws -> Sandbox {
        let box = try Sandbox(inProcess: true)
        for i in stride(from: 100, to: 140, by: 2) { try box.runOK(["set", "user", "k\(i)", "\(i)"]) }
        return box
    }

    /// `prefs log` without the time column, oldest first.
    private func log(_ box: Sandbox) throws -> [String] {
        try box.runOK(["log", "--limit", "1000"]).stdout.split(separator: "\n").reversed().map { line in
            var columns = line.split(separator: "\t", omittingEmptySubsequences: false)
            columns.remove(at: 1)
            return columns.joined(separator: "\t")
        }
    }

    @Test func batchAndImportLogWhatSetsOneByOneLog() throws {
        let oneByOne = try seeded()
        for (key, json) in sets { try oneByOne.runOK(["set", "user", key, json]) }
        let expected = try log(oneByOne)
        #expect(expected.count == 20 + sets.count)
        #expect(expected.filter { $0.contains("\tuser\tk102\t102\t[102]\t") }.count == 1, "an update logs the value it replaced")

        let batch = try seeded()
        try batch.runOK(["batch"], stdin: sets.map { "set user \($0.key) \($0.json)\n" }.joined())
        #expect(try log(batch) == expected)

        let imported = try seeded()
        let document = "{\"user\":{" + sets.map { "\"\($0.key)\":\($0.json)" }.joined(separator: ",") + "}}"
        let path = imported.root + "/import.json"
        try document.write(toFile: path, atomically: true, encoding: .utf8)
        try imported.runOK(["import", path])
        let importLog = try log(imported).map { $0.replacingOccurrences(of: "\timport\t", with: "\tset\t") }
        #expect(importLog == expected)
    }
}
