import Foundation
import PrefsCore
import Testing

/// Newcomer papercuts (issue 20): negative option values, unknown commands, removals vs
/// `null` in the log, `describe` of a missing key, trailing `#` in batch.
@Suite("newcomer papercuts", .timeLimit(.minutes(5)))
struct PapercutTests {
    @Test func negativeNumbersWorkForEveryNumericOption() throws {
        let box = try Sandbox(inProcess: true)
        let down = try box.runOK(["incr", "user", "n", "--by", "-1"])
        #expect(down.status == 0 && down.stdout == "-1\n", "\(down)")
        let equals = try box.runOK(["incr", "user", "n", "--by=-2"])
        #expect(equals.stdout == "-3\n", "\(equals)")
        let fallback = try box.runOK(["get", "user", "missing", "--default", "-5"])
        #expect(fallback.status == 0 && fallback.stdout == "-5\n", "\(fallback)")
        expectFailure(try box.runFailing(["set", "user", "n", "1", "--if-version", "-5"], status: 5), 5)
        expectFailure(try box.runFailing(["set", "user", "n", "1", "--if-value", "-4"], status: 5), 5)
        let cas = try box.runOK(["set", "user", "n", "1", "--if-value", "-3"])
        #expect(cas.status == 0, "\(cas)")
        expectFailure(try box.runFailing(["log", "--limit", "-1"], status: 2), 2, contains: "--limit must be at least 1")
        expectFailure(try box.runFailing(["log", "--retain", "-1"], status: 2), 2, contains: "--retain must be at least 1")
        try box.runOK(["set", "user", "--", "-dash", "x"])
        let listed = try box.runOK(["list", "user", "--prefix", "-da", "--keys-only"])
        #expect(listed.stdout == "-dash\n", "\(listed)")
        let removed = try box.runOK(["rm", "user", "--prefix", "-da"])
        #expect(removed.status == 0, "\(removed)")
        expectFailure(try box.runFailing(["get", "user", "--", "-dash"], status: 1), 1)
    }

    @Test func anUnknownCommandIsNamedWithTheNearestOne() throws {
        let box = try Sandbox(inProcess: true)
        expectFailure(try box.runFailing(["gett", "user", "x"], status: 2), 2, contains: "unknown command 'gett'; did you mean 'get'?")
        expectFailure(
            try box.runFailing(["--actor", "me", "lsit"], status: 2), 2, contains: "unknown command 'lsit'; did you mean 'list'?")
        expectFailure(
            try box.runFailing(["flag", "evl", "x"], status: 2), 2, contains: "unknown command 'flag evl'; did you mean 'flag eval'?")
        let far = try box.runFailing(["frobnicate"], status: 2)
        expectFailure(far, 2, contains: "unknown command 'frobnicate' (see 'prefs --help')")
        expectFailure(try box.runFailing(["help", "nosuch"], status: 2), 2, contains: "unknown command 'nosuch'")
        let help = try box.runOK(["help", "get"])
        #expect(help.status == 0 && help.stdout.contains("USAGE: prefs get"), "\(help)")
        #expect(!FileManager.default.fileExists(atPath: box.store), "nothing was created")
    }

