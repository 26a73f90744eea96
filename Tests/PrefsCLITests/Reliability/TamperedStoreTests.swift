import Foundation
import PrefsCore
import Testing

/// A store whose rows were edited behind prefs' back (NULL where the schema says NOT NULL, the
/// largest version) is reported as unreadable (exit 3) or written over; the program never
/// stops on it. The table definitions stay byte-identical: NOT NULL is lifted with
/// `writable_schema` for the edit and put back afterwards.
@Suite("tampered store contents", .timeLimit(.minutes(5)))
struct TamperedStoreTests {
    /// Runs `edit` on the store with the NOT NULL constraints lifted, then restores them.
    func tamper(_ box: Sandbox, _ edit: String) throws {
        var configuration = Configuration()
        configuration.defensive = false  // writable_schema needs it
        try DatabaseQueue(path: box.store, configuration: configuration).writeWithoutTransaction { db in
            try db.execute(
                sql: """
                    CREATE TABLE _original AS SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL;
                    PRAGMA writable_schema = ON;
                    UPDATE sqlite_master SET sql = replace(sql, ' NOT NULL', '') WHERE type = 'table';
                    """)
        }
        try DatabaseQueue(path: box.store).writeWithoutTransaction { db in try db.execute(sql: edit) }
        try DatabaseQueue(path: box.store, configuration: configuration).writeWithoutTransaction { db in
            try db.execute(
                sql: """
                    PRAGMA writable_schema = ON;
                    UPDATE sqlite_master SET sql = (SELECT o.sql FROM _original o WHERE o.name = sqlite_master.name AND o.type = sqlite_master.type)
                        WHERE type = 'table' AND name <> '_original';
                    """)
        }
        try DatabaseQueue(path: box.store).writeWithoutTransaction { db in try db.execute(sql: "DROP TABLE _original") }
    }

    @Test func nullsAreAnUnreadableStoreNotACrash() throws {
        for (edit, commands) in [
            ("UPDATE kv_user SET value = NULL", [["get", "user", "a"], ["list", "user"], ["export"]]),
            ("UPDATE kv_user SET version = NULL", [["list", "user"], ["incr", "user", "a"], ["rm", "user", "a"]]),
            ("UPDATE changelog SET op = NULL", [["log"]]),
        ] {
            let box = try Sandbox(inProcess: true)
            try box.runOK(["set", "user", "a", "1"])
            try tamper(box, edit)
            for command in commands {
                let result = try box.runFailing(command, status: 3)
                #expect(result.status == 3, "\(edit); prefs \(command.joined(separator: " ")): \(result)")
                #expect(result.stderr.contains("is corrupt or not a prefs store"), "\(edit); prefs \(command): \(result)")
            }
        }
    }

    @Test func theLargestVersionIsKeptNotOverflowed() throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["set", "user", "a", "1"])
        try tamper(box, "UPDATE kv_user SET version = 9223372036854775807")
        try box.runOK(["incr", "user", "a"])
        try box.runOK(["set", "user", "a", "5"])
        let meta = try box.runOK(["get", "user", "a", "--show-meta"])
        #expect(meta.stdout.contains(#""version":9223372036854775807"#), "\(meta)")
        // Stored as an integer, not turned into a REAL by SQLite's overflow.
        let type = try DatabaseQueue(path: box.store).read {
            try String.fetchOne($0, sql: "SELECT typeof(version) FROM kv_user WHERE key = 'a'")
        }
        #expect(type == "integer")
    }
}
