import Foundation
import PrefsCore
import PrefsTestSupport
import Testing

/// The `sqlite3` command-line shell, which builds the hostile backups.
let sqliteShell = ["/usr/bin/sqlite3", "/usr/local/bin/sqlite3"].first { FileManager.default.isExecutableFile(atPath: $0) }

/// Runs `sql` on the database `path` with the `sqlite3` shell; records an issue when it fails.
func sqlite(_ path: String, _ sql: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let result = try Sandbox.exec(sqliteShell ?? "/usr/bin/sqlite3", ["-bail", path, sql], stdin: nil, environment: [:])
    #expect(result.status == 0 && result.stderr.isEmpty, "sqlite3 \(sql): \(result)", sourceLocation: sourceLocation)
}

/// `prefs restore` reads a backup as data: a backup someone else wrote (or edited) cannot
/// plant SQL objects, hide later writes from the log, carry invalid rows, or bring a refresh
/// source or sync remote that would receive this user's tokens and writes.
@Suite(
    "restore of hostile backups", .enabled(if: sqliteShell != nil, "needs the sqlite3 shell (apt install sqlite3)"),
    .timeLimit(.minutes(5)), .ownThreads)
struct RestoreHostileBackupTests {
    /// A store with `user k = 1`, its backup at ROOT/b.db, then `user k = 2` in the store.
    func storeAndBackup() throws -> (Sandbox, String) {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["set", "user", "k", "1"])
        let backup = box.root + "/b.db"
        try box.runOK(["backup", backup])
        try box.runOK(["set", "user", "k", "2"])
        return (box, backup)
    }

    func objects(_ path: String) throws -> Set<String> {
        try Set(DatabaseQueue(path: path).read { try String.fetchAll($0, sql: "SELECT type || ' ' || name FROM sqlite_master") })
    }

    @Test func plantedTriggersViewsAndTablesAreNotTakenOver() throws {
        let (box, backup) = try storeAndBackup()
        let before = try objects(box.store)
        try sqlite(
            backup,
            """
            CREATE TRIGGER evil AFTER UPDATE ON kv_user BEGIN UPDATE kv_user SET value = '"pwned"' WHERE key = new.key; END;
            CREATE TRIGGER kv_user_log_insert AFTER INSERT ON kv_user BEGIN UPDATE kv_user SET value = '"pwned"' WHERE key = new.key; END;
            CREATE VIEW peek AS SELECT * FROM kv_user;
            CREATE TABLE extra (x);
            CREATE INDEX kv_user_by_value ON kv_user (value);
            """)
        let restored = try box.runOK(["restore", backup, "--force"])
        for line in [
            "prefs: not restoring trigger evil (prefs did not make it)\n",
            "prefs: not restoring view peek (prefs did not make it)\n",
            "prefs: not restoring table extra (prefs did not make it)\n",
            "prefs: not restoring index kv_user_by_value (prefs did not make it)\n",
            "prefs: not restoring trigger kv_user_log_insert (prefs did not make it)\n",
        ] {
            #expect(restored.stderr.contains(line), "\(restored)")
        }
        #expect(
            restored.stderr.hasPrefix("prefs: restoring 4 domain(s), 1 key(s) and 1 change-log record(s) from \(backup)\n"), "\(restored)")
        #expect(try objects(box.store) == before, "the store has prefs' own objects, nothing else")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: box.root + "/store").filter { $0.hasPrefix(".") }
        #expect(leftovers.isEmpty, "the temporary store is gone: \(leftovers)")
        #expect(try box.runOK(["get", "user", "k"]).stdout == "1\n")
        try box.runOK(["set", "user", "k", "3"])
        try box.runOK(["set", "user", "new", "4"])
        #expect(try box.runOK(["get", "user", "k"]).stdout == "3\n")
        #expect(try box.runOK(["get", "user", "new"]).stdout == "4\n")
        let log = try box.runOK(["log", "user"]).stdout
        #expect(log.contains("\tset\tuser\tk\t1\t3\t") && log.contains("\tset\tuser\tnew\t-\t4\t"), "\(log)")
        let doctor = try box.runOK(["doctor"])
        #expect(doctor.status == 0 && doctor.stdout.contains("ok\tobjects\t"), "\(doctor)")
    }

    /// A backup of schema 4 holds the change log's triggers in its schema (schema 5 has none:
    /// the writing connection makes them): they are its layout, not reported, not taken over,
    /// and every later write is logged once.
    @Test func aBackupWithLogTriggersInItsSchemaLogsEveryLaterWriteOnce() throws {
        let (box, _) = try storeAndBackup()
        let backup = box.root + "/v4.db"
        try makeFixtureStore("schema-4", at: backup)
        try sqlite(backup, "INSERT INTO kv_user VALUES ('k', '1', 1, 1, NULL);")
        let restored = try box.runOK(["restore", backup, "--force"])
        #expect(!restored.stderr.contains("not restoring"), "\(restored)")
        #expect(try objects(box.store).filter { $0.hasPrefix("trigger ") }.isEmpty, "no trigger in the restored store's schema")
        let (watch, _) = try Running.watch(["--store", box.store, "watch", "user"], box: box)
        try box.runOK(["set", "user", "k", "5"])
        try box.runOK(["set", "user", "fresh", "6"])
        try box.runOK(["rm", "user", "fresh"])
        let log = try box.runOK(["log", "user"]).stdout
        for record in ["\tset\tuser\tk\t1\t5\t", "\tset\tuser\tfresh\t-\t6\t", "\trm\tuser\tfresh\t6\t-\t"] {
            #expect(log.components(separatedBy: record).count == 2, "logged once: \(record) in \(log)")
        }
        #expect(watch.waitForLines(3, timeout: 10))
        let seen = watch.finish(signal: SIGTERM)
        #expect(seen.stdout == "set\tuser\tk\t5\nset\tuser\tfresh\t6\nrm\tuser\tfresh\t-\n", "\(seen)")
    }

    @Test func rowsPrefsDoesNotWriteAreRefused() throws {
        for (edit, message) in [
            (
                """
                CREATE TABLE t AS SELECT * FROM kv_user; DROP TABLE kv_user;
                CREATE TABLE kv_user (key TEXT, value TEXT, version INTEGER, updated_at INTEGER, expires_at INTEGER);
                INSERT INTO kv_user SELECT * FROM t; INSERT INTO kv_user SELECT * FROM t; DROP TABLE t;
                """, "table kv_user is not the table prefs makes"
            ),
            ("UPDATE kv_user SET value = 'not json'", "user \"k\": the value is not JSON"),
            ("UPDATE kv_user SET version = 'x'", "user \"k\": the version \"x\" is not an integer"),
            ("UPDATE kv_user SET expires_at = 1.5", "user \"k\": expires_at is not an integer"),
            ("INSERT INTO domains VALUES ('Bad Name', 0)", "domain name \"Bad Name\" is not valid"),
            ("INSERT INTO domains VALUES ('ghost', 0); DROP TABLE kv__custom", "domain ghost has no table kv__custom"),
        ] {
            let (box, backup) = try storeAndBackup()
            try sqlite(backup, edit)
            let before = try box.storeSnapshot()
            expectFailure(
                try box.runFailing(["restore", backup, "--force"], status: 3), 3, contains: "\(backup) cannot be restored: \(message)")
            #expect(try box.storeSnapshot() == before, "\(edit): the store is unchanged")
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: box.root + "/store").filter { $0.hasPrefix(".") }
            #expect(leftovers.isEmpty, "\(edit): \(leftovers)")
        }
    }

    @Test func valuesAreRestoredCompact() throws {
        let (box, backup) = try storeAndBackup()
        try sqlite(backup, #"UPDATE kv_user SET value = '[1, {"a" : 2}]'"#)
        try box.runOK(["restore", backup, "--force"])
        #expect(try box.runOK(["get", "user", "k"]).stdout == #"[1,{"a":2}]"# + "\n")
        let doctor = try box.runOK(["doctor"])
        #expect(doctor.status == 0 && doctor.stdout.contains("ok\tvalues\t1 value(s), each compact JSON"), "\(doctor)")
    }

    @Test func aChangeLogThatFailsTheChecksIsLeftBehind() throws {
        let (box, backup) = try storeAndBackup()
        try sqlite(backup, "UPDATE changelog SET op = 'evil', new = 'not json'")
        let restored = try box.runOK(["restore", backup, "--force"])
        #expect(restored.stderr.contains("prefs: not restoring the change log (record 1: unknown operation \"evil\")\n"), "\(restored)")
        #expect(restored.stderr.contains("and 0 change-log record(s)"), "\(restored)")
        let log = try box.runOK(["log"]).stdout
        #expect(!log.contains("evil"), "\(log)")
        #expect(try box.runOK(["get", "user", "k"]).stdout == "1\n")
    }

    @Test func refreshSourcesAndTheSyncRemoteComeOnlyWithWithSources() throws {
        let (box, backup) = try storeAndBackup()
        try sqlite(
            backup,
            """
            INSERT INTO refresh_sources (domain, source, headers) VALUES ('dynamic', 'https://evil.example/flags', '{"X-Trace":"1"}');
            INSERT INTO sync_config (id, url, domains, last_remote_seq) VALUES (1, 'postgresql://evil.example/prefs', NULL, 0);
            INSERT INTO sync_pending (op_id, domain, key, value, expires_at, hlc, node, actor) VALUES ('op', 'default', 'a', '1', NULL, 1, 'n', 'x');
            """)
        func sources() throws -> [String] {
            try DatabaseQueue(path: box.store).read { db in
                try String.fetchAll(db, sql: "SELECT source FROM refresh_sources") + String.fetchAll(db, sql: "SELECT url FROM sync_config")
                    + String.fetchAll(db, sql: "SELECT op_id FROM sync_pending")
            }
        }
        let plain = try box.runOK(["restore", backup, "--force"])
        #expect(
            plain.stderr.contains(
                #"prefs: not restoring the refresh source of domain "dynamic", "https://evil.example/flags" (--with-sources restores it)"#
                    + "\n"), "\(plain)")
        #expect(
            plain.stderr.contains(
                #"prefs: not restoring the sync remote "postgresql://evil.example/prefs" with 1 pending operation(s) (--with-sources restores it)"#
                    + "\n"), "\(plain)")
        #expect(try sources() == [])

        let with = try box.runOK(["restore", backup, "--force", "--with-sources"])
        #expect(
            with.stderr.contains(#"prefs: restoring the refresh source of domain "dynamic", "https://evil.example/flags""# + "\n"),
            "\(with)")
        #expect(try sources() == ["https://evil.example/flags", "postgresql://evil.example/prefs", "op"])
    }

    @Test func whatIsNotARegularFileIsRefusedAtOnce() throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["set", "user", "k", "1"])
        let fifo = box.root + "/fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        let timeout = "/usr/bin/timeout"
        for (file, kind) in [(fifo, "a FIFO"), (box.root, "a directory"), ("/dev/stdin", "")] {
            let result = try Sandbox.exec(
                timeout, ["-k", "2", "10", Sandbox.binary, "--store", box.store, "restore", file, "--force"], stdin: nil,
                environment: box.environment())
            expectFailure(result, 3, contains: "\(file) is not a regular file (\(kind)")
        }
        #expect(try box.runOK(["get", "user", "k"]).stdout == "1\n")
    }

    @Test func nothingIsWrittenNextToTheBackup() throws {
        let (box, backup) = try storeAndBackup()
        try sqlite(backup, "PRAGMA journal_mode = WAL;")
        try FileManager.default.setAttributes([.posixPermissions: 0o400], ofItemAtPath: backup)
        try box.runOK(["restore", backup, "--force"])
        #expect(try box.runOK(["get", "user", "k"]).stdout == "1\n")
        let beside = try FileManager.default.contentsOfDirectory(atPath: box.root).filter { $0.hasPrefix("b.db") }
        #expect(beside == ["b.db"])
    }

    @Test func doctorReportsATamperedStore() throws {
        for (edit, finding) in [
            (
                "CREATE TRIGGER evil AFTER INSERT ON kv_user BEGIN UPDATE kv_user SET value = '0' WHERE key = new.key; END;",
                "error\tobjects\ttrigger evil was not made by prefs"
            ),
            (
                // An old tool's change-log trigger in the store's schema (schema 4 and older had them).
                """
                CREATE TRIGGER kv_user_log_insert AFTER INSERT ON kv_user BEGIN INSERT INTO changelog (at, domain, key, op, old, new, actor) \
                SELECT new.updated_at, 'user', new.key, op, NULL, new.value, actor FROM log_context; END;
                """,
                "error\tobjects\ttrigger kv_user_log_insert was not made by prefs (a change-log trigger in the store, as schema 4 and older had"
            ),
            ("DROP INDEX kv_user_expiry", "error\tobjects\tindex kv_user_expiry is missing"),
            ("CREATE VIEW peek AS SELECT 1", "error\tobjects\tview peek was not made by prefs"),
            ("UPDATE kv_user SET value = 'not json'", "error\tvalues\t1 value(s) not compact JSON: user \"k\""),
            ("UPDATE kv_user SET value = '[1, 2]'", "error\tvalues\t1 value(s) not compact JSON: user \"k\""),
            (
                "INSERT INTO changelog (seq, at, domain, key, op, actor) VALUES (9223372036854775807, 0, 'user', 'k', 'set', 'x')",
                "error\tlog\tthe change log's last record number is 9223372036854775807"
            ),
        ] {
            let box = try Sandbox(inProcess: true)
            try box.runOK(["set", "user", "k", "1"])
            let healthy = try box.runOK(["doctor"])
            #expect(healthy.status == 0 && !healthy.stdout.contains("error"), "\(healthy)")
            try sqlite(box.store, edit)
            let doctor = try box.runFailing(["doctor"], status: 3)
            #expect(doctor.status == 3, "\(edit): \(doctor)")
            #expect(doctor.stdout.contains(finding), "\(edit): \(doctor)")
            #expect(doctor.stderr == "prefs: the store is damaged; see the findings above\n", "\(edit): \(doctor)")
        }
    }

    @Test func aChangeLogAtTheLargestNumberRefusesWrites() throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["set", "user", "k", "1"])
        try sqlite(
            box.store, "INSERT INTO changelog (seq, at, domain, key, op, actor) VALUES (9223372036854775807, 0, 'user', 'k', 'set', 'x')")
        for command in [["set", "user", "k", "2"], ["set", "user", "other", "3"], ["rm", "user", "k"]] {
            expectFailure(try box.runFailing(command, status: 3), 3, contains: "the change log's last record number is 9223372036854775807")
        }
        #expect(try box.runOK(["get", "user", "k"]).stdout == "1\n")
        expectFailure(try box.runFailing(["get", "user", "other"], status: 1), 1)
    }

    /// SIGTERM, SIGHUP or SIGINT in the middle of `backup` removes its hidden copy and journal.
    @Test(arguments: [SIGTERM, SIGHUP, SIGINT])
    func anInterruptedBackupLeavesNothingBehind(signal: Int32) throws {
        let box = try Sandbox(inProcess: true)
        let big = String(repeating: "x", count: 4000)
        let document = "{\"user\":{" + (0..<15_000).map { "\"k\($0)\":\"\(big)\"" }.joined(separator: ",") + "}}"
        let file = box.root + "/big.json"
        try document.write(toFile: file, atomically: true, encoding: .utf8)
        try box.runOK(["import", file])
        let directory = box.root + "/out"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let backup = box.process(["backup", directory + "/b.db"])
        backup.standardError = FileHandle.nullDevice
        try backup.run()
        var seen = false
        let deadline = Date().addingTimeInterval(20)
        while !seen && backup.isRunning && Date() < deadline {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
            // VACUUM INTO fills the hidden copy through its -journal.
            seen = names.contains { $0.hasPrefix(".b.db.") && $0.hasSuffix("-journal") }
            if !seen { usleep(500) }
        }
        #expect(seen, "the backup was caught writing its hidden copy")
        kill(backup.processIdentifier, signal)
        backup.waitUntilExit()
        #expect(
            backup.terminationReason == .uncaughtSignal && backup.terminationStatus == signal,
            "\(backup.terminationReason == .exit ? "exit" : "signal") \(backup.terminationStatus)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == [])
    }

    /// Stores made by older releases (other SQL text for the same objects) are healthy once migrated.
    @Test(arguments: ["schema-1", "schema-2", "schema-3", "schema-4"])
    func doctorAcceptsAStoreMigratedFromAnOlderSchema(fixture: String) throws {
        let box = try Sandbox(inProcess: true)
        try makeFixtureStore(fixture, at: box.store)
        try box.runOK(["set", "legacy", "n", "1"])
        let doctor = try box.runOK(["doctor"])
        #expect(doctor.status == 0 && doctor.stdout.contains("ok\tobjects\t") && !doctor.stdout.contains("error"), "\(doctor)")
    }
}
