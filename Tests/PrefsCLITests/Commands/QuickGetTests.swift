import Foundation
import PrefsCore
import Testing

/// `prefs get` answers plain lookups without the argument parser (QuickGet); every answer must
/// be exactly what the full command prints. Each case runs twice, the second time with
/// `PREFS_QUICK_GET=0` (the full path only), and the two results must be identical. Cases
/// marked `quick` run the first time with `PREFS_REQUIRE_QUICK=1`, which makes a debug build
/// exit 97 when the start-up path did not answer, so they prove that path ran.
@Suite("get start-up path", .timeLimit(.minutes(5)), .ownThreads)
struct QuickGetTests {
    /// Runs `prefs ARGS` both ways, expecting exit `status`, and returns the (identical) result;
    /// `quick`: the start-up path must answer.
    func both(
        _ box: Sandbox, _ arguments: [String], environment: [String: String] = [:], store: Bool = true, status: Int32 = 0,
        quick required: Bool = false, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> RunResult {
        let quick = try box.run(
            arguments, expecting: status, store: store,
            environment: environment.merging(required ? ["PREFS_REQUIRE_QUICK": "1"] : [:]) { $1 },
            sourceLocation: sourceLocation)
        var full = environment
        full["PREFS_QUICK_GET"] = "0"
        let slow = try box.run(arguments, expecting: status, store: store, environment: full, sourceLocation: sourceLocation)
        #expect(quick.stdout == slow.stdout, "\(arguments): quick \(quick) vs full \(slow)")
        #expect(quick.stderr == slow.stderr, "\(arguments): quick \(quick) vs full \(slow)")
        #expect(quick.status == slow.status, "\(arguments): quick \(quick) vs full \(slow)")
        return quick
    }

    @Test func valuesPrintAsTheFullCommandPrintsThem() throws {
        let box = try Sandbox()
        let values: [(key: String, input: [String], raw: String, json: String)] = [
            ("plain", ["hello"], "hello", "\"hello\""),
            ("escapes", ["--string", "a\"b\\c\nd\te\u{1}"], "a\"b\\c\nd\te\u{1}", #""a\"b\\c\nd\te\u0001""#),
            ("unicode", ["héllo 🎉 \u{2028}"], "héllo 🎉 \u{2028}", "\"héllo 🎉 \u{2028}\""),
            ("empty", ["--string", ""], "", "\"\""),
            ("big-number", ["1e400"], "1e400", "1e400"),
            ("decimal", ["1.50"], "1.50", "1.50"),
            ("negative-zero", ["-0"], "-0", "-0"),
            ("true", ["true"], "true", "true"),
            ("null", ["null"], "null", "null"),
            (
                "object", [#"{ "b": [1, 2, {"c": null}], "a": "x" }"#], #"{"b":[1,2,{"c":null}],"a":"x"}"#,
                #"{"b":[1,2,{"c":null}],"a":"x"}"#
            ),
            ("dotted.key/with spaces", ["v"], "v", "\"v\""),
        ]
        for value in values {
            let set = try box.runOK(["set", "user", value.key] + value.input)
            #expect(set.status == 0, "\(set)")
        }
        for value in values {
            #expect(try both(box, ["get", "user", value.key], quick: true).stdout == value.raw + "\n")
            #expect(try both(box, ["get", "user", value.key, "--json"], quick: true).stdout == value.json + "\n")
        }
        let large = String(repeating: "x", count: 200_000)
        try box.runOK(["set", "user", "large", "--string", "-"], stdin: large)
        #expect(try both(box, ["get", "user", "large"], quick: true).stdout == large + "\n")
    }

    @Test func argumentShapesAndEnvironment() throws {
        let box = try Sandbox()
        try box.runOK(["set", "ci-cache", "state", "warm"])
        try box.runOK(["set", "user", "theme", "dark"])
        try box.runOK(["set", "memory", "token", "t1"])
        // Global option before, after, and in the --store=PATH form.
        #expect(try both(box, ["get", "ci-cache", "state"], quick: true).stdout == "warm\n")
        #expect(try both(box, ["get", "user", "theme", "--store", box.store], store: false, quick: true).stdout == "dark\n")
        #expect(try both(box, ["--store=" + box.store, "get", "user", "theme"], store: false, quick: true).stdout == "dark\n")
        // The store from PREFS_STORE, and the default location under XDG_DATA_HOME.
        #expect(
            try both(box, ["get", "user", "theme"], environment: ["PREFS_STORE": box.store], store: false, quick: true).stdout == "dark\n")
        let xdgStore = box.root + "/data/prefs/prefs.db"
        try box.runOK(["set", "user", "where", "xdg"], store: false)
        #expect(FileManager.default.fileExists(atPath: xdgStore))
        #expect(try both(box, ["get", "user", "where"], store: false, quick: true).stdout == "xdg\n")
        #expect(try both(box, ["get", "user", "theme", "--show-origin"], quick: true).stdout == "store\tdark\n")
        #expect(try both(box, ["get", "user", "theme", "--show-origin", "--json"], quick: true).stdout == "store\t\"dark\"\n")
        // Shapes the start-up path leaves to the full command.
        #expect(try both(box, ["get", "memory", "token"]).stdout == "t1\n")
        #expect(try both(box, ["get", "user", "missing", "--default", "d"]).stdout == "d\n")
        #expect(try both(box, ["--override", "user:theme=light", "get", "user", "theme"]).stdout == "light\n")
        #expect(try both(box, ["get", "user", "theme"], environment: ["PREFS_OVERRIDES": #"{"user":{"theme":"env"}}"#]).stdout == "env\n")
        #expect(try both(box, ["get", "user", "theme", "--json", "--json"]).stdout == "\"dark\"\n")
        #expect(try both(box, ["get", "user"], status: 2).status == 2)
        let two = try both(box, ["get", "user", "theme", "extra"], status: 1)  // several keys: the full path answers
        #expect(two.status == 1 && two.stdout == "dark\n" && two.stderr == "prefs: user/extra not found\n")
        #expect(try both(box, ["get", "Bad", "theme"], status: 2).status == 2)
        #expect(try both(box, ["get", "user", "missing"], status: 1).status == 1)
        #expect(try both(box, ["get", "nodomain", "theme"], status: 1).status == 1)
        #expect(try both(box, ["get", "user", "theme"], store: false, status: 1).status == 1)  // the default store holds no theme
    }

    @Test func expiredValuesAndDefaultsComeFromTheFullPath() throws {
        let box = try Sandbox()
        let schema = box.root + "/schema.json"
        try #"{"user":{"volume":{"type":"integer","default":7}}}"#.write(toFile: schema, atomically: true, encoding: .utf8)
        try box.runOK(["schema", "load", schema])
        #expect(try both(box, ["get", "user", "volume"]).stdout == "7\n")
        try box.runOK(["set", "user", "volume", "9"])
        #expect(try both(box, ["get", "user", "volume"], quick: true).stdout == "9\n")
        try box.runOK(["set", "user", "session", "s", "--ttl", "1s"])
        #expect(try both(box, ["get", "user", "session"]).stdout == "s\n")
        Thread.sleep(forTimeInterval: 1.1)
        let gone = try box.runFailing(["get", "user", "session"], status: 1)
        expectFailure(gone, 1, contains: "not found")
    }

    @Test func foreignAndNewerStoresAreRefusedAsBefore() throws {
        let box = try Sandbox()
        try box.runOK(["set", "user", "theme", "dark"])
        let newer = box.root + "/newer.db"
        try FileManager.default.copyItem(atPath: box.store, toPath: newer)
        try DatabaseQueue(path: newer).write { try $0.execute(sql: "PRAGMA user_version = 999") }
        let refused = try both(box, ["--store", newer, "get", "user", "theme"], store: false, status: 3)
        expectFailure(refused, 3, contains: "newer")
        // Another program's database with a table of the same shape: not a prefs store.
        let foreign = box.root + "/foreign.db"
        try DatabaseQueue(path: foreign).write { db in
            try db.execute(
                sql: """
                    CREATE TABLE kv_user (key TEXT PRIMARY KEY, value TEXT, version INTEGER, updated_at INTEGER, expires_at INTEGER);
                    INSERT INTO kv_user VALUES ('theme', '"dark"', 1, 1, NULL);
                    PRAGMA user_version = 2;
                    """)
        }
        expectFailure(
            try both(box, ["--store", foreign, "get", "user", "theme"], store: false, status: 3), 3, contains: "not a prefs store")
    }

    /// The start-up path opens the store hardened, as every connection does (`trusted_schema`
    /// off, DEFENSIVE): a planted view in place of a domain's table that reads a virtual table
    /// (here `pragma_database_list`; in a trusted schema any function or virtual table) is
    /// refused there too, and `get` answers as the full command does (issue 38).
    @Test func aPlantedViewIsRefusedOnTheStartUpPathToo() throws {
        let box = try Sandbox()
        try box.runOK(["set", "user", "theme", "dark"])
        try DatabaseQueue(path: box.store).write { db in
            try db.execute(
                sql: """
                    ALTER TABLE kv_user RENAME TO kv_user_kept;
                    CREATE VIEW kv_user (key, value, version, updated_at, expires_at) AS
                        SELECT 'theme', '"' || (SELECT file FROM pragma_database_list LIMIT 1) || '"', 1, 1, NULL;
                    """)
        }
        let answer = try both(box, ["get", "user", "theme"], status: 3)
        #expect(!answer.stdout.contains(box.store), "\(answer)")
        let required = try box.run(["get", "user", "theme"], expecting: 97, environment: ["PREFS_REQUIRE_QUICK": "1"])
        #expect(!required.stdout.contains(box.store), "\(required)")
    }

    /// A `get` writes nothing to the store's files: once a read has left `-wal` and `-shm`,
    /// the next one reads under a lock of `-shm` opened read-only instead of truncating and
    /// rebuilding it (SQLite's `readonly_shm`). With a writer holding the store open and
    /// its commit still in `-wal` (not checkpointed), `get` reads the commit through the
    /// writer's index, as the full command does.
    @Test func aGetLeavesTheStoreFilesAsTheyAre() throws {
        let box = try Sandbox()
        try box.runOK(["set", "user", "theme", "dark"])
        #expect(try box.runOK(["get", "user", "theme"]).stdout == "dark\n")
        func shm() throws -> (size: Int, modified: timespec, inode: UInt) {
            var info = stat()
            try #require(lstat(box.store + "-shm", &info) == 0, "no -shm after a get")
            return (Int(info.st_size), info.st_mtim, UInt(info.st_ino))
        }
        let before = try shm()
        Thread.sleep(forTimeInterval: 0.05)
        // The start-up path only (the full command, a read-write connection, checkpoints and
        // removes -wal and -shm when it closes the store last).
        for arguments in [["get", "user", "theme"], ["get", "user", "theme", "--json"]] {
            let quick = try box.runOK(arguments, environment: ["PREFS_REQUIRE_QUICK": "1"])
            #expect(quick.stdout.contains("dark"), "\(quick)")
        }
        let after = try shm()
        #expect(after.size == before.size && after.inode == before.inode, "\(before) -> \(after)")
        #expect(
            after.modified.tv_sec == before.modified.tv_sec && after.modified.tv_nsec == before.modified.tv_nsec,
            "-shm was written by a get: \(before.modified) -> \(after.modified)")

        // A writer that keeps the store open: its commit is in -wal, read through its -shm.
        let writer = try DatabaseQueue(path: box.store)
        try writer.write { try $0.execute(sql: "UPDATE kv_user SET value = '\"light\"' WHERE key = 'theme'") }
        var wal = stat()
        #expect(lstat(box.store + "-wal", &wal) == 0 && wal.st_size > 0, "the commit is not in -wal")
        #expect(try both(box, ["get", "user", "theme"], quick: true).stdout == "light\n")
        try writer.write { try $0.execute(sql: "UPDATE kv_user SET value = '\"blue\"' WHERE key = 'theme'") }
        #expect(try both(box, ["get", "user", "theme"], quick: true).stdout == "blue\n")
        try writer.close()
    }

    /// `PREFS_REQUIRE_QUICK=1` passes a lookup the start-up path answered and stops, with exit
    /// 97 and a debug line, every shape it leaves to the full command.
    @Test func theStartUpPathIsRequiredOnlyWhereItAnswers() throws {
        let box = try Sandbox()
        try box.runOK(["set", "user", "theme", "dark"])
        try box.runOK(["set", "memory", "token", "t1"])
        let require = ["PREFS_REQUIRE_QUICK": "1"]
        #expect(try box.runOK(["get", "user", "theme"], environment: require).stdout == "dark\n")
        #expect(try box.runOK(["get", "user", "theme", "--json"], environment: require).stdout == "\"dark\"\n")
        #expect(try box.runOK(["get", "user", "theme", "--show-origin"], environment: require).stdout == "store\tdark\n")
        for arguments in [
            ["get", "memory", "token"], ["get", "user", "missing"], ["get", "user", "theme", "--show-meta"],
            ["get", "user", "missing", "--default", "d"], ["--override", "user:theme=light", "get", "user", "theme"],
            ["get", "user", "theme", "extra"],
        ] {
            let declined = try box.runFailing(arguments, status: 97, environment: require)
            #expect(
                declined.stdout.isEmpty && declined.stderr == "prefs: debug: not answered by the start-up path (PREFS_REQUIRE_QUICK)\n",
                "\(declined)")
        }
        let declined = try box.runFailing(
            ["get", "user", "theme"], status: 97, environment: require.merging(["PREFS_QUICK_GET": "0"]) { $1 })
        #expect(declined.stderr.contains("PREFS_REQUIRE_QUICK"), "\(declined)")
    }
}