    @Test func theLogTellsARemovalFromANull() throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["set", "user", "n", "null"])
        try box.runOK(["rm", "user", "n"])
        let text = try box.runOK(["log", "user", "n"])
        let lines = text.stdout.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
        #expect(lines.count == 2 && lines[0][2] == "rm" && lines[0][5] == "null" && lines[0][6] == "-", "\(text)")
        #expect(lines.count == 2 && lines[1][2] == "set" && lines[1][5] == "-" && lines[1][6] == "null", "\(text)")
        let json = try box.runOK(["log", "user", "n", "--json"])
        let records = json.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(records.count == 2, "\(json)")
        #expect(records.first.map { $0.keys.contains("old") && !$0.keys.contains("new") } == true, "rm: old null, no new")
        #expect(records.last.map { !$0.keys.contains("old") && $0["new"] is NSNull } == true, "set: no old, new null")
    }

    @Test func batchKeepsATrailingHashInTheValue() throws {
        let box = try Sandbox(inProcess: true)
        let batch = try box.runOK(["batch"], stdin: "  # a comment line\nset user greeting hello world   # not a comment\n")
        #expect(batch.status == 0, "\(batch)")
        #expect(try box.runOK(["get", "user", "greeting"]).stdout == "hello world   # not a comment\n")
    }

    @Test func compoundDurationsWorkAndErrorsListTheForms() throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["set", "user", "k", "v", "--ttl", "1h30m"])
        let meta = try box.runOK(["get", "user", "k", "--show-meta"])
        let object = try JSONSerialization.jsonObject(with: Data(meta.stdout.utf8)) as? [String: Any]
        #expect(object?["expiresAt"] is String, "\(meta)")
        let bad = try box.runFailing(["set", "user", "k", "v", "--ttl", "5x"], status: 2)
        expectFailure(bad, 2, contains: "expected a duration: 250ms, 30s, 1.5s, 15m, 2h, 1h30m, 7d or plain seconds")
        let since = try box.runFailing(["log", "--since", "yesterday"], status: 2)
        expectFailure(since, 2, contains: "or an ISO 8601 time")
        try box.runOK(["log", "--since", "1d12h"])
    }

    @Test func theSchemaTypeSaysHowToReadAValue() throws {
        let box = try Sandbox(inProcess: true)
        let schema = #"{"user":{"beta":{"type":"boolean"},"zip":{"type":"string"},"n":{"type":"integer"}}}"#
        try box.runOK(["schema", "load", "-"], stdin: schema)
        try box.runOK(["set", "user", "beta", "yes"])
        #expect(try box.runOK(["get", "user", "beta", "--json"]).stdout == "true\n")
        try box.runOK(["set", "user", "zip", "02134"])
        try box.runOK(["set", "user", "zip", "12345"])
        #expect(try box.runOK(["get", "user", "zip", "--json"]).stdout == "\"12345\"\n")
        let wrong = try box.runFailing(["set", "user", "n", "many"], status: 6)
        expectFailure(wrong, 6, contains: "type: expected integer, got a string (--type or --string says how to read VALUE)")
        let forced = try box.runFailing(["set", "user", "beta", "yes", "--type", "string"], status: 6)
        expectFailure(forced, 6, contains: "expected boolean")
    }

    @Test func getTakesSeveralKeysOrAPrefix() throws {
        let box = try Sandbox(inProcess: true)
        for (key, value) in [("a.one", "1"), ("a.two", "two"), ("b", "true")] {
            try box.runOK(["set", "user", key, value])
        }
        let several = try box.runOK(["get", "user", "a.two", "b", "a.one"])
        #expect(several.status == 0 && several.stdout == "two\ntrue\n1\n", "\(several)")
        let json = try box.runOK(["get", "user", "a.one", "b", "--json"])
        #expect(json.stdout == "{\"a.one\":1,\"b\":true}\n", "\(json)")
        let missing = try box.runFailing(["get", "user", "a.one", "nope", "b"], status: 1)
        #expect(missing.status == 1 && missing.stdout == "1\ntrue\n" && missing.stderr == "prefs: user/nope not found\n", "\(missing)")
        let defaulted = try box.runOK(["get", "user", "a.one", "nope", "--default", "0"])
        #expect(defaulted.status == 0 && defaulted.stdout == "1\n0\n", "\(defaulted)")
        let prefixed = try box.runOK(["get", "user", "--prefix", "a."])
        #expect(prefixed.status == 0 && prefixed.stdout == "a.one\t1\na.two\ttwo\n", "\(prefixed)")
        let prefixedJSON = try box.runOK(["get", "user", "--prefix", "a.", "--json"])
        #expect(prefixedJSON.stdout == "{\"a.one\":1,\"a.two\":\"two\"}\n", "\(prefixedJSON)")
        expectFailure(try box.runFailing(["get", "user", "--prefix", "zz"], status: 1), 1, contains: "no key of user starts with \"zz\"")
        expectFailure(try box.runFailing(["get", "user", "b", "--prefix", "a"], status: 2), 2, contains: "give keys or --prefix, not both")
        expectFailure(try box.runFailing(["get", "user"], status: 2), 2, contains: "Missing expected argument")
    }

    @Test func exportAsShellAssignmentsAndDotenv() throws {
        let box = try Sandbox(inProcess: true)
        for (key, value) in [("db.host", "it's here"), ("port", "5432"), ("9lives", #"{"a":"$x"}"#), ("motd", "one\ntwo \"q\" \\ `b`")] {
            try box.runOK(["set", "app", key, "--", value])
        }
        let env = try box.runOK(["export", "app", "--format", "env"])
        #expect(env.status == 0, "\(env)")
        let script = env.stdout + "printf '%s|%s|%s|%s' \"$DB_HOST\" \"$PORT\" \"$_9LIVES\" \"$MOTD\""
        let evaluated = try Sandbox.exec("/bin/sh", ["-c", script], stdin: nil, environment: [:])
        #expect(evaluated.stdout == "it's here|5432|{\"a\":\"$x\"}|one\ntwo \"q\" \\ `b`", "\(evaluated)")
        let dotenv = try box.runOK(["export", "app", "--format", "dotenv"])
        #expect(
            dotenv.stdout
                == "_9LIVES='{\"a\":\"$x\"}'\nDB_HOST=\"it's here\"\nMOTD='one\ntwo \"q\" \\ `b`'\nPORT='5432'\n",
            "\(dotenv)")
        try box.runOK(["set", "app", "DB_HOST", "x"])
        expectFailure(
            try box.runFailing(["export", "app", "--format", "env"], status: 6), 6,
            contains: "app/DB_HOST and app/db.host would both be DB_HOST")
        expectFailure(try box.runFailing(["export", "--format", "env"], status: 2), 2, contains: "takes exactly one DOMAIN")
        // A value from a server or a sync peer must not be able to set PATH, LD_PRELOAD and the like.
        for key in ["path", "ld_preload", "bash_env", "ifs"] {
            try box.runOK(["set", "hostile", key, "/tmp/x"])
        }
        let hostile = try box.runFailing(["export", "hostile", "--format", "env"], status: 6)
        expectFailure(hostile, 6, contains: "which changes how the shell or programs run")
        try box.runOK(["set", "other", "café", "1"])
        expectFailure(try box.runFailing(["export", "other", "--format", "dotenv"], status: 6), 6, contains: "non-ASCII")
    }

    /// A plain value of `switch` comes back as the plain value after export → import, and the
    /// README's CI check keeps working.
    @Test func aFlagExportImportRoundTripKeepsPlainValues() throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["flag", "import", ExamplesTests.examples + "/flags.json"])
        try box.runOK(["set", "switch", "release-frozen", "true"])
        try box.runOK(["set", "switch", "max-retries", "3"])
        let first = try box.runOK(["flag", "export"])
        #expect(first.status == 0 && first.stdout.contains("\"prefsPlainValue\": true"), "\(first)")
        let file = box.root + "/f.json"
        try Data(first.stdout.utf8).write(to: URL(fileURLWithPath: file))
        let dry = try box.runOK(["flag", "import", "--dry-run", file])
        #expect(dry.status == 0 && dry.stdout.isEmpty, "an import of the export changes nothing: \(dry)")
        try box.runOK(["flag", "import", file])
        let again = try box.runOK(["flag", "export"])
        #expect(again.stdout == first.stdout, "export → import → export is byte-identical")
        let answer = try box.runOK(["get", "switch", "release-frozen", "--default", "false"])
        #expect(answer.stdout == "true\n")
        #expect(try box.runOK(["get", "switch", "max-retries"]).stdout == "3\n")
        // The README's CI snippet, `prefs get switch release-frozen --default false | grep -qx true`:
        // its grep, on what the command printed.
        let frozen = try Sandbox.exec(
            "/bin/sh", ["-c", "grep -qx true"], stdin: Array(answer.stdout.utf8), environment: box.environment())
        #expect(frozen.status == 0, "the README's CI snippet still detects the freeze")
    }

    /// The actor is shown by `log` and passed on by sync: printable and bounded, as for
    /// pulled operations.
    @Test func anActorWithControlCharactersIsRefused() throws {
        let box = try Sandbox(inProcess: true)
        expectFailure(
            try box.runFailing(["--actor", "evil\nline", "set", "user", "k", "v"], status: 2), 2, contains: "must be printable text")
        expectFailure(
            try box.runFailing(["set", "user", "k", "v"], status: 2, environment: ["PREFS_ACTOR": "x\u{1b}[2J"]), 2,
            contains: "must be printable text")
        expectFailure(try box.runFailing(["--actor", String(repeating: "a", count: 257), "set", "user", "k", "v"], status: 2), 2)
        try box.runOK(["--actor", "ci@runner-7", "set", "user", "k", "v"])
        #expect(!(try box.storeSnapshot()).contains("evil"))
    }

    @Test func aWholeCustomDomainIsRemovedInOneTransaction() throws {
        let box = try Sandbox(inProcess: true)
        for key in ["a", "b", "c"] { try box.runOK(["set", "scratch", key, "1"]) }
        try box.runOK(["set", "user", "keep", "1"])
        let removed = try box.runOK(["rm", "--domain", "scratch"])
        #expect(removed.status == 0 && removed.stdout.isEmpty, "\(removed)")
        #expect(try !box.runOK(["domains"]).stdout.contains("scratch"))
        let log = try box.runOK(["log", "scratch", "--json"])
        #expect(log.stdout.split(separator: "\n").filter { $0.contains("\"op\":\"rm\"") }.count == 3, "every key is logged: \(log)")
        expectFailure(try box.runFailing(["rm", "--domain", "scratch"], status: 1), 1, contains: "domain scratch does not exist")
        expectFailure(try box.runFailing(["rm", "--domain", "user"], status: 2), 2, contains: "built-in domain")
        #expect(try box.runOK(["get", "user", "keep"]).stdout == "1\n")
        try box.runOK(["rm", "--domain", "user", "--force"])
        expectFailure(try box.runFailing(["get", "user", "keep"], status: 1), 1)
        #expect(try box.runOK(["domains"]).stdout.contains("user"), "a built-in domain stays")
        expectFailure(
            try box.runFailing(["rm", "--domain", "scratch", "k"], status: 2), 2, contains: "--domain takes only the domain name")
        #expect(try box.runOK(["set", "scratch", "again", "1"]).status == 0, "the domain can be made again")
    }

    @Test func editChangesAKeyOrADomainWithCompareAndSet() throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["set", "user", "theme", "dark"])
        try box.runOK(["set", "user", "size", "3"])
        func editor(_ name: String, _ script: String) throws -> [String: String] {
            let path = box.root + "/" + name
            try Data("#!/bin/sh\n\(script)\n".utf8).write(to: URL(fileURLWithPath: path))
            #expect(chmod(path, 0o755) == 0)
            return ["VISUAL": path]
        }
        let light = try box.runOK(["edit", "user", "theme"], environment: try editor("light", "sed -i 's/dark/light/' \"$1\""))
        #expect(light.status == 0, "\(light)")
        #expect(try box.runOK(["get", "user", "theme"]).stdout == "light\n")
        // Someone else (another run, on another thread) changes the key while the editor has the
        // file open: nothing is written, exit 5.
        let opened = box.root + "/race-opened"
        let go = box.root + "/race-go"
        let raced = try editor(
            "race",
            "touch '\(opened)'; i=0; while [ ! -e '\(go)' ] && [ $i -lt 3000 ]; do sleep 0.01; i=$((i+1)); done; sed -i 's/light/blue/' \"$1\""
        )
        let someoneElse = DispatchGroup()
        let changed = ResultBox()
        let (store, environment) = (box.store, box.environment())
        DispatchQueue.global().async(group: someoneElse) {
            let deadline = Date().addingTimeInterval(30)
            while !FileManager.default.fileExists(atPath: opened) && Date() < deadline { usleep(5_000) }
            changed.append(Sandbox.runInProcess(["--store", store, "set", "user", "theme", "other"], stdin: nil, environment: environment))
            _ = FileManager.default.createFile(atPath: go, contents: nil)  // the editor goes on, whatever happened
        }
        expectFailure(try box.runFailing(["edit", "user", "theme"], status: 5, environment: raced), 5)
        someoneElse.wait()
        #expect(changed.all.map { $0?.status } == [0], "the other run: \(changed.all)")
        #expect(try box.runOK(["get", "user", "theme"]).stdout == "other\n")
        expectFailure(
            try box.runFailing(["edit", "user", "theme"], status: 6, environment: try editor("bad", "echo '{nope' > \"$1\"")), 6,
            contains: "not valid JSON")
        expectFailure(
            try box.runFailing(["edit", "user", "theme"], status: 1, environment: try editor("fail", "exit 3")), 1,
            contains: "exited with status 3; nothing was changed")
        // An editor ended by a signal says so (it read "exited with status 0"). The shell prefs
        // starts kills itself: a script's parent may be prefs (a shell that execs its last
        // command), and in process prefs is this test's process.
        expectFailure(
            try box.runFailing(["edit", "user", "theme"], status: 1, environment: ["VISUAL": "kill -KILL $$;"]), 1,
            contains: "ended by signal 9; nothing was changed")
        #expect(try box.runOK(["get", "user", "theme"]).stdout == "other\n")
        // The whole domain: change one key, remove one, add one.
        let domain = try editor("domain", "printf '{\"theme\":\"dark\",\"new\":[1]}' > \"$1\"")
        try box.runOK(["edit", "user"], environment: domain)
        #expect(try box.runOK(["list", "user", "--json"]).stdout == "{\"new\":[1],\"theme\":\"dark\"}\n")
        let log = try box.runOK(["log", "user", "--limit", "3"])
        #expect(log.stdout.split(separator: "\n").count == 3, "\(log)")
        // An empty file removes the key.
        try box.runOK(["edit", "user", "new"], environment: try editor("empty", ": > \"$1\""))
        expectFailure(try box.runFailing(["get", "user", "new"], status: 1), 1)
    }

    @Test func reviewFixesForTheNewCommands() throws {
        let box = try Sandbox(inProcess: true)
        // get --prefix and several keys print one line per key: line breaks are escaped.
        try box.runOK(["set", "user", "a.x", "1\na.admin\ttrue"])
        let prefixed = try box.runOK(["get", "user", "--prefix", "a."])
        #expect(prefixed.stdout == "a.x\t1\\na.admin\\ttrue\n", "\(prefixed)")
        // A string-typed key takes bracketed text as a string.
        try box.runOK(["schema", "load", "-"], stdin: #"{"user":{"tag":{"type":"string"}}}"#)
        try box.runOK(["set", "user", "tag", "[WARN]"])
        #expect(try box.runOK(["get", "user", "tag", "--json"]).stdout == "\"[WARN]\"\n")
        // rm --domain on a store with a remote records the removals for sync, and forgets the
        // domain's refresh state (a 304 would otherwise leave it empty).
        try box.runOK(["set", "feed", "k1", "1"])
        try box.runOK(["set", "feed", "k2", "2"])
        try DatabaseQueue(path: box.store).write { db in
            try db.execute(sql: "INSERT INTO sync_config (id, url) VALUES (1, 'postgres://prefs@127.0.0.1:1/prefs')")
            try db.execute(
                sql:
                    "INSERT INTO refresh_sources (domain, source, etag, last_success_at) VALUES ('feed', 'http://127.0.0.1:1/x', '\"v1\"', 1)"
            )
        }
        try box.runOK(["rm", "--domain", "feed"])
        let state = try DatabaseQueue(path: box.store).read { db in
            (
                try Int.fetchOne(db, sql: "SELECT count(*) FROM sync_pending WHERE domain = 'feed' AND value IS NULL") ?? -1,
                try Int.fetchOne(db, sql: "SELECT count(*) FROM refresh_sources WHERE domain = 'feed'") ?? -1
            )
        }
        #expect(state.0 == 2 && state.1 == 0, "\(state)")
        // edit keeps a key's time to live, and keeps the edit file when it cannot be written.
        try box.runOK(["set", "user", "token", "x", "--ttl", "1h"])
        let editor = box.root + "/editor"
        try Data("#!/bin/sh\nsed -i 's/x/y/' \"$1\"\n".utf8).write(to: URL(fileURLWithPath: editor))
        #expect(chmod(editor, 0o755) == 0)
        try box.runOK(["edit", "user", "token"], environment: ["VISUAL": editor, "TMPDIR": box.root])
        let meta = try box.runOK(["get", "user", "token", "--show-meta"])
        #expect(meta.stdout.contains("\"value\":\"y\"") && !meta.stdout.contains("\"expiresAt\":null"), "\(meta)")
        let broken = box.root + "/broken"
        try Data("#!/bin/sh\necho '{nope' > \"$1\"\n".utf8).write(to: URL(fileURLWithPath: broken))
        #expect(chmod(broken, 0o755) == 0)
        let failed = try box.runFailing(["edit", "user", "token"], status: 6, environment: ["VISUAL": broken, "TMPDIR": box.root])
        expectFailure(failed, 6, contains: "your edit is kept in \(box.root)/.prefs-edit-token.json.")
        // restore never moves the change log back.
        let backup = box.root + "/b.db"
        try box.runOK(["backup", backup])
        for index in 0..<5 { try box.runOK(["set", "user", "n\(index)", "1"]) }
        let before = try DatabaseQueue(path: box.store).read { try Int64.fetchOne($0, sql: "SELECT max(seq) FROM changelog") ?? 0 }
        try box.runOK(["restore", backup, "--force"])
        let after = try DatabaseQueue(path: box.store).read { try Int64.fetchOne($0, sql: "SELECT max(seq) FROM changelog") ?? 0 }
        #expect(after == before + 1, "a restore placeholder follows the last record (\(before) → \(after))")
    }
}
