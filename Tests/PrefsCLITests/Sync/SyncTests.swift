import Foundation
import PrefsCore
import PrefsTestSupport
import Testing

/// `prefs remote` and sync against a real PostgreSQL server (``TestPostgres``). The commands
/// run in process; what a sync does is run through the library (`Sandbox+Sync.swift`), and
/// the `prefs sync` binary only where its process is the subject (its printed report and
/// messages, exit codes, libpq's environment, `--watch` and signals). Each test has a database
/// of its own on the shared server, so they run in parallel, each on a thread of its own; the
/// tests that stop or freeze a server are ``SyncOutageTests``, on a server of their own.
/// Skipped where PostgreSQL is not installed.
@Suite(
    .tags(.postgres),
    .enabled(if: TestPostgres.isAvailable, "PostgreSQL is not installed (initdb, pg_ctl and psql; apt-get install postgresql)"),
    .timeLimit(.minutes(10)), .ownThreads)
struct SyncTests: SyncFixture {
    let server: TestPostgres
    let database: String
    let url: String

    init() throws {
        server = try TestPostgres.shared.get()
        (database, url) = try server.createDatabase()
    }

    // MARK: - hostile server (issue 16, finding 9)

    @Test func whatALocalWriteWouldRefuseIsSkippedAndCounted() throws {
        let a = try syncedStore()
        try a.runOK(["set", "default", "seed", "1"])
        try a.syncInProcess()  // creates the remote schema
        let hostile = """
            INSERT INTO prefs_ops (op_id, domain, key, value, hlc, node, actor) VALUES
            (gen_random_uuid(), 'default', 'spaced', E'{ "a" :\\n [1, 2.50] }', 1000, 'evil', 'peer'),
            (gen_random_uuid(), 'default', 'forged', '1', 1001, 'evil', E'mallory\\n99\\tset\\u001b[2J'),
            (gen_random_uuid(), 'default', 'huge', '"' || repeat('x', 17 * 1048576) || '"', 1002, 'evil', 'peer'),
            (gen_random_uuid(), 'default', 'broken', '{"a":', 1003, 'evil', 'peer'),
            (gen_random_uuid(), 'default', 'long-actor', '1', 1004, 'evil', repeat('a', 100000)),
            (gen_random_uuid(), 'Not A Domain', 'k', '1', 1005, 'evil', 'peer')
            """
        let c = try syncedStore()
        try c.syncInProcess()  // loads the snapshot (seed); the hostile operations come from the log
        try server.psql(hostile, database: database)
        // The same rows in the current state, which a new store loads instead of the log.
        try server.psql(
            """
            INSERT INTO prefs_state (domain, key, value, expires_at, hlc, node, seq, op_id, actor)
            SELECT domain, key, value, expires_at, hlc, node, seq, op_id, actor FROM prefs_ops WHERE node = 'evil'
            """, database: database)
        let fromLog = try c.syncInProcess()
        #expect(fromLog.skipped == 5, "\(fromLog)")
        #expect(try c.runOK(["list", "default"]).stdout == "seed\t1\nspaced\t{\"a\":[1,2.50]}\n")
        let b = try syncedStore()
        let pulled = try b.syncInProcess()
        #expect(pulled.skipped == 5 && pulled.snapshot, "\(pulled)")
        #expect(try b.runOK(["list", "default"]).stdout == "seed\t1\nspaced\t{\"a\":[1,2.50]}\n")
        let status = try b.syncStatus().stdout
        #expect(status.contains("skipped\t5 invalid operations\n"), "\(status)")
        #expect(try b.syncStatus(["--json"]).stdout.contains(#""skipped":5"#))
        let log = try b.runOK(["log"]).stdout
        #expect(log.split(separator: "\n").count == 2 && !log.contains("mallory"), "\(log)")
    }

