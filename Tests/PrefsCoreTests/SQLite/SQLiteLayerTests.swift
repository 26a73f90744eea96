import Foundation
import PrefsCore
import Testing

/// PrefsCore's own SQLite layer: the behaviours the store relies on (transaction kinds,
/// rollback, read-only reads, errors, foreign files), checked against SQLite itself.
@Suite("SQLite layer", .timeLimit(.minutes(5)))
struct SQLiteLayerTests {
    func makeTable(_ store: TemporaryStore) throws -> DatabaseQueue {
        let queue = try DatabaseQueue(path: store.path)
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL; CREATE TABLE t (k TEXT PRIMARY KEY, v)")
        }
        return queue
    }

    /// Every connection treats the file as data: its schema is untrusted and it is in
    /// defensive mode, so no statement can rewrite `sqlite_master` behind SQLite's back.
    @Test func connectionsAreDefensiveAndDistrustTheSchema() throws {
        let store = try TemporaryStore()
        let queue = try makeTable(store)
        #expect(try queue.read { try Int.fetchOne($0, sql: "PRAGMA trusted_schema") } == 0)
        #expect(throws: DatabaseError.self) {
            try queue.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA writable_schema = ON; UPDATE sqlite_master SET sql = 'CREATE TABLE t (x)' WHERE name = 't'")
            }
        }
        var configuration = Configuration()
        configuration.defensive = false
        let trusting = try DatabaseQueue(path: store.path, configuration: configuration)
        #expect(try trusting.read { try Int.fetchOne($0, sql: "PRAGMA trusted_schema") } == 1)
    }

    @Test func writeTakesTheWriteLockAtBeginAndRollsBackWhenTheBodyThrows() throws {
        let store = try TemporaryStore()
        let queue = try makeTable(store)
        let other = try DatabaseQueue(path: store.path)
        struct Stop: Error {}
        var refused: (any Error)?
        #expect(throws: Stop.self) {
            try queue.write { db in
                // BEGIN IMMEDIATE: another writer is refused before this one writes anything.
                do {
                    try other.writeWithoutTransaction { try $0.execute(sql: "BEGIN IMMEDIATE") }
                } catch {
                    refused = error
                }
                try db.execute(sql: "INSERT INTO t VALUES ('a', 1)")
                throw Stop()
            }
        }
        #expect((refused as? DatabaseError)?.resultCode == .busy, "\(String(describing: refused))")
        #expect(try queue.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM t") } == 0)
        #expect(try queue.read { $0.isInsideTransaction } == true)
        #expect(queue.writeWithoutTransaction { $0.isInsideTransaction } == false)
        try queue.write { try $0.execute(sql: "INSERT INTO t VALUES ('a', 1)") }
        #expect(try other.read { try String.fetchAll($0, sql: "SELECT k FROM t") } == ["a"])
    }

    @Test func readRefusesWritesAndLeavesTheConnectionWritable() throws {
        let store = try TemporaryStore()
        let queue = try makeTable(store)
        let error = #expect(throws: DatabaseError.self) {
            try queue.read { try $0.execute(sql: "INSERT INTO t VALUES ('a', 1)") }
        }
        #expect(error?.resultCode == .readonly)
        try queue.write { try $0.execute(sql: "INSERT INTO t VALUES ('a', 1)") }
        #expect(try queue.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM t") } == 1)
    }

    @Test func errorsCarryPrimaryAndExtendedCodeMessageAndSQL() throws {
        let store = try TemporaryStore()
        let queue = try makeTable(store)
        try queue.write { try $0.execute(sql: "INSERT INTO t VALUES (?, ?)", arguments: ["a", 1]) }
        let error = #expect(throws: DatabaseError.self) {
            try queue.write { try $0.execute(sql: "INSERT INTO t VALUES ('a', 2)") }
        }
        #expect(error?.resultCode.rawValue == 19, "SQLITE_CONSTRAINT")
        #expect(error?.extendedResultCode.rawValue == 1555, "SQLITE_CONSTRAINT_PRIMARYKEY")
        #expect(error?.message == "UNIQUE constraint failed: t.k")
        #expect(error?.sql == "INSERT INTO t VALUES ('a', 2)")
        let syntax = #expect(throws: DatabaseError.self) { try queue.read { try Row.fetchAll($0, sql: "SELEKT 1") } }
        #expect(syntax?.resultCode == .error && syntax?.message?.contains("syntax error") == true)
        // Double-quoted strings are identifiers only (as with GRDB).
        let quoted = #expect(throws: DatabaseError.self) { try queue.read { try Row.fetchAll($0, sql: #"SELECT "nope""#) } }
        #expect(quoted?.message == "no such column: nope")
    }

    @Test func aFileThatIsNotADatabaseFailsAtOpen() throws {
        let store = try TemporaryStore()
        try Data(String(repeating: "not a database\n", count: 100).utf8).write(to: URL(fileURLWithPath: store.path))
        for readonly in [false, true] {
            var configuration = Configuration()
            configuration.readonly = readonly
            let error = #expect(throws: DatabaseError.self) { try DatabaseQueue(path: store.path, configuration: configuration) }
            #expect(error?.resultCode == .notADatabase && error?.message == "file is not a database")
        }
        var configuration = Configuration()
        configuration.readonly = true
        let missing = #expect(throws: DatabaseError.self) {
            try DatabaseQueue(path: store.directory + "/missing.db", configuration: configuration)
        }
        #expect(missing?.resultCode == .cantOpen && missing?.message == nil)
    }

    @Test func executeRunsEveryStatementAndFetchesConvert() throws {
        let store = try TemporaryStore()
        let queue = try makeTable(store)
        try queue.write { db in
            try db.execute(
                sql: "INSERT INTO t VALUES (?, ?); INSERT INTO t VALUES (?1 || 'x', ?2); -- done\n",
                arguments: ["a", 7, "b", nil])
        }
        let rows = try queue.read { try Row.fetchAll($0, sql: "SELECT k, v FROM t ORDER BY k") }
        #expect(try rows.map { try $0["K"] as String } == ["a", "bx"])
        #expect(rows.map { $0[1] as Int? } == [7, nil])
        #expect(rows.map(\.description) == [#"[k:"a" v:7]"#, #"[k:"bx" v:NULL]"#])
        #expect(try queue.read { try String.fetchOne($0, sql: "SELECT v FROM t WHERE k = 'a'") } == "7")
        #expect(try queue.read { try Int.fetchOne($0, sql: "SELECT v FROM t WHERE k = 'bx'") } == nil)
        #expect(try queue.read { try Bool.fetchOne($0, sql: "SELECT 1 FROM t WHERE k = 'zz'") } == nil)
        #expect(try queue.read { try $0.tableExists("T") } && !(try queue.read { try $0.tableExists("u") }))
        let cursor = try queue.read { db -> [String] in
            let rows = try Row.fetchCursor(db, sql: "SELECT k FROM t WHERE k > ? ORDER BY k", arguments: [""])
            var keys: [String] = []
            while let row = try rows.next() { keys.append(try row[0]) }
            return keys
        }
        #expect(cursor == ["a", "bx"])
        let statement = try queue.writeWithoutTransaction { try $0.cachedStatement(sql: "SELECT count(*) FROM t WHERE k >= ?") }
        for (lower, count) in [("a", 2), ("b", 1), ("c", 0)] {
            #expect(try queue.read { _ in try Int.fetchOne(statement, arguments: [lower]) } == count)
        }
        #expect(throws: DatabaseError.self) { try queue.read { try Int.fetchOne($0, sql: "SELECT ?", arguments: []) } }
    }

    @Test func immutableReadOnlyURIAndBackup() throws {
        let store = try TemporaryStore()
        let queue = try makeTable(store)
        try queue.write { try $0.execute(sql: "INSERT INTO t VALUES ('a', 1)") }
        try queue.writeWithoutTransaction { try $0.execute(sql: "PRAGMA journal_mode = DELETE") }
        try queue.close()
        var configuration = Configuration()
        configuration.readonly = true
        let immutable = try DatabaseQueue(path: "file:\(store.path)?immutable=1", configuration: configuration)
        #expect(try immutable.read { try String.fetchAll($0, sql: "SELECT k FROM t") } == ["a"])
        let copy = try DatabaseQueue(path: store.directory + "/copy.db")
        try immutable.backup(to: copy)
        #expect(try copy.read { try Int.fetchOne($0, sql: "SELECT v FROM t WHERE k = 'a'") } == 1)
        let write = #expect(throws: DatabaseError.self) { try immutable.write { try $0.execute(sql: "DELETE FROM t") } }
        #expect(write?.resultCode == .readonly)
    }
}
