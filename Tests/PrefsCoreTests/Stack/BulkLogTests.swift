import Foundation
import Testing

@testable import PrefsCore

/// A bulk of plain sets writes its change-log records itself (``BulkUpsert``), without the
/// TEMP triggers: the log must hold exactly what the triggers write when the same changes are
/// applied one by one (same numbers, domains, keys, ops, old and new values, actors, in the same
/// order), and every write after the bulk is logged once.
@Suite("bulk change-log records", .timeLimit(.minutes(5)))
struct BulkLogTests {
    /// One write time for both stores: set records carry it.
    let now: Int64 = 1_800_000_000_000

    /// A domain of its own and the shared table of the custom domains, each with keys there
    /// before (written one by one), then new keys in order, keys out of order, a key twice
    /// within one statement's rows, a removal between sets, and more than a statement's worth.
    @Test(arguments: [Domain.user, Domain("team")])
    func aBulkLogsWhatTheTriggersLogOneByOne(domain: Domain) throws {
        func set(_ key: String, _ json: String) -> (PendingKey, PendingChange) {
            (PendingKey(domain: domain, key: key), .set(json, expiresAt: nil))
        }
        let seed = (0..<20).map { set("k\(100 + $0 * 2)", "\($0)") }
        var changes = (0..<40).map { set("n\(1000 + $0)", "\"new \($0)\"") }  // new keys, increasing
        changes += [set("k104", "1"), set("a", "2"), set("k199", "3"), set("a", "4"), set("k104", "5")]  // old, twice
        changes += (0..<10).map { set("k\(140 - $0 * 2)", "[\($0)]") }  // existing keys, decreasing
        changes.append((PendingKey(domain: domain, key: "k120"), .remove))
        changes += (0..<20).map { set("z\($0)", "{\"i\":\($0)}") } + [set("k120", "true"), set("n1000", "null")]
        let again = (0..<17).map { set("n\(1030 + $0)", "\"again \($0)\"") }
        let (bulk, oneByOne) = (try TemporaryStore(), try TemporaryStore())
        var logs: [[String]] = []
        let triggers = "SELECT count(*) FROM sqlite_temp_schema WHERE type = 'trigger'"
        for (store, events) in [(bulk, false), (oneByOne, true)] {
            let stack = try store.open()
            try stack.sync.setRemote(try RemoteURL(parsing: "postgres://u@127.0.0.1:1/db"), domains: [domain])  // never connected to
            try apply(seed, to: stack, events: true)
            try apply(changes, to: stack, events: events)
            // The bulk wrote its own records: the triggers of its table are gone.
            let left = try stack.main.writer().writeWithoutTransaction { db in try Int.fetchOne(db, sql: triggers) }
            #expect(left == (events ? 3 : 0))
            try apply(again, to: stack, events: events)  // a bulk after a bulk, no trigger made between them
            // Later writes on the same connection, through the triggers again: logged once each.
            try apply([set("k100", "\"after\""), (PendingKey(domain: domain, key: "z3"), .remove)], to: stack, events: true)
            try apply([set("late", "1")], to: stack, events: false)
            logs.append(try describe(stack))
        }
        #expect(logs[0].filter { $0.hasPrefix("record") }.count == 20 + changes.count + again.count + 3)
        #expect(logs[0].count > 20 + changes.count + again.count + 3, "pending sync operations")
        #expect(logs[0] == logs[1])
    }

    /// A bulk longer than the log keeps writes no record for its head (retention would prune
    /// them): the records it keeps, and their numbers, are those of the writes one by one.
    @Test func aBulkBeyondRetentionKeepsTheNewestRecords() throws {
        let changes = (0..<70).map { (PendingKey(domain: .user, key: "key\(1000 - $0)"), PendingChange.set("\($0)", expiresAt: nil)) }
        let (bulk, oneByOne) = (try TemporaryStore(), try TemporaryStore())
        var logs: [[String]] = []
        for (store, events) in [(bulk, false), (oneByOne, true)] {
            let stack = try store.open()
            try stack.setLogRetention(25)
            try apply(changes, to: stack, events: events)
            try apply(changes.prefix(3).map { ($0.0, .set("\"again\"", expiresAt: nil)) }, to: stack, events: false)
            logs.append(try describe(stack))
        }
        #expect(logs[0].count == 25 && logs[0].allSatisfy { $0.hasPrefix("record") })
        #expect(logs[0] == logs[1])
    }

    /// A key that another path of the same bulk adds (an increment between two statements'
    /// worth of sets) sorts after every key the bulk knew of: when a later statement sets it,
    /// its record still carries the value the increment stored, as the triggers log it.
    @Test func aKeyAddedBetweenTwoStatementsIsNotTakenForNew() throws {
        func set(_ key: String, _ json: String) -> (PendingKey, PendingChange) {
            (PendingKey(domain: .user, key: key), .set(json, expiresAt: nil))
        }
        var changes = (0..<16).map { set("a\(10 + $0)", "\($0)") }
        changes.append((PendingKey(domain: .user, key: "b"), .increment(delta: 1, visible: "1")))
        changes += [set("b", "\"set after the increment\"")] + (0..<15).map { set("c\(10 + $0)", "\($0)") }
        let (bulk, oneByOne) = (try TemporaryStore(), try TemporaryStore())
        var logs: [[String]] = []
        for (store, events) in [(bulk, false), (oneByOne, true)] {
            let stack = try store.open()
            try apply(changes, to: stack, events: events)
            logs.append(try describe(stack))
        }
        #expect(logs[0].contains { $0.contains(" user b ") && $0.contains(" 1 \"set after the increment\" ") }, "\(logs[0])")
        #expect(logs[0].count == changes.count)
        #expect(logs[0] == logs[1])
    }

    /// Applies `changes` in one write transaction: in bulk (no events) or one by one.
    private func apply(_ changes: [(PendingKey, PendingChange)], to stack: KeyValueStack, events: Bool) throws {
        try WriteTransaction.run(on: stack.main, op: .set) { transaction in
            _ = try ChangeApplier(transaction, now: now).apply(changes, requireExisting: false, events: events)
        }
    }

    /// The log as `history` gives it (the time of a removal is the clock's, left out) and the
    /// pending sync operations made from it.
    private func describe(_ stack: KeyValueStack) throws -> [String] {
        let records = try stack.history().map { record in
            [
                "record", String(record.seq), record.new == nil ? "" : String(record.at), record.domain.name, record.key, record.op,
                record.old ?? "NULL", record.new ?? "NULL", record.actor,
            ].joined(separator: " ")
        }
        let pending = try stack.sync.pendingOperations().map { "\($0.domain) \($0.key) \($0.json ?? "NULL")" }
        return records + pending
    }
}