    /// A hostile peer's keys and values (rows written straight into PostgreSQL) leave prefs as
    /// data: exact through get and list --json, and env export of the synced domain needs
    /// --name-prefix, whose output bash evaluates without running anything (issue 28).
    @Test func aHostilePeersTextLeavesPrefsAsData() throws {
        let a = try syncedStore()
        try a.runOK(["set", "default", "seed", "1"])
        try a.syncInProcess()  // creates the remote schema
        let markers = a.root + "/markers"
        try FileManager.default.createDirectory(atPath: markers, withIntermediateDirectories: true)
        let rows: [(String, String)] = [
            ("$(touch \(markers)/k1)", "`touch \(markers)/v1`"), (";touch \(markers)/k2", "$(touch \(markers)/v2)"),
            ("git_config_count", "1"), ("git_config_key_0", "core.fsmonitor"), ("git_config_value_0", "touch \(markers)/fsmonitor"),
            ("ps0", "$(touch \(markers)/ps0)"), ("a'b", "x'; touch \(markers)/v3; '"),
        ]
        var hlc = 5000
        let values = rows.map { key, value -> String in
            hlc += 1
            let json = "\"" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
            return "(gen_random_uuid(), 'default', $k$\(key)$k$, $v$\(json)$v$, \(hlc), 'evil', 'peer')"
        }
        try server.psql(
            "INSERT INTO prefs_ops (op_id, domain, key, value, hlc, node, actor) VALUES " + values.joined(separator: ", "),
            database: database)
        let pulled = try a.syncInProcess()
        #expect(pulled.pulled == 7, "\(pulled)")
        for (key, value) in rows {
            #expect(try a.runOK(["get", "default", key]).stdout == value + "\n", "\(key)")
        }
        let listed = try a.runOK(["list", "default", "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [String: Any]
        #expect(object?.count == rows.count + 1, "\(listed)")
        expectFailure(try a.runFailing(["export", "default", "--format", "env"], status: 6), 6, contains: "--name-prefix")
        let env = try a.runOK(["export", "default", "--format", "env", "--name-prefix", "PEER_"])
        #expect(env.status == 0, "\(env)")
        let repo = a.root + "/repo"
        let shell = try Sandbox.exec(
            "/bin/bash", ["-c", "eval \"$1\"; git init -q \"$2\" && cd \"$2\" && git status >/dev/null", "bash", env.stdout, repo],
            stdin: nil, environment: a.environment())
        #expect(shell.status == 0, "\(shell)")
        let ran = (try? FileManager.default.contentsOfDirectory(atPath: markers)) ?? []
        #expect(ran.isEmpty, "a peer's text ran: \(ran)")
    }

    /// Any role that owns `prefs_ops` can add a trigger whose `RAISE NOTICE`/`EXCEPTION`
    /// carries terminal escape sequences and forged lines: `sync` prints neither raw — notices
    /// are dropped, errors escaped as `sync --status` escapes stored text (issue 38).
    @Test func aPeersNoticesAndErrorsReachTheTerminalEscaped() throws {
        let a = try syncedStore()
        try a.runOK(["set", "default", "seed", "1"])
        _ = try sync(a)  // creates the remote schema
        let text = #"E'\x1b]0;pwned\x07\x1b[2J\npushed 1, pending 0\n'"#
        try server.psql(
            """
            CREATE FUNCTION peer_says() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                RAISE NOTICE '%', \(text);
                RAISE WARNING '%', \(text);
                IF NEW.key = 'boom' THEN RAISE EXCEPTION '%', \(text); END IF;
                RETURN NEW;
            END $$;
            CREATE TRIGGER peer_says BEFORE INSERT ON prefs_ops FOR EACH ROW EXECUTE FUNCTION peer_says();
            """, database: database)
        try a.runOK(["set", "default", "quiet", "2"])
        let noticed = try sync(a)  // the push fires the trigger: a NOTICE and a WARNING
        #expect(noticed.stdout.hasSuffix(", pushed 1, pending 0\n") && noticed.stderr.isEmpty, "\(noticed)")
        try a.runOK(["set", "default", "boom", "3"])
        let failed = try a.runFailing(["sync"], status: 7)
        #expect(failed.stderr.contains(#"\x1b]0;pwned\x07\x1b[2J; pushed 1, pending 0"#), "\(failed)")
        let status = try a.runOK(["sync", "--status"])
        #expect(status.stdout.contains(#"\x1b]0;pwned\x07"#), "\(status)")
        for result in [noticed, failed, status] {
            let output = result.stdout + result.stderr
            #expect(!output.utf8.contains(0x1B) && !output.utf8.contains(0x07), "\(result)")
            #expect(!output.split(separator: "\n").contains { $0.hasPrefix("pushed 1, pending 0") }, "\(result)")
        }
        #expect(try server.psql("SELECT count(*) FROM prefs_ops WHERE key = 'boom'", database: database) == "0\n")
    }

    // MARK: - remote set/show/unset, recording

    @Test func remoteSetShowUnset() throws {
        let box = try Sandbox(inProcess: true)
        expectFailure(try box.runFailing(["remote", "show"], status: 1), 1, contains: "no remote set")
        try box.runOK(["set", "default", "a", "1"])
        try box.runOK(["set", "switch", "b", "true"])
        try box.runOK(["set", "user", "theme", "dark"])
        try box.runOK(["set", "memory", "m", "1"])
        // Before a remote is set, writes record nothing.
        #expect(try pending(box).isEmpty)

        let set = try box.runOK(["remote", "set", url])
        #expect(set.status == 0 && set.stdout == "queued 2 operations for the first sync\n", "\(set)")
        let show = try box.runOK(["remote", "show"])
        #expect(show.stdout == url + "\n", "\(show)")
        #expect(try box.runOK(["remote", "show", "--json"]).stdout == #"{"url":"\#(url)","domains":null}"# + "\n")
        #expect(try pending(box).map { try $0["key"] as String } == ["a", "b"])

        let other = url.replacingOccurrences(of: "postgres://", with: "postgresql://")
        try box.runOK(["remote", "set", other, "--domains", "user,default"])
        #expect(try box.runOK(["remote", "show", "--json"]).stdout == #"{"url":"\#(other)","domains":["default","user"]}"# + "\n")
        #expect(try pending(box).map { try $0["key"] as String } == ["a", "theme"])
        expectFailure(try box.runFailing(["remote", "set", url, "--domains", "memory"], status: 2), 2, contains: "memory")
        expectFailure(try box.runFailing(["remote", "set", "http://example.com/x"], status: 2), 2, contains: "postgres://")
        expectFailure(try box.runFailing(["remote", "set", "postgres://u@h:99999/db"], status: 2), 2, contains: "port")
        expectFailure(
            try box.runFailing(["remote", "set", "host=h password=x dbname=d"], status: 2), 2, contains: "must not contain a password")
        expectFailure(
            try box.runFailing(["remote", "set", "postgres://u@h/d?password=x"], status: 2), 2, contains: "must not contain a password")
        expectFailure(try box.runFailing(["remote", "set", "host=h dbname"], status: 2), 2, contains: "keyword=value")

        let unset = try box.runOK(["remote", "unset"])
        #expect(unset.status == 0 && unset.stdout.isEmpty, "\(unset)")
        expectFailure(try box.runFailing(["remote", "show"], status: 1), 1, contains: "no remote set")
        #expect(try pending(box).isEmpty)
        try box.runOK(["set", "default", "after", "1"])
        #expect(try pending(box).isEmpty)
        #expect(try box.runOK(["get", "default", "a"]).stdout == "1\n")
        let noRemote = try box.syncFailure()
        #expect(noRemote.exitCode == 2 && noRemote.message.contains("no remote set"), "\(noRemote)")
        #expect(try box.syncStatus().stdout.hasPrefix("remote\tnone\n"))
    }

    @Test func everyWriteOfASyncedDomainRecordsAnOperationInItsTransaction() throws {
        let box = try syncedStore()
        try box.runOK(["set", "default", "a", "1"])
        try box.runOK(["set", "default", "a", "0.10"])
        try box.runOK(["set", "default", "ttl", "x", "--ttl", "1h"])
        try box.runOK(["rm", "default", "a"])
        try box.runOK(["incr", "custom", "n"])
        try box.runOK(["import", "-"], stdin: #"{"switch":{"f":true}}"#)
        try box.runOK(
            ["apply", "-"], stdin: #"[{"op":"set","domain":"dynamic","key":"d","value":[1]},{"op":"rm","domain":"dynamic","key":"d"}]"#)
        try box.runOK(["set", "user", "u", "1"])
        try box.runOK(["set", "memory", "m", "1"])
        let rows = try pending(box)
        #expect(
            try rows.map { try "\($0["domain"] as String)/\($0["key"] as String)=\(($0["value"] as String?) ?? "<tombstone>")" } == [
                "default/a=1", "default/a=0.10", "default/ttl=\"x\"", "default/a=<tombstone>", "custom/n=1", "switch/f=true",
                "dynamic/d=[1]", "dynamic/d=<tombstone>",
            ])
        let ids = try rows.map { try $0["op_id"] as String }
        #expect(Set(ids).count == ids.count)
        #expect(ids.allSatisfy { UUID(uuidString: $0) != nil && $0 == $0.lowercased() })
        let clocks = try rows.map { try $0["hlc"] as Int64 }
        #expect(zip(clocks, clocks.dropFirst()).allSatisfy { $0 < $1 }, "\(clocks)")
        let node = try DatabaseQueue(path: box.store).read { try String.fetchOne($0, sql: "SELECT value FROM meta WHERE key = 'store_id'") }
        #expect(try rows.allSatisfy { try $0["node"] as String == node })
        #expect(rows[2]["expires_at"] as Int64? != nil)
        let status = try box.syncStatus()
        #expect(status.stdout.contains("pending\t8\n"), "\(status)")
        #expect(status.stdout.contains("domains\tall except user\n"))
        #expect(status.stdout.contains("last-success\tnever\n"))
    }

    // MARK: - Convergence

    /// A bulk with more sets than the log keeps skips the records retention would prune,
    /// except while the store syncs: pending operations are made from those records.
    @Test func aBulkLargerThanTheLogRetentionIsSyncedWhole() throws {
        let box = try syncedStore()
        try box.runOK(["log", "--retain", "5"])
        let lines = (0..<50).map { "set default k\($0) \($0)" }.joined(separator: "\n") + "\n"
        try box.runOK(["batch"], stdin: lines)
        #expect(try pending(box).count == 50)
        try box.syncInProcess()
        let other = try syncedStore()
        try other.syncInProcess()
        #expect(try export(other) == export(box))
        #expect(try box.runOK(["get", "default", "k49"], environment: [:]).stdout == "49\n")
        #expect(try other.runOK(["get", "default", "k0"]).stdout == "0\n")
    }

    @Test func twoStoresConvergeAfterConcurrentEditsOfDifferentKeys() throws {
        let a = try syncedStore()
        let b = try syncedStore()
        try a.runOK(["set", "default", "from-a", "1"])
        try a.runOK(["set", "switch", "flag", "true"])
        try a.runOK(["set", "user", "private-a", "1"])  // user is not synced
        try b.runOK(["set", "default", "from-b", #"{"x":[1,2.50]}"#])
        try b.runOK(["set", "newdomain", "k", "v"])
        try b.runOK(["set", "default", "gone", "1"])
        try b.runOK(["rm", "default", "gone"])

        #expect(try a.syncInProcess().counts == SyncCounts(pulled: 0, applied: 0, pushed: 2, pending: 0))
        #expect(try b.syncInProcess().counts == SyncCounts(pulled: 2, applied: 2, pushed: 4, pending: 0))
        #expect(try a.syncInProcess().counts == SyncCounts(pulled: 4, applied: 3, pushed: 0, pending: 0))
        #expect(try b.runOK(["get", "default", "from-a"]).stdout == "1\n")
        #expect(try a.runOK(["get", "default", "from-b", "--json"]).stdout == #"{"x":[1,2.50]}"# + "\n")
        #expect(try a.runOK(["get", "newdomain", "k"]).stdout == "v\n")
        expectFailure(try b.runFailing(["get", "user", "private-a"], status: 1), 1)
        try a.runOK(["rm", "user", "private-a"])
        #expect(try export(a) == export(b))
        // Applied operations show in the log as sync, with the writer's actor.
        let log = try a.runOK(["log", "default", "from-b", "--json"])
        #expect(log.stdout.contains(#""op":"sync""#), "\(log)")
        let status = try a.syncStatus(["--json"])
        #expect(status.stdout.contains(#""pending":0"#) && status.stdout.contains(#""lastFailure":null"#), "\(status)")
        #expect(!status.stdout.contains(#""lastSuccessAt":null"#))
    }

    @Test func conflictingEditsOfOneKeyResolveToTheSameValueOnBothSides() throws {
        let a = try syncedStore()
        let b = try syncedStore()
        try a.runOK(["set", "default", "k", "from-a"])
        try b.runOK(["set", "default", "k", "from-b"])
        try b.runOK(["set", "default", "del", "b"])
        try a.runOK(["rm", "default", "del"])  // nothing to delete on a: no operation
        try a.runOK(["set", "default", "del", "a"])
        try b.runOK(["rm", "default", "del"])
        // The expected winner by the rule: the larger (hlc, node).
        func last(_ box: Sandbox, _ key: String) throws -> (Int64, String, String?) {
            let row = try #require(try pending(box).last { try $0["key"] as String == key })
            return (try row["hlc"], try row["node"], row["value"])
        }
        func winner(_ key: String) throws -> String? {
            let (x, y) = (try last(a, key), try last(b, key))
            return (x.0, x.1) > (y.0, y.1) ? x.2 : y.2
        }
        let expectedK = try winner("k")
        let expectedDel = try winner("del")
        // b first, then a, then b: the other order of the previous test.
        try b.syncInProcess()
        try a.syncInProcess()
        try b.syncInProcess()
        for box in [a, b] {
            let k = try box.runOK(["get", "default", "k", "--json"])
            #expect(k.stdout == (expectedK ?? "") + "\n", "\(k)")
            let del = try box.runFailing(["get", "default", "del", "--json"], status: 1)
            if let expectedDel {
                #expect(del.stdout == expectedDel + "\n", "\(del)")
            } else {
                #expect(del.status == 1, "\(del)")
            }
        }
        #expect(try export(a) == export(b))
        // The remote's current state agrees.
        let state = try server.psql("SELECT key || '=' || COALESCE(value, '<tombstone>') FROM prefs_state ORDER BY key", database: database)
        #expect(state == "del=\(expectedDel ?? "<tombstone>")\nk=\(expectedK ?? "")\n")
        // A later write anywhere wins everywhere.
        try a.runOK(["set", "default", "k", "later"])
        try a.syncInProcess()
        try b.syncInProcess()
        #expect(try b.runOK(["get", "default", "k"]).stdout == "later\n")
    }

    @Test func tenStoresWithAThousandOperationsEachConvergeToIdenticalExports() throws {
        let stores = try (0..<10).map { _ in try syncedStore() }
        for (i, box) in stores.enumerated() {
            var operations: [String] = []
            for j in 0..<1000 {
                let key = "k\((i * 37 + j) % 300)"
                if j % 50 == 49 {
                    operations.append(#"{"op":"rm","domain":"default","key":"k\#((i * 37 + j - 1) % 300)"}"#)
                } else {
                    operations.append(#"{"op":"set","domain":"default","key":"\#(key)","value":{"store":\#(i),"op":\#(j)}}"#)
                }
            }
            let applied = try box.runOK(["apply", "-"], stdin: "[" + operations.joined(separator: ",") + "]")
            #expect(applied.status == 0, "\(applied)")
            #expect(try pending(box).count == 1000)
        }
        for round in 0..<2 {
            for box in stores {
                let result = try box.syncInProcess()
                if round == 1 { #expect(result.pushed == 0 && result.pending == 0, "\(result)") }
            }
        }
        let first = try export(stores[0])
        #expect(first.count > 1000)
        for box in stores.dropFirst() { #expect(try export(box) == first) }
        #expect(try server.psql("SELECT count(*), count(DISTINCT op_id) FROM prefs_ops", database: database) == "10000|10000\n")
        let listed = try stores[0].runOK(["list", "default"]).stdout
        let state = try server.psql(
            "SELECT key || E'\\t' || value FROM prefs_state WHERE value IS NOT NULL ORDER BY key COLLATE \"C\"", database: database)
        #expect(listed == state)
    }

    @Test func syncOfNamedDomainsLeavesTheOthersPending() throws {
        let a = try syncedStore()
        let b = try syncedStore()
        try a.runOK(["set", "switch", "s", "1"])
        try a.runOK(["set", "default", "d", "1"])
        #expect(try a.syncInProcess(domains: ["switch"]).counts == SyncCounts(pulled: 0, applied: 0, pushed: 1, pending: 1))
        #expect(try b.syncInProcess(domains: ["default"]).counts == SyncCounts(pulled: 0, applied: 0, pushed: 0, pending: 0))
        expectFailure(try b.runFailing(["get", "switch", "s"], status: 1), 1)
        let notSynced = try a.syncFailure(domains: ["user"])
        #expect(notSynced.exitCode == 2 && notSynced.message.contains("not synced"), "\(notSynced)")
        #expect(try b.syncInProcess().counts == SyncCounts(pulled: 1, applied: 1, pushed: 0, pending: 0))
        let rest = try a.syncInProcess()
        #expect(rest.pushed == 1 && rest.pending == 0, "\(rest)")
        #expect(try b.syncInProcess().counts == SyncCounts(pulled: 1, applied: 1, pushed: 0, pending: 0))
        #expect(try export(a) == export(b))
    }

    /// A forged or broken operation with the largest timestamp must not crash later writes
    /// (the clock moves at most a week ahead of the wall clock). Known gap: a local write to
    /// that same key then gets a smaller timestamp and loses elsewhere (see README limits).
    @Test func anOperationFromTheFarFutureDoesNotBreakLaterWrites() throws {
        let a = try syncedStore()
        try a.syncInProcess()
        try server.psql(
            """
            INSERT INTO prefs_ops (op_id, domain, key, value, hlc, node, actor)
            VALUES ('\(UUID().uuidString.lowercased())', 'default', 'far', '"future"', 9223372036854775807, 'zzzz', 'elsewhere');
            INSERT INTO prefs_state (domain, key, value, hlc, node, seq, op_id, actor)
            SELECT domain, key, value, hlc, node, seq, op_id, actor FROM prefs_ops WHERE node = 'zzzz'
            """, database: database)
        // Stamped beyond the 7 days a clock may be ahead: skipped as invalid (it would win its
        // key against every later write), from the log and from the snapshot alike.
        #expect(try a.syncInProcess().counts == SyncCounts(pulled: 1, applied: 0, skipped: 1, pushed: 0, pending: 0))
        try a.runFailing(["get", "default", "far"], status: 1)
        let set = try a.runOK(["set", "default", "other", "1"])
        #expect(set.status == 0, "\(set)")
        #expect(try a.syncInProcess().pushed == 1)
        let b = try syncedStore()
        try b.syncInProcess()
        try b.runFailing(["get", "default", "far"], status: 1)
        #expect(try b.runOK(["get", "default", "other"]).stdout == "1\n")
        try b.runOK(["set", "default", "far", "mine"])
        try b.syncInProcess()
        try a.syncInProcess()
        #expect(try a.runOK(["get", "default", "far"]).stdout == "mine\n")
    }

    /// A store restored from a backup gets back, from the remote, its own writes made after
    /// the backup (its node's operations are applied under the same rule).
    @Test func aStoreRestoredFromABackupGetsItsOwnLaterWritesBack() throws {
        let a = try syncedStore()
        let b = try syncedStore()
        try a.runOK(["set", "default", "x", "1"])
        try a.syncInProcess()
        let backup = a.root + "/backup.db"
        try a.runOK(["backup", backup])
        try a.runOK(["set", "default", "x", "2"])
        try a.syncInProcess()
        try b.syncInProcess()
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: a.store + suffix) }
        try FileManager.default.removeItem(atPath: a.store)
        try FileManager.default.copyItem(atPath: backup, toPath: a.store)
        #expect(try a.runOK(["get", "default", "x"]).stdout == "1\n")
        try a.syncInProcess()
        #expect(try a.runOK(["get", "default", "x"]).stdout == "2\n")
        #expect(try export(a) == export(b))
    }

    /// Setting the same remote again keeps what the store knows of it: a key deleted
    /// everywhere stays deleted, and a pending delete is still pushed.
    @Test func settingTheSameRemoteAgainBringsNothingBack() throws {
        let a = try syncedStore()
        let b = try syncedStore()
        try b.runOK(["set", "default", "k", "v"])
        try b.runOK(["set", "default", "j", "w"])
        try b.syncInProcess()
        try a.syncInProcess()
        try a.runOK(["rm", "default", "k"])
        try a.syncInProcess()
        try b.syncInProcess()
        expectFailure(try b.runFailing(["get", "default", "k"], status: 1), 1)
        try a.runOK(["rm", "default", "j"])  // pending when the remote is set again
        let again = try a.runOK(["remote", "set", url, "--domains", "default,switch"])
        #expect(again.status == 0 && again.stdout == "queued 0 operations for the first sync\n", "\(again)")
        try a.syncInProcess()
        try b.syncInProcess()
        expectFailure(try a.runFailing(["get", "default", "k"], status: 1), 1)
        expectFailure(try b.runFailing(["get", "default", "j"], status: 1), 1)
        #expect(try export(a) == export(b))
    }

    /// Each store refreshes its server-fed domains from their source: `refresh` changes are
    /// not pushed (other writes to that domain are).
    @Test func refreshChangesAreNotPushed() throws {
        let a = try syncedStore()
        let source = a.root + "/dynamic.json"
        try #"{"endpoint":"https://a.example","retries":3}"#.write(toFile: source, atomically: true, encoding: .utf8)
        let refreshed = try a.runOK(["refresh", "dynamic", "--from", source])
        #expect(refreshed.status == 0, "\(refreshed)")
        #expect(try pending(a).isEmpty)
        try a.runOK(["set", "dynamic", "local", "1"])
        #expect(try pending(a).map { try $0["key"] as String } == ["local"])
        try a.syncInProcess()
        let b = try syncedStore()
        try b.syncInProcess()
        #expect(try b.runOK(["list", "dynamic"]).stdout == "local\t1\n")
    }

    @Test func theClockMovesPastTimestampsSeenFromTheRemote() throws {
        let a = try syncedStore()
        try a.syncInProcess()
        // Another node whose clock runs a day ahead wrote k.
        let ahead = (Int64(Date().timeIntervalSince1970 * 1000) + 86_400_000) << 16
        try server.psql(
            """
            INSERT INTO prefs_ops (op_id, domain, key, value, hlc, node, actor)
            VALUES ('\(UUID().uuidString.lowercased())', 'default', 'k', '"ahead"', \(ahead), 'ffffffff-node', 'elsewhere')
            """, database: database)
        #expect(try a.syncInProcess().counts == SyncCounts(pulled: 1, applied: 1, pushed: 0, pending: 0))
        #expect(try a.runOK(["get", "default", "k"]).stdout == "ahead\n")
        let log = try a.runOK(["log", "default", "k"])
        #expect(log.stdout.contains("\tsync\tdefault\tk\t-\t\"ahead\"\telsewhere\n"), "\(log)")
        // A write made after seeing it wins, although the wall clock is behind.
        try a.runOK(["set", "default", "k", "after"])
        #expect(try pending(a).last?["hlc"] as Int64? ?? 0 > ahead)
        try a.syncInProcess()
        #expect(try server.psql("SELECT value FROM prefs_state WHERE key = 'k'", database: database) == "\"after\"\n")
    }

    @Test func watchKeepsSyncingUntilTerminated() throws {
        let a = try syncedStore()
        let b = try syncedStore()
        let watcher = a.process(["sync", "--watch", "0.2", "--json"])
        let reports = a.root + "/watch.stdout"
        watcher.standardOutput = try Self.emptyFile(reports)
        watcher.standardError = FileHandle.nullDevice
        try watcher.run()
        defer { if watcher.isRunning { watcher.terminate() } }
        try a.runOK(["set", "default", "watched", "1"])
        var seen = ""
        for _ in 0..<200 where seen != "1\n" {
            try b.syncInProcess()
            seen = try b.runOK(["get", "default", "watched", "--default", "none"]).stdout
            if seen != "1\n" { usleep(100_000) }
        }
        #expect(seen == "1\n")
        // The watcher reports a sync after its push reached the server (and b saw it): wait
        // for the report before ending it, or a SIGTERM in between ends it with none printed.
        let deadline = Date().addingTimeInterval(20)
        while try !String(contentsOfFile: reports, encoding: .utf8).contains(#""pushed":1,"#) && Date() < deadline { usleep(20_000) }
        watcher.terminate()
        watcher.waitUntilExit()
        let printed = try String(contentsOfFile: reports, encoding: .utf8)
        #expect(watcher.terminationStatus == 0)
        #expect(printed.split(separator: "\n").allSatisfy { $0.hasPrefix(#"{"pulled":"#) }, "\(printed)")
        #expect(printed.contains(#""pushed":1,"#), "\(printed)")
    }

    // MARK: - Secrets

    @Test func passwordsComeFromTheEnvironmentOrPgpassAndAreNeverStoredOrPrinted() throws {
        let secret = "s3cr:et-\(UUID().uuidString.prefix(8))"
        try server.psql(
            """
            DO $$BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'secretuser') THEN CREATE ROLE secretuser LOGIN; END IF; END$$;
            ALTER ROLE secretuser PASSWORD '\(secret)';
            ALTER DATABASE \(database) OWNER TO secretuser;
            """, database: "postgres")
        let remote = "postgres://secretuser@127.0.0.1:\(server.port)/\(database)"
        let box = try Sandbox(inProcess: true)
        var outputs: [RunResult] = []
        func run(_ arguments: [String], environment: [String: String] = [:], status: Int32 = 0) throws -> RunResult {
            let result = try box.run(arguments, expecting: status, environment: environment)
            outputs.append(result)
            return result
        }
        let refused = try run(["remote", "set", "postgres://secretuser:\(secret)@127.0.0.1:\(server.port)/\(database)"], status: 2)
        expectFailure(refused, 2, contains: "must not contain a password")
        #expect(try run(["remote", "set", remote]).status == 0)
        #expect(try run(["set", "default", "k", "v"]).status == 0)

        let noPassword = try run(["sync"], status: 7)
        expectFailure(noPassword, 7, contains: "1 operation pending")
        #expect(noPassword.stderr.contains("password"), "\(noPassword)")
        expectFailure(try run(["sync"], environment: ["PGPASSWORD": "wrong"], status: 7), 7, contains: "password authentication failed")
        #expect(try run(["sync"], environment: ["PGPASSWORD": secret]).stdout == "pulled 0 (applied 0), pushed 1, pending 0\n")

        // ~/.pgpass: host:port:database:user:password with \: escapes and * wildcards.
        let home = box.root + "/home"
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        let escaped = secret.replacingOccurrences(of: ":", with: "\\:")
        let pgpass = """
            # comment
            otherhost:*:*:*:nope
            127.0.0.1:\(server.port):*:secretuser:\(escaped)
            """
        _ = FileManager.default.createFile(atPath: home + "/.pgpass", contents: Data(pgpass.utf8), attributes: [.posixPermissions: 0o600])
        #expect(try run(["set", "default", "k", "w"]).status == 0)
        #expect(try run(["sync"]).stdout == "pulled 0 (applied 0), pushed 1, pending 0\n")
        // A password file others can read is ignored by libpq, which warns.
        chmod(home + "/.pgpass", 0o644)
        #expect(try run(["set", "default", "k", "x"]).status == 0)
        let ignored = try run(["sync"], status: 7)
        // libpq's own warning line, then prefs's line.
        #expect(ignored.status == 7, "\(ignored)")
        #expect(ignored.stderr.hasPrefix("WARNING: password file ") && ignored.stderr.contains("has group or world access"), "\(ignored)")
        #expect(ignored.stderr.split(separator: "\n").last?.hasPrefix("prefs: sync: ") == true, "\(ignored)")
        #expect(ignored.stderr.hasSuffix("1 operation pending, local data kept\n"), "\(ignored)")
        chmod(home + "/.pgpass", 0o600)
        #expect(try run(["sync"]).status == 0)
        // An empty PGPASSWORD counts as unset (as in libpq): the password file answers.
        #expect(try run(["set", "default", "k", "y"]).status == 0)
        #expect(try run(["sync"], environment: ["PGPASSWORD": ""]).stdout == "pulled 0 (applied 0), pushed 1, pending 0\n")

        for arguments in [
            ["sync", "--status"], ["sync", "--status", "--json"], ["remote", "show", "--json"], ["log", "--json"], ["export"],
        ] {
            #expect(try run(arguments).status == 0)
        }
        for result in outputs {
            #expect(!result.stdout.contains(secret) && !result.stderr.contains(secret) && !result.stderr.contains(escaped))
        }
        for file in [box.store, box.store + "-wal"] where FileManager.default.fileExists(atPath: file) {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
            #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(file) holds the password")
        }
        let remoteRows = try server.psql(
            "SELECT count(*) FROM prefs_ops WHERE actor LIKE '%s3cr%' OR value LIKE '%s3cr%'", database: database)
        #expect(remoteRows == "0\n")
    }
}
