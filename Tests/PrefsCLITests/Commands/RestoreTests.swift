import Foundation
import PrefsCore
import Testing

/// `prefs restore`: a backup replaces the store's content atomically, online.
@Suite("restore")
struct RestoreTests {
    @Test func aBackupReplacesTheStoreOnlyWithForce() throws {
        let box = try Sandbox()
        #expect(try box.run(["set", "user", "k", "1"]).status == 0)
        let backup = box.root + "/b.db"
        #expect(try box.run(["backup", backup]).status == 0)
        #expect(try box.run(["set", "user", "k", "2"]).status == 0)
        #expect(try box.run(["set", "user", "later", "x"]).status == 0)
        expectFailure(try box.run(["restore", backup]), 4, contains: "holds keys; --force replaces them")
        #expect(try box.run(["get", "user", "k"]).stdout == "2\n", "nothing changed")
        #expect(try box.run(["restore", backup, "--force"]).status == 0)
        #expect(try box.run(["get", "user", "k"]).stdout == "1\n")
        expectFailure(try box.run(["get", "user", "later"]), 1)
        let state = try DatabaseQueue(path: box.store).read { db in
            (try String.fetchOne(db, sql: "PRAGMA journal_mode"), try String.fetchAll(db, sql: "PRAGMA integrity_check"))
        }
        #expect(state.0 == "wal" && state.1 == ["ok"])
        // Into a store that does not exist yet: no --force needed.
        let fresh = box.root + "/fresh/new.db"
        #expect(try box.run(["--store", fresh, "restore", backup], store: false).status == 0)
        #expect(try box.run(["--store", fresh, "get", "user", "k"], store: false).stdout == "1\n")
    }

    @Test func whatIsNotAnIntactBackupIsRefused() throws {
        let box = try Sandbox()
        #expect(try box.run(["set", "user", "k", "1"]).status == 0)
        let junk = box.root + "/junk.db"
        #expect(FileManager.default.createFile(atPath: junk, contents: Data("not sqlite".utf8)))
        expectFailure(try box.run(["restore", junk, "--force"]), 3, contains: "is not an intact prefs store")
        let other = box.root + "/other.db"
        try DatabaseQueue(path: other).write { try $0.execute(sql: "CREATE TABLE t (x)") }
        expectFailure(try box.run(["restore", other, "--force"]), 3, contains: "is not a prefs store backup")
        expectFailure(try box.run(["restore", box.root + "/missing.db", "--force"]), 3, contains: "cannot read backup")
        expectFailure(try box.run(["restore", box.store, "--force"]), 4, contains: "is the store itself")
        #expect(try box.run(["get", "user", "k"]).stdout == "1\n")
    }

    @Test func anOlderBackupIsMigrated() throws {
        let box = try Sandbox()
        let backup = box.root + "/old/b.db"
        try makeFixtureStore("schema-1", at: backup)
        #expect(try box.run(["restore", backup]).status == 0)
        #expect(try box.run(["get", "legacy", "count"]).stdout == "41\n")
        #expect(try box.run(["set", "legacy", "n", "1"]).status == 0)
        let version = try DatabaseQueue(path: box.store).read { try Int.fetchOne($0, sql: "PRAGMA user_version") }
        #expect(version == 3)
    }

    /// Readers during restores see the old value or the restored one, never an error.
    @Test func readersDuringRestoresNeverSeeAnError() throws {
        let box = try Sandbox()
        #expect(try box.run(["set", "user", "k", "\"restored\""]).status == 0)
        let backup = box.root + "/b.db"
        #expect(try box.run(["backup", backup]).status == 0)
        #expect(try box.run(["set", "user", "k", "\"live\""]).status == 0)
        let script = "i=0; while [ $i -lt 60 ]; do \"$0\" --store \"$1\" get user k || exit 1; i=$((i+1)); done"
        let readers = try Running(["-c", script, Sandbox.binary, box.store], environment: box.environment(), executable: "/bin/sh")
        for _ in 0..<8 {
            #expect(try box.run(["restore", backup, "--force"]).status == 0)
            #expect(try box.run(["set", "user", "k", "\"live\""]).status == 0)
        }
        let read = readers.finish()
        #expect(read.status == 0, "\(read)")
        #expect(Set(read.stdout.split(separator: "\n")).isSubset(of: ["restored", "live"]), "\(read.stdout)")
    }
}
