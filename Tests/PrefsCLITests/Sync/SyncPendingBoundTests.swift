import Foundation
import PrefsCore
import PrefsTestSupport
import Testing

/// A store that cannot reach its remote keeps its writes as pending operations: rewriting the
/// same keys must not grow that queue without bound (one row per write, forever, until a push
/// that then sends every one of them). No server needed: nothing here connects.
@Suite(.timeLimit(.minutes(5)), .ownThreads) struct SyncPendingBoundTests {
    /// The pending count `sync --status` shows.
    func pending(_ box: Sandbox) throws -> String {
        let status = try box.syncStatus(["--json"])
        let object = try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any]
        return "\(object?["pending"] ?? "none")"
    }

    /// `apply` of `count` sets of `default/k` (values start..<start+count), one transaction.
    func rewrite(_ box: Sandbox, _ start: Int, _ count: Int) throws {
        let operations = (start..<start + count).map { #"{"op":"set","domain":"default","key":"k","value":\#($0)}"# }
        let applied = try box.runOK(["apply", "-"], stdin: "[" + operations.joined(separator: ",") + "]")
        #expect(applied.status == 0, "\(applied)")
    }

    @Test func rewritingOneKeyWhileOfflineKeepsThePendingQueueBounded() throws {
        let box = try Sandbox(inProcess: true)
        // A remote nobody listens on: recording needs no connection.
        try box.runOK(["remote", "set", "postgres://nobody@127.0.0.1:1/none"])
        try box.runOK(["set", "default", "other", "\"kept\""])
        #expect(try pending(box) == "1")
        // Below the compaction point every write is still its own operation.
        try rewrite(box, 0, 1000)
        #expect(try pending(box) == "1001")
        // 5,000 more rewrites of the same key: the queue keeps the newest per key.
        for round in 0..<5 { try rewrite(box, 1000 + round * 1000, 1000) }
        let after = try Int(pending(box)) ?? -1
        #expect(after >= 2 && after <= 1024 + 2, "pending \(after) after 6,000 writes of one key")
        #expect(try box.runOK(["get", "default", "k"]).stdout == "5999\n")
        let offline = try box.syncFailure(timeout: .seconds(2))
        #expect(offline.exitCode == 7 && offline.message.hasSuffix("\(after) operations pending, local data kept"), "\(offline)")
    }
}
