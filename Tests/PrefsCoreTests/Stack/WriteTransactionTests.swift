import Foundation
import PrefsCore
import Testing

/// What every write transaction guarantees, whichever writer runs it: all or nothing for
/// keys, change-log records and pending sync operations.
@Suite("write transaction", .timeLimit(.minutes(5)))
struct WriteTransactionTests {
    let remote: RemoteURL

    init() throws {
        remote = try RemoteURL(parsing: "postgres://u@127.0.0.1:1/db")  // never connected to
    }

    @Test func aFailingWriteLeavesNoKeyNoLogRecordAndNoSyncOperation() throws {
        let store = try TemporaryStore()
        let stack = try store.open()
        try stack.sync.setRemote(remote, domains: nil)
        try stack.set(.number("1"), in: .default, forKey: "b", if: .absent)
        let records = try stack.history()
        let pending = try stack.sync.pendingOperations()
        #expect(records.count == 1)
        #expect(pending.count == 1)
        // The first operation would write a, the second fails its condition: nothing stays.
        #expect(throws: PrefsError.self) {
            try stack.perform([
                .init(.set(.string("x")), in: .default, forKey: "a"),
                .init(.increment(by: 1), in: .default, forKey: "b"),
                .init(.remove, in: .default, forKey: "b", if: .version(1)),
            ])
        }
        #expect(try stack.storedValue(in: .default, forKey: "a") == nil)
        #expect(try stack.storedValue(in: .default, forKey: "b") == .number("1"))
        #expect(try stack.history() == records)
        #expect(try stack.sync.pendingOperations() == pending)
        // The same list without the failing condition commits all three, logged and queued.
        try stack.perform([
            .init(.set(.string("x")), in: .default, forKey: "a"),
            .init(.increment(by: 1), in: .default, forKey: "b"),
        ])
        #expect(try stack.history().map(\.op) == ["set", "set", "set"])
        #expect(try stack.sync.pendingOperations().map(\.key) == ["b", "a", "b"])
    }

    @Test func aPulledRemovalInADomainThatDoesNotExistHereDoesNotBlockItsOtherKeys() throws {
        let stack = try TemporaryStore().open()
        try stack.sync.setRemote(remote, domains: nil)
        let team = Domain("team")
        // A key set and removed on another store, then another key set there: the removal
        // wins for a, and comes first.
        let operations = [
            SyncOperation(id: UUID().uuidString, domain: "team", key: "a", json: "1", expiresAt: nil, hlc: 1_000, node: "n", actor: "t"),
            SyncOperation(id: UUID().uuidString, domain: "team", key: "a", json: nil, expiresAt: nil, hlc: 1_001, node: "n", actor: "t"),
            SyncOperation(id: UUID().uuidString, domain: "team", key: "b", json: "2", expiresAt: nil, hlc: 1_002, node: "n", actor: "t"),
        ]
        #expect(try stack.sync.applyRemoteOperations(operations, through: 3) == 2)
        #expect(try stack.storedValue(in: team, forKey: "a") == nil)
        #expect(try stack.storedValue(in: team, forKey: "b") == .number("2"))
        #expect(try stack.history().map(\.op) == ["sync"])
    }
}

extension WriteTransactionTests {
    @Test func aFlushReportsASkippedIncrementAlsoWhenItWritesTheMemoryTier() throws {
        let store = try TemporaryStore()
        let writer = try store.open()
        let other = try store.open()
        try writer.increment(in: .user, forKey: "n")
        // Another process stores a string before the queued increment is flushed.
        try other.set(.string("text"), in: .user, forKey: "n")
        try other.flushSynchronously()
        try writer.set(.bool(true), in: .memory, forKey: "m")
        let report = try writer.flushSynchronously()
        #expect(report.rejected == ["increment of user/n skipped: user/n holds a string, not an integer"], "\(report)")
        #expect(try writer.storedValue(in: .user, forKey: "n") == .string("text"))
        #expect(try writer.storedValue(in: .memory, forKey: "m") == .bool(true))
    }
}
