import Foundation
import PrefsCore
import Testing

/// The local side of sync, without a server: applying remote operations and the clock.
@Suite("sync ledger", .timeLimit(.minutes(5)))
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
            try stack.sync.setRemote(remote, domains: nil)
            // One call per operation, so no batch can pick its winner in advance.
            for operation in order { try stack.sync.applyRemoteOperations([operation], through: nil) }
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
        try stack.sync.setRemote(remote, domains: nil)
        try stack.sync.applyRemoteOperations(all, through: 42)
        for (key, winner) in expected {
            #expect(try stack.storedValue(in: .default, forKey: key)?.compactText == winner.json, "\(key)")
        }
        #expect(try stack.exportJSON([.default]) == exports[0])
        #expect(try stack.sync.status().lastRemoteSeq == 42)
    }

    @Test func anOperationStampedBeyondTheDriftIsSkippedAndCannotPinItsKey() throws {
        // A forged (or badly clocked) operation years ahead would win its key against every
        // later write; it is refused like any invalid operation, one a day ahead still applies.
        let store = try TemporaryStore()
        let stack = try store.open()
        try stack.sync.setRemote(remote, domains: nil)
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        func operation(_ json: String, _ hlc: Int64) -> SyncOperation {
            SyncOperation(id: UUID().uuidString, domain: "switch", key: "k", json: json, expiresAt: nil, hlc: hlc, node: "z", actor: "x")
        }
        let forged = try stack.sync.applyRemoteOperationsCounting(
            [operation(#""evil""#, Int64.max), operation(#""past""#, -1)], through: 1)
        #expect(forged.applied == 0 && forged.skipped == 2)
        #expect(try stack.storedValue(in: .switch, forKey: "k") == nil)
        let ahead = try stack.sync.applyRemoteOperationsCounting([operation(#""tomorrow""#, (now + 86_400_000) << 16)], through: 2)
        #expect(ahead.applied == 1 && ahead.skipped == 0)
        #expect(try stack.storedValue(in: .switch, forKey: "k") == .string("tomorrow"))
        // The forged one again, now over a stored value: still nothing changes, and a local
        // write after it is what the key holds.
        #expect(try stack.sync.applyRemoteOperationsCounting([operation(#""evil""#, Int64.max)], through: 3).skipped == 1)
        try stack.set(.string("mine"), in: .switch, forKey: "k")
        try stack.flushSynchronously()
        #expect(try stack.storedValue(in: .switch, forKey: "k") == .string("mine"))
    }

    @Test func localWritesAfterAPullGetLaterTimestampsAndWin() throws {
        let store = try TemporaryStore()
        let stack = try store.open()
        try stack.sync.setRemote(remote, domains: nil)
        let future = (Int64(Date().timeIntervalSince1970 * 1000) + 3_600_000) << 16
        try stack.sync.applyRemoteOperations(
            [
                SyncOperation(
                    id: UUID().uuidString, domain: "default", key: "k", json: "1", expiresAt: nil, hlc: future, node: "z", actor: "x")
            ],
            through: 1)
        try stack.set(.number("2"), in: .default, forKey: "k")
        try stack.flushSynchronously()
        let pending = try stack.sync.pendingOperations()
        #expect(pending.count == 1 && pending[0].hlc > future && pending[0].json == "2")
        // An operation that loses to the local write (written before it was seen) changes nothing.
        try stack.sync.applyRemoteOperations(
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
        #expect(try stack.sync.pendingOperations().count == 1)
        try stack.sync.applyRemoteOperations(
            [
                SyncOperation(
                    id: UUID().uuidString, domain: "user", key: "u", json: "9", expiresAt: nil, hlc: future * 2, node: "z", actor: "x")
            ],
            through: 3)
        #expect(try stack.storedValue(in: .user, forKey: "u") == .number("1"))
    }

    /// Operations a hostile server or peer could plant, each breaking one rule of local writes.
    @Test func pulledOperationsALocalWriteWouldRefuseAreSkippedAndCounted() throws {
        let store = try TemporaryStore()
        let stack = try store.open()
        try stack.sync.setRemote(remote, domains: nil)
        var hlc: Int64 = 1_000
        func operation(domain: String = "default", key: String, json: String?, actor: String = "peer", node: String = "node-z")
            -> SyncOperation
        {
            hlc += 1
            return SyncOperation(
                id: UUID().uuidString.lowercased(), domain: domain, key: key, json: json, expiresAt: nil, hlc: hlc, node: node, actor: actor
            )
        }
        let forgedLine = "mallory\n99\t2026-01-01T00:00:00Z\tset\tdefault\tadmin\tnull\ttrue\troot"
        let hostile = [
            operation(key: "spaced", json: "{ \"a\" :\n [1, 2.50] }"),  // valid JSON, not compact: stored compact
            operation(key: "ok-actor", json: "2", actor: String(repeating: "a", count: 256)),
            operation(key: "not-json", json: "{\"a\":"),
            operation(key: "big", json: "\"" + String(repeating: "x", count: SyncOperation.maximumValueSize) + "\""),
            operation(key: "deep", json: String(repeating: "[", count: 600) + String(repeating: "]", count: 600)),
            operation(key: "newline-actor", json: "1", actor: forgedLine),
            operation(key: "escape-actor", json: "1", actor: "\u{1b}[2J"),
            operation(key: "long-actor", json: "1", actor: String(repeating: "a", count: 257)),
            operation(key: "bad\u{7}key", json: "1"),
            operation(key: "", json: "1"),
            operation(key: String(repeating: "k", count: 1025), json: "1"),
            operation(domain: "Bad Domain", key: "k", json: "1"),
            operation(key: "no-node", json: "1", node: ""),
            operation(key: "long-node", json: "1", node: String(repeating: "n", count: 65)),
            operation(key: "newline-node", json: "1", node: "a\nb"),
        ]
        let outcome = try stack.sync.applyRemoteOperationsCounting(hostile, through: 10)
        #expect(outcome.applied == 2 && outcome.skipped == 13, "\(outcome)")
        #expect(try stack.sync.status().skipped == 13)
        #expect(try stack.sync.status().lastRemoteSeq == 10, "skipped operations are still pulled past")
        #expect(try stack.entries(in: .default).map(\.key).sorted() == ["ok-actor", "spaced"])
        let log = try stack.history()
        #expect(log.count == 2)
        #expect(log.first { $0.key == "spaced" }?.new == #"{"a":[1,2.50]}"#, "stored as compact text, number text kept")
        #expect(log.allSatisfy { !$0.actor.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F } })
        // A skipped operation takes no part in choosing a key's winner: a later invalid one
        // does not hide an earlier valid one.
        let valid = operation(key: "contested", json: "\"valid\"")
        let invalid = operation(key: "contested", json: "\"evil\"", actor: "x\u{1b}]0;title\u{7}")
        let second = try stack.sync.applyRemoteOperationsCounting([valid, invalid], through: 11)
        #expect(second.applied == 1 && second.skipped == 1)
        #expect(try stack.storedValue(in: .default, forKey: "contested") == .string("valid"))
        #expect(try stack.sync.status().skipped == 14, "counted across pulls")
        // Setting another remote starts the count afresh.
        try stack.sync.setRemote(try RemoteURL(parsing: "postgres://v@127.0.0.1:1/other"), domains: nil)
        #expect(try stack.sync.status().skipped == 0)
    }

    @Test func aPeerCannotCreateDomainsWithoutEnd() throws {
        let store = try TemporaryStore()
        let stack = try store.open()
        try stack.sync.setRemote(remote, domains: nil)
        try stack.set(.number("1"), in: .default, forKey: "k")
        try stack.flushSynchronously()
        let operations = (0..<1_200).map { index in
            SyncOperation(
                id: UUID().uuidString.lowercased(), domain: "d\(index)", key: "k", json: "1", expiresAt: nil, hlc: 5_000 + Int64(index),
                node: "node-z", actor: "peer")
        }
        let outcome = try stack.sync.applyRemoteOperationsCounting(operations, through: 1)
        #expect(outcome.applied + outcome.skipped == 1_200)
        #expect(outcome.skipped >= 200, "\(outcome)")
        #expect(try stack.domains().filter { $0 != .memory }.count == SyncOperation.maximumDomains)
        // Domains that exist take operations as before.
        let more = try stack.sync.applyRemoteOperationsCounting(
            [
                SyncOperation(
                    id: UUID().uuidString.lowercased(), domain: "d0", key: "k2", json: "2", expiresAt: nil, hlc: 9_000, node: "node-z",
                    actor: "peer")
            ], through: 2)
        #expect(more.applied == 1 && more.skipped == 0)
    }

    /// After a snapshot: keys the store had synced that the snapshot lacks (their deletes were
    /// compacted away) are removed, unless a write of them is pending; keys it never synced stay.
    @Test func keysMissingFromTheSnapshotAreForgottenUnlessPending() throws {
        let stack = try TemporaryStore().open()
        func operation(_ key: String, _ hlc: Int64) -> SyncOperation {
            SyncOperation(
                id: UUID().uuidString.lowercased(), domain: "default", key: key, json: "1", expiresAt: nil, hlc: hlc, node: "other",
                actor: "test")
        }
        try stack.sync.setRemote(remote, domains: nil)
        try stack.sync.applyRemoteOperations([operation("kept", 10), operation("deleted", 11), operation("rewritten", 12)], through: 3)
        try stack.sync.acknowledgePush(through: Int64.max)
        try stack.set(.string("local"), in: .default, forKey: "rewritten")  // pending
        let forgotten = try stack.sync.forgetSyncedKeys(notIn: ["default\u{0}kept"], through: 9)
        #expect(forgotten == 1)
        #expect(try stack.storedValue(in: .default, forKey: "kept") != nil)
        #expect(try stack.storedValue(in: .default, forKey: "deleted") == nil)
        #expect(try stack.storedValue(in: .default, forKey: "rewritten")?.compactText == #""local""#)
        #expect(try stack.sync.pendingOperations().map(\.key) == ["rewritten"])  // the removal is not pushed
        #expect(try stack.sync.status().lastRemoteSeq == 9)
    }
}
