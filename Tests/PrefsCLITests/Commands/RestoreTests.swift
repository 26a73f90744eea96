import Foundation
import PrefsCore
import Testing

/// `prefs restore`: a backup replaces the store's content atomically, online.
@Suite("restore", .timeLimit(.minutes(5)), .ownThreads)
struct RestoreTests {
    @Test func aBackupReplacesTheStoreOnlyWithForce() throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["set", "user", "k", "1"])
        let backup = box.root + "/b.db"
        try box.runOK(["backup", backup])
        try box.runOK(["set", "user", "k", "2"])
        try box.runOK(["set", "user", "later", "x"])
        expectFailure(try box.runFailing(["restore", backup], status: 4), 4, contains: "holds keys; --force replaces them")
        #expect(try box.runOK(["get", "user", "k"]).stdout == "2\n", "nothing changed")
        try box.runOK(["restore", backup, "--force"])
        #expect(try box.runOK(["get", "user", "k"]).stdout == "1\n")
        expectFailure(try box.runFailing(["get", "user", "later"], status: 1), 1)
        let state = try DatabaseQueue(path: box.store).read { db in
            (try String.fetchOne(db, sql: "PRAGMA journal_mode"), try String.fetchAll(db, sql: "PRAGMA integrity_check"))
        }
        #expect(state.0 == "wal" && state.1 == ["ok"])
        // Into a store that does not exist yet: no --force needed.
        let fresh = box.root + "/fresh/new.db"
        try box.runOK(["--store", fresh, "restore", backup], store: false)
        #expect(try box.runOK(["--store", fresh, "get", "user", "k"], store: false).stdout == "1\n")
    }

    @Test func whatIsNotAnIntactBackupIsRefused() throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["set", "user", "k", "1"])
        let junk = box.root + "/junk.db"
        #expect(FileManager.default.createFile(atPath: junk, contents: Data("not sqlite".utf8)))
        expectFailure(try box.runFailing(["restore", junk, "--force"], status: 3), 3, contains: "is not an intact prefs store")
        let other = box.root + "/other.db"
        try DatabaseQueue(path: other).write { try $0.execute(sql: "CREATE TABLE t (x)") }
        expectFailure(try box.runFailing(["restore", other, "--force"], status: 3), 3, contains: "is not a prefs store backup")
        expectFailure(try box.runFailing(["restore", box.root + "/missing.db", "--force"], status: 3), 3, contains: "cannot read backup")
        expectFailure(try box.runFailing(["restore", box.store, "--force"], status: 4), 4, contains: "is the store itself")
        #expect(try box.runOK(["get", "user", "k"]).stdout == "1\n")
    }

    /// A backup of an older schema is restored into the current layout; a custom domain's own
    /// table, index and triggers of schema 3 and before (and the change-log triggers of schema 4
    /// and before) are its layout, not objects to report.
    @Test(arguments: ["schema-1", "schema-2", "schema-3", "schema-4"])
    func anOlderBackupIsMigrated(_ fixture: String) throws {
        let box = try Sandbox(inProcess: true)
        let backup = box.root + "/old/b.db"
        try makeFixtureStore(fixture, at: backup)
        let restored = try box.runOK(["restore", backup])
        #expect(!restored.stderr.contains("not restoring"), "\(restored)")
        #expect(try box.runOK(["get", "legacy", "count"]).stdout == "41\n")
        try box.runOK(["set", "legacy", "n", "1"])
        let version = try DatabaseQueue(path: box.store).read { try Int.fetchOne($0, sql: "PRAGMA user_version") }
        #expect(version == 5)
        let doctor = try box.runOK(["doctor"])
        #expect(doctor.stdout.contains("ok\tobjects\t") && !doctor.stdout.contains("error"), "\(doctor)")
    }

    /// Readers during restores see the old value or the restored one, never an error.
    /// A log keeping 1,024 records or more holds up to 1/64 more between batch prunes, which
    /// `prefs log` does not show: a restore takes the records the backup's `prefs log` showed,
    /// and says so, not the ones waiting to be pruned.
    @Test func aRestoreTakesTheLogRecordsTheBackupShowed() throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["log", "--retain", "1024"])
        let keys = (0..<1024).map { "\"k\($0)\": \($0)" }.joined(separator: ", ")
        try box.runOK(["import", "-"], stdin: "{\"user\": {\(keys)}}")
        for i in 1...10 { try box.runOK(["set", "user", "x", "\(i)"]) }
        #expect(try box.runOK(["log"]).stdout.split(separator: "\n").count == 1024)
        let backup = box.root + "/b.db"
        try box.runOK(["backup", backup])
        let fresh = box.root + "/fresh/new.db"
        let restored = try box.runOK(["--store", fresh, "restore", backup], store: false)
        #expect(restored.stderr.hasPrefix("prefs: restoring 4 domain(s), 1025 key(s) and 1024 change-log record(s) from "), "\(restored)")
        let first = try DatabaseQueue(path: fresh).read { try Int64.fetchOne($0, sql: "SELECT min(seq) FROM changelog") }
        #expect(first == 11, "the oldest record restored is the oldest the backup's prefs log showed")
    }

    @Test func readersDuringRestoresNeverSeeAnError() throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["set", "user", "k", "\"restored\""])
        let backup = box.root + "/b.db"
        try box.runOK(["backup", backup])
        try box.runOK(["set", "user", "k", "\"live\""])
        let script = "i=0; while [ $i -lt 60 ]; do \"$0\" --store \"$1\" get user k || exit 1; i=$((i+1)); done"
        let readers = try Running(["-c", script, Sandbox.binary, box.store], environment: box.environment(), executable: "/bin/sh")
        for _ in 0..<8 {
            try box.runOK(["restore", backup, "--force"])
            try box.runOK(["set", "user", "k", "\"live\""])
        }
        let read = readers.finish()
        #expect(read.status == 0, "\(read)")
        #expect(Set(read.stdout.split(separator: "\n")).isSubset(of: ["restored", "live"]), "\(read.stdout)")
    }
}
