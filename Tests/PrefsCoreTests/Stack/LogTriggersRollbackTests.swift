import Foundation
import Testing

@testable import PrefsCore

/// The change log's TEMP triggers are made by the first write to each table on a connection;
/// a transaction that made them and then rolled back took them back, and the connection must
/// make them again: every later write is logged.
@Suite("change-log triggers and rollback", .timeLimit(.minutes(5)))
struct LogTriggersRollbackTests {
    /// What a user sees of it: a `perform` that failed logs nothing, the next write is logged.
    /// (Here the triggers are made before the transaction, so this does not reach the rollback
    /// of triggers; the test below does.)
    @Test func aWriteAfterARolledBackFirstWriteIsLogged() throws {
        let store = try TemporaryStore()
        let stack = try store.open()
        for domain in [Domain.user, .default] {
            // The first write to the table on this connection fails as a whole: its
            // second operation's condition does not hold.
            #expect(throws: PrefsError.self) {
                try stack.perform([
                    .init(.set(.string("x")), in: domain, forKey: "a"),
                    .init(.remove, in: domain, forKey: "b", if: .version(5)),
                ])
            }
            #expect(try stack.history(LogFilter(domain: domain)).isEmpty)
            _ = try stack.perform([.init(.set(.string("y")), in: domain, forKey: "c")])
            let records = try stack.history(LogFilter(domain: domain))
            #expect(records.map(\.key) == ["c"], "\(domain.name): \(records)")
        }
    }

    /// The connection's record of the triggers it made follows a rollback: made again, not
    /// taken for made (a rolled-back first write would otherwise leave every later write of
    /// the table unlogged on that connection).
    @Test func aRolledBackTransactionTakesBackTheTriggersItMade() throws {
        let store = try TemporaryStore()
        _ = try store.open().perform([.init(.set(.string("v")), in: .user, forKey: "seed")])  // creates the store
        let queue = try DatabaseQueue(path: store.path)
        let triggers = "SELECT count(*) FROM sqlite_temp_schema WHERE type = 'trigger'"
        try queue.writeWithoutTransaction { db in
            try db.inTransaction {
                try ChangeLog.installTriggers(db, on: DomainTable(.user))
                #expect(try Int.fetchOne(db, sql: triggers) == 3)
                return .rollback
            }
            #expect(try Int.fetchOne(db, sql: triggers) == 0)
            try ChangeLog.installTriggers(db, on: DomainTable(.user))
            #expect(try Int.fetchOne(db, sql: triggers) == 3)
            try db.inTransaction {
                try ChangeLog.installTriggers(db, on: DomainTable(.default))
                return .commit
            }
            #expect(try Int.fetchOne(db, sql: triggers) == 6)
        }
    }
}
