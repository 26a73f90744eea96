import Foundation
import PrefsCore
import Testing

/// The local side of sync, without a server: applying remote operations and the clock.
@Suite("sync ledger")
struct SyncLedgerTests {
    let remote: RemoteURL

    init() throws {
        remote = try RemoteURL(parsing: "postgres://u@127.0.0.1:1/db")  // never connected to
    }

    /// Operations from three nodes on a few keys, with ties on the timestamp between nodes
    /// (a node never issues one timestamp twice).
    func operations() -> [SyncOperation] {
        var result: [SyncOperation] = []
        var generator = SystemRandomNumberGenerator()
        var used = Set<String>()
        for index in 0..<300 {
            let node = ["node-a", "node-b", "node-c"][index % 3]
            let hlc = Int64(1_000 + Int.random(in: 0..<200, using: &generator))  // many ties between nodes
            guard used.insert("\(node) \(hlc)").inserted else { continue }
            let json: String? = index % 7 == 0 ? nil : #"{"from":"\#(node)","n":\#(index)}"#
            result.append(
                SyncOperation(
                    id: UUID().uuidString.lowercased(), domain: "default", key: "k\(index % 11)", json: json, expiresAt: nil, hlc: hlc,
                    node: node, actor: "test"))
        }
        return result
    }

    @Test func anyOrderOfTheSameOperationsEndsInTheSameState() throws {
        let all = operations()
        var exports: [String] = []
        for order in [all, all.reversed(), all.shuffled(), all.shuffled()] {
            let store = try TemporaryStore()
            let stack = try store.open()
            try stack.setRemote(remote, domains: nil)
            // One call per operation, so no batch can pick its winner in advance.
            for operation in order { try stack.applyRemoteOperations([operation], through: nil) }
            exports.append(try stack.exportJSON([.default]))
        }
        #expect(Set(exports).count == 1, "\(exports)")
        // The state is each key's maximum by (hlc, node).
        var expected: [String: SyncOperation] = [:]
        for operation in all {
            if let current = expected[operation.key], !operation.wins(over: current.hlc, node: current.node) { continue }
            expected[operation.key] = operation
        }
        let stack = try TemporaryStore().open()
        try stack.setRemote(remote, domains: nil)
        try stack.applyRemoteOperations(all, through: 42)
        for (key, winner) in expected {
            #expect(try stack.storedValue(in: .default, forKey: key)?.compactText == winner.json, "\(key)")
        }
        #expect(try stack.exportJSON([.default]) == exports[0])
        #expect(try stack.syncStatus().lastRemoteSeq == 42)
    }

    @Test func localWritesAfterAPullGetLaterTimestampsAndWin() throws {
        let store = try TemporaryStore()
        let stack = try store.open()
        try stack.setRemote(remote, domains: nil)
        let future = (Int64(Date().timeIntervalSince1970 * 1000) + 3_600_000) << 16
        try stack.applyRemoteOperations(
            [
                SyncOperation(
                    id: UUID().uuidString, domain: "default", key: "k", json: "1", expiresAt: nil, hlc: future, node: "z", actor: "x")
            ],
            through: 1)
        try stack.set(.number("2"), in: .default, forKey: "k")
        try stack.flushSynchronously()
        let pending = try stack.pendingSyncOperations()
        #expect(pending.count == 1 && pending[0].hlc > future && pending[0].json == "2")
        // An operation that loses to the local write (written before it was seen) changes nothing.
        try stack.applyRemoteOperations(
            [
                SyncOperation(
                    id: UUID().uuidString, domain: "default", key: "k", json: "3", expiresAt: nil, hlc: future - 5, node: "z", actor: "x")
            ],
            through: 2)
        #expect(try stack.storedValue(in: .default, forKey: "k") == .number("2"))
        // user and memory are not synced by default: neither recorded nor applied.
        try stack.set(.number("1"), in: .user, forKey: "u")
        try stack.set(.number("1"), in: .memory, forKey: "m")
        try stack.flushSynchronously()
        #expect(try stack.pendingSyncOperations().count == 1)
        try stack.applyRemoteOperations(
            [
                SyncOperation(
                    id: UUID().uuidString, domain: "user", key: "u", json: "9", expiresAt: nil, hlc: future * 2, node: "z", actor: "x")
            ],
            through: 3)
        #expect(try stack.storedValue(in: .user, forKey: "u") == .number("1"))
    }
}
