import Foundation
import PrefsCore
import Testing

/// `prefs get` answers plain lookups without the argument parser (QuickGet); every answer must
/// be exactly what the full command prints. Each case runs twice, the second time with
/// `PREFS_QUICK_GET=0` (the full path only), and the two results must be identical.
@Suite("get start-up path")
struct QuickGetTests {
    /// Runs `prefs ARGS` both ways and returns the (identical) result.
    func both(_ box: Sandbox, _ arguments: [String], environment: [String: String] = [:], store: Bool = true) throws -> RunResult {
        let quick = try box.run(arguments, store: store, environment: environment)
        var full = environment
        full["PREFS_QUICK_GET"] = "0"
        let slow = try box.run(arguments, store: store, environment: full)
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
            let set = try box.run(["set", "user", value.key] + value.input)
            #expect(set.status == 0, "\(set)")
        }
        for value in values {
            #expect(try both(box, ["get", "user", value.key]).stdout == value.raw + "\n")
            #expect(try both(box, ["get", "user", value.key, "--json"]).stdout == value.json + "\n")
        }
        let large = String(repeating: "x", count: 200_000)
        #expect(try box.run(["set", "user", "large", "--string", "-"], stdin: large).status == 0)
        #expect(try both(box, ["get", "user", "large"]).stdout == large + "\n")
    }

    @Test func argumentShapesAndEnvironment() throws {
        let box = try Sandbox()
        #expect(try box.run(["set", "ci-cache", "state", "warm"]).status == 0)
        #expect(try box.run(["set", "user", "theme", "dark"]).status == 0)
        #expect(try box.run(["set", "memory", "token", "t1"]).status == 0)
        // Global option before, after, and in the --store=PATH form.
        #expect(try both(box, ["get", "ci-cache", "state"]).stdout == "warm\n")
        #expect(try both(box, ["get", "user", "theme", "--store", box.store], store: false).stdout == "dark\n")
        #expect(try both(box, ["--store=" + box.store, "get", "user", "theme"], store: false).stdout == "dark\n")
        // The store from PREFS_STORE, and the default location under XDG_DATA_HOME.
        #expect(try both(box, ["get", "user", "theme"], environment: ["PREFS_STORE": box.store], store: false).stdout == "dark\n")
        let xdgStore = box.root + "/data/prefs/prefs.db"
        #expect(try box.run(["set", "user", "where", "xdg"], store: false).status == 0)
        #expect(FileManager.default.fileExists(atPath: xdgStore))
        #expect(try both(box, ["get", "user", "where"], store: false).stdout == "xdg\n")
        // Shapes the start-up path leaves to the full command.
        #expect(try both(box, ["get", "memory", "token"]).stdout == "t1\n")
        #expect(try both(box, ["get", "user", "theme", "--show-origin"]).stdout == "stored\tdark\n")
        #expect(try both(box, ["get", "user", "missing", "--default", "d"]).stdout == "d\n")
        #expect(try both(box, ["--override", "user:theme=light", "get", "user", "theme"]).stdout == "light\n")
        #expect(try both(box, ["get", "user", "theme"], environment: ["PREFS_OVERRIDES": #"{"user":{"theme":"env"}}"#]).stdout == "env\n")
        #expect(try both(box, ["get", "user", "theme", "--json", "--json"]).stdout == "\"dark\"\n")
        #expect(try both(box, ["get", "user"]).status == 2)
        let two = try both(box, ["get", "user", "theme", "extra"])  // several keys: the full path answers
        #expect(two.status == 1 && two.stdout == "dark\n" && two.stderr == "prefs: user/extra not found\n")
        #expect(try both(box, ["get", "Bad", "theme"]).status == 2)
        #expect(try both(box, ["get", "user", "missing"]).status == 1)
        #expect(try both(box, ["get", "nodomain", "theme"]).status == 1)
        #expect(try both(box, ["get", "user", "theme"], store: false).status == 1)  // the default store holds no theme
    }

    @Test func expiredValuesAndDefaultsComeFromTheFullPath() throws {
        let box = try Sandbox()
        let schema = box.root + "/schema.json"
        try #"{"user":{"volume":{"type":"integer","default":7}}}"#.write(toFile: schema, atomically: true, encoding: .utf8)
        #expect(try box.run(["schema", "load", schema]).status == 0)
        #expect(try both(box, ["get", "user", "volume"]).stdout == "7\n")
        #expect(try box.run(["set", "user", "volume", "9"]).status == 0)
        #expect(try both(box, ["get", "user", "volume"]).stdout == "9\n")
        #expect(try box.run(["set", "user", "session", "s", "--ttl", "1s"]).status == 0)
        #expect(try both(box, ["get", "user", "session"]).stdout == "s\n")
        Thread.sleep(forTimeInterval: 1.1)
        let gone = try box.run(["get", "user", "session"])
        expectFailure(gone, 1, contains: "not found")
    }

    @Test func foreignAndNewerStoresAreRefusedAsBefore() throws {
        let box = try Sandbox()
        #expect(try box.run(["set", "user", "theme", "dark"]).status == 0)
        let newer = box.root + "/newer.db"
        try FileManager.default.copyItem(atPath: box.store, toPath: newer)
        try DatabaseQueue(path: newer).write { try $0.execute(sql: "PRAGMA user_version = 999") }
        let refused = try both(box, ["--store", newer, "get", "user", "theme"], store: false)
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
        expectFailure(try both(box, ["--store", foreign, "get", "user", "theme"], store: false), 3, contains: "not a prefs store")
    }
}
