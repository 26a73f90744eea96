import Foundation
import PrefsCore
import PrefsTestSupport
import Testing

@Suite("schema, defaults, overrides, reset", .timeLimit(.minutes(5)))
struct SchemaTests {
    static let schema = """
        {"user": {"theme": {"type": "string", "default": "light", "enum": ["light", "dark"], "description": "UI theme"},
                  "onboarding.*": {"type": "boolean", "default": false},
                  "onboarding.tour.*": {"type": "integer", "default": 0},
                  "old": {"type": "any", "deprecated": "use theme"}},
         "switch": {"max_retries": {"type": "integer", "default": 3, "minimum": 0, "maximum": 10},
                    "name": {"type": "string", "pattern": "^[a-z]+$"},
                    "ratio": {"type": "number", "minimum": 0.5},
                    "tags": {"type": "array"}, "cfg": {"type": "object"}}}
        """

    func loaded() throws -> Sandbox {
        let box = try Sandbox(inProcess: true)
        let result = try box.runOK(["schema", "load", "-"], stdin: Self.schema)
        #expect(result.status == 0 && result.stdout.isEmpty, "\(result)")
        return box
    }

    @Test func everyOriginInLookupOrder() throws {
        let box = try loaded()
        #expect(try box.runOK(["get", "user", "theme", "--show-origin"]).stdout == "schema\tlight\n")
        try box.runOK(["set", "user", "theme", "dark"])
        #expect(try box.runOK(["get", "user", "theme", "--show-origin"]).stdout == "store\tdark\n")
        let overridden = try box.runOK(["--override", "user:theme=light", "get", "user", "theme", "--show-origin"])
        #expect(overridden.stdout == "override\tlight\n")
        let viaEnv = try box.runOK(
            ["get", "user", "theme", "--show-origin"], environment: ["PREFS_OVERRIDES": "{\"user\":{\"theme\":\"x\"}}"])
        #expect(viaEnv.stdout == "override\tx\n")
        #expect(try box.runOK(["get", "user", "nothing", "--default", "7", "--show-origin"]).stdout == "fallback\t7\n")
        #expect(try box.runOK(["get", "user", "onboarding.done"]).stdout == "false\n", "a prefix declares defaults")
        #expect(try box.runOK(["get", "user", "onboarding.tour.step"]).stdout == "0\n", "the longest prefix wins")
        expectFailure(try box.runFailing(["get", "user", "nothing"], status: 1), 1)
        #expect(try box.runOK(["get", "switch", "max_retries"]).stdout == "3\n")
    }

    @Test func overridesAreNeverPersisted() throws {
        let box = try loaded()
        try box.runOK(["set", "user", "theme", "dark"])
        let before = try box.storeSnapshot()
        #expect(
            try box.runOK(["--override", "user:theme=light", "--override", "user:new={\"a\":1}", "list", "user"]).stdout
                == "new\t{\"a\":1}\ntheme\t\"light\"\n")
        #expect(try box.storeSnapshot() == before)
        #expect(try box.runOK(["get", "user", "theme"]).stdout == "dark\n")
        expectFailure(try box.runFailing(["--override", "nocolon", "get", "user", "theme"], status: 2), 2)
        expectFailure(try box.runFailing(["--override", "Bad:k=1", "get", "user", "theme"], status: 2), 2)
        expectFailure(try box.runFailing(["get", "user", "theme"], status: 6, environment: ["PREFS_OVERRIDES": "[1]"]), 6)
    }

    @Test func listShowsEffectiveValuesWithOrigins() throws {
        let box = try loaded()
        try box.runOK(["set", "user", "a", "1"])
        #expect(
            try box.runOK(["--override", "user:b=2", "list", "user", "--show-origin"]).stdout
                == "store\ta\t1\noverride\tb\t2\nschema\ttheme\t\"light\"\n")
        #expect(
            try box.runOK(["list", "user", "--json", "--show-origin"]).stdout
                == "{\"a\":{\"value\":1,\"origin\":\"store\"},\"theme\":{\"value\":\"light\",\"origin\":\"schema\"}}\n")
        #expect(try box.runOK(["export"]).stdout == "{\"user\":{\"a\":1}}\n", "export is the stored data")
        #expect(try box.runOK(["export", "--effective", "user"]).stdout == "{\"user\":{\"a\":1,\"theme\":\"light\"}}\n")
    }

    @Test(arguments: [
        (["user", "theme", "blue"], "enum"), (["switch", "max_retries", "11"], "maximum"), (["switch", "max_retries", "-1"], "minimum"),
        (["switch", "max_retries", "2.5"], "type: expected integer"), (["switch", "max_retries", "x"], "type"),
        (["switch", "name", "ABC"], "pattern"), (["switch", "ratio", "0.25"], "minimum"),
        (["switch", "tags", "{}"], "type: expected array"),
        (["switch", "cfg", "[]"], "type: expected object"), (["user", "onboarding.x", "1"], "type: expected boolean"),
    ])
    func constraintsRejectOnWrite(arguments: [String], constraint: String) throws {
        let box = try loaded()
        let before = try box.storeSnapshot()
        expectFailure(try box.runFailing(["set"] + arguments, status: 6), 6, contains: constraint)
        #expect(try box.storeSnapshot() == before)
        let forced = try box.runOK(["set", "--force"] + arguments)
        #expect(forced.status == 0 && forced.stderr.contains("warning: --force"), "\(forced)")
    }

    @Test(arguments: [
        ["user", "theme", "dark"], ["switch", "max_retries", "10"], ["switch", "max_retries", "0"], ["switch", "name", "abc"],
        ["switch", "ratio", "0.5"], ["switch", "tags", "[1]"], ["switch", "cfg", "{}"], ["user", "onboarding.x", "true"],
        ["user", "free", "x"],
    ])
    func constraintsAcceptValidValues(arguments: [String]) throws {
        let box = try loaded()
        let result = try box.runOK(["set"] + arguments)
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result)")
    }

    @Test func importApplyAndBatchAreValidatedToo() throws {
        let box = try loaded()
        let before = try box.storeSnapshot()
        expectFailure(
            try box.runFailing(["import"], status: 6, stdin: "{\"user\":{\"a\":1,\"theme\":\"blue\"}}"), 6, contains: "user/theme: enum")
        #expect(try box.storeSnapshot() == before, "a refused import writes nothing, not even the valid keys")
        expectFailure(
            try box.runFailing(["apply"], status: 6, stdin: "[{\"op\":\"incr\",\"domain\":\"switch\",\"key\":\"max_retries\",\"by\":20}]"),
            6,
            contains: "maximum")
        #expect(try box.storeSnapshot() == before)
        let batch = try box.runFailing(["batch"], status: 6, stdin: "set user a 1\nset user theme blue\n")
        #expect(batch.status == 6 && batch.stderr.contains("line 2: user/theme: enum"), "\(batch)")
        #expect(try box.runOK(["get", "user", "a"]).stdout == "1\n", "lines before the bad one are written")
        try box.runOK(["import", "--force"], stdin: "{\"user\":{\"theme\":\"blue\"}}")
    }

    @Test func loadReportsViolationsAndRefusesBadFiles() throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["set", "user", "theme", "blue"])
        try box.runOK(["set", "switch", "max_retries", "99"])
        let load = try box.runOK(["schema", "load", "-"], stdin: Self.schema)
        #expect(load.status == 0)
        #expect(
            load.stdout
                == "violation\tswitch/max_retries: maximum: 99 is greater than 10\nviolation\tuser/theme: enum: \"blue\" is not one of \"light\", \"dark\"\n"
        )
        let shown = try box.runOK(["schema", "show"]).stdout
        let bad: [(String, String)] = [
            ("[1]", "$: a schema is a JSON object"), ("{\"Bad\":{}}", "$.Bad: invalid domain"),
            ("{\"user\":{\"k\":{}}}", "$.user.k.type"),
            ("{\"user\":{\"k\":{\"type\":\"string\",\"default\":1}}}", "$.user.k.default: type"),
            ("{\"user\":{\"k\":{\"type\":\"int\"}}}", "$.user.k.type"),
            ("{\"user\":{\"k\":{\"type\":\"string\",\"pattern\":\"(\"}}}", "$.user.k.pattern"),
            ("{\"user\":{\"k\":{\"type\":\"number\",\"minimum\":5,\"maximum\":1}}}", "$.user.k.minimum"),
            ("{\"user\":{\"k\":{\"type\":\"string\",\"colour\":1}}}", "$.user.k.colour: unknown property"),
            ("{\"user\":{\"k\":{\"type\":\"string\",\"enum\":[]}}}", "$.user.k.enum"), ("{not json", "invalid JSON"),
        ]
        for (document, message) in bad {
            expectFailure(try box.runFailing(["schema", "load", "-"], status: 6, stdin: document), 6, contains: message)
        }
        #expect(try box.runOK(["schema", "show"]).stdout == shown, "the previous schema stays active")
    }

    @Test func describeShowsEverything() throws {
        let box = try loaded()
        #expect(
            try box.runOK(["describe", "user", "theme"]).stdout
                == "domain:\tuser\nkey:\ttheme\ntype:\tstring\ndefault:\t\"light\"\nenum:\t\"light\", \"dark\"\ndescription:\tUI theme\nvalue:\t\"light\"\norigin:\tschema\n"
        )
        try box.runOK(["set", "switch", "max_retries", "5"])
        #expect(
            try box.runOK(["describe", "switch", "max_retries", "--json"]).stdout
                == "{\"domain\":\"switch\",\"key\":\"max_retries\",\"type\":\"integer\",\"default\":3,\"minimum\":0,\"maximum\":10,\"value\":5,\"origin\":\"store\"}\n"
        )
        #expect(try box.runOK(["describe", "user", "onboarding.seen"]).stdout.contains("declaredBy:\tonboarding.*\n"))
        try box.runOK(["set", "user", "unknown", "1"])
        #expect(try box.runOK(["describe", "user", "unknown"]).stdout.contains("inSchema:\tfalse\n"))
        // Not set, no default: exit 1 as `get` (a declared key still shows its rules).
        expectFailure(
            try box.runFailing(["describe", "user", "nothing"], status: 1), 1, contains: "user/nothing is not set and has no default")
        let declared = try box.runFailing(["describe", "switch", "name"], status: 1)
        #expect(
            declared.status == 1 && declared.stdout == "domain:\tswitch\nkey:\tname\ntype:\tstring\npattern:\t^[a-z]+$\n", "\(declared)")
        #expect(declared.stderr == "prefs: switch/name is not set and has no default\n")
        let deprecated = try box.runOK(["set", "user", "old", "1"])
        #expect(deprecated.status == 0 && deprecated.stderr == "prefs: warning: user/old is deprecated: use theme\n")
    }

    @Test func resetRestoresTheDefault() throws {
        let box = try loaded()
        for key in ["theme", "onboarding.a", "onboarding.b", "other"] {
            try box.runOK(["set", "user", key, key == "theme" ? "dark" : "true"])
        }
        try box.runOK(["reset", "user", "theme"])
        #expect(try box.runOK(["get", "user", "theme", "--show-origin"]).stdout == "schema\tlight\n")
        try box.runOK(["reset", "user", "--prefix", "onboarding."])
        #expect(try box.runOK(["get", "user", "onboarding.a"]).stdout == "false\n")
        #expect(try box.runOK(["get", "user", "other"]).stdout == "true\n")
        try box.runOK(["reset", "user", "--all"])
        expectFailure(try box.runFailing(["get", "user", "other"], status: 1), 1)
        #expect(try box.runOK(["log", "user"]).stdout.split(separator: "\n").filter { $0.contains("\treset\t") }.count == 4)
        expectFailure(try box.runFailing(["reset", "user"], status: 2), 2)
        expectFailure(try box.runFailing(["reset", "user", "a", "--all"], status: 2), 2)
    }
}

@Suite("schema edge cases", .timeLimit(.minutes(5)), .ownThreads)
struct SchemaEdgeCaseTests {
    @Test func boundsAreComparedExactlyAndShownAsWritten() throws {
        let box = try Sandbox(inProcess: true)
        let schema =
            "{\"default\":{\"big\":{\"type\":\"integer\",\"maximum\":9007199254740992},\"r\":{\"type\":\"number\",\"minimum\":0.5}}}"
        try box.runOK(["schema", "load", "-"], stdin: schema)
        expectFailure(
            try box.runFailing(["set", "default", "big", "9007199254740993"], status: 6), 6, contains: "greater than 9007199254740992")
        try box.runOK(["set", "default", "big", "9007199254740992"])
        expectFailure(try box.runFailing(["set", "default", "r", "0.49999999999999999"], status: 6), 6, contains: "less than 0.5")
        #expect(try box.runOK(["describe", "default", "big"]).stdout.contains("maximum:\t9007199254740992\n"))
    }

    @Test func enumComparesByMeaningAndMustFitTheType() throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["schema", "load", "-"], stdin: "{\"default\":{\"n\":{\"type\":\"number\",\"enum\":[1,2.5]}}}")
        try box.runOK(["set", "default", "n", "2.50"])
        try box.runOK(["set", "default", "n", "1e0"])
        expectFailure(
            try box.runFailing(["schema", "load", "-"], status: 6, stdin: "{\"default\":{\"s\":{\"type\":\"string\",\"enum\":[1]}}}"), 6,
            contains: "$.default.s.enum[0]")
        expectFailure(
            try box.runFailing(["schema", "load", "-"], status: 6, stdin: "{\"default\":{\"s\":{\"type\":\"string\",\"minimum\":1}}}"), 6,
            contains: "$.default.s.minimum")
        expectFailure(
            try box.runFailing(["schema", "load", "-"], status: 6, stdin: "{\"default\":{\"s\":{\"type\":\"number\",\"pattern\":\"x\"}}}"),
            6,
            contains: "$.default.s.pattern")
    }

    /// The reviewer's reproduction: a pattern that backtracks exponentially in Swift `Regex`
    /// is refused at once; patterns the engine does not run are refused at `schema load`.
    @Test func catastrophicPatternAnswersAtOnce() throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["schema", "load", "-"], stdin: #"{"user":{"slug":{"type":"string","pattern":"^([a-z0-9]+-?)*[a-z0-9]+$"}}}"#)
        expectFailure(
            try box.runFailing(["set", "user", "slug", #""abcdefghijklmnopqrstuvwx!""#], status: 6), 6,
            contains: #"user/slug: pattern: "abcdefghijklmnopqrstuvwx!" does not match "^([a-z0-9]+-?)*[a-z0-9]+$""#)
        try box.runOK(["set", "user", "slug", #""abc-def""#])
        #expect(try box.runOK(["get", "user", "slug"]).stdout == "abc-def\n")
        expectFailure(
            try box.runFailing(["schema", "load", "-"], status: 6, stdin: #"{"user":{"k":{"type":"string","pattern":"(?=a)"}}}"#), 6,
            contains: "$.user.k.pattern: not a valid regular expression (lookahead is not supported)")
        expectFailure(
            try box.runFailing(
                ["schema", "load", "-"], status: 6, stdin: #"{"user":{"k":{"type":"string","pattern":"(a{1000}){1000}"}}}"#), 6,
            contains: "expand beyond 10000 instructions")
    }

    /// A schema stored by a build whose pattern engine read more (here: a lookahead written into
    /// the store) refuses only its key's writes; every other command works, and `schema show`
    /// shows it so it can be corrected.
    @Test func aStoredPatternThisBuildCannotRunLocksOnlyItsKey() throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["set", "user", "other", "1"])
        try box.runOK(["schema", "load", "-"], stdin: #"{"user":{"k":{"type":"string","pattern":"^a"}}}"#)
        try DatabaseQueue(path: box.store).write { db in
            try db.execute(sql: "UPDATE meta SET value = replace(value, '^a', '^(?=a)a') WHERE key = 'schema'")
        }
        try box.runOK(["set", "user", "other", "2"])
        #expect(try box.runOK(["get", "user", "other"]).stdout == "2\n")
        expectFailure(try box.runFailing(["get", "user", "missing"], status: 1), 1)
        try box.runOK(["list", "user"])
        #expect(try box.runOK(["schema", "show"]).stdout.contains("(?=a)"))
        expectFailure(
            try box.runFailing(["set", "user", "k", "abc"], status: 6), 6,
            contains: #"user/k: pattern: "^(?=a)a" cannot be checked (lookahead is not supported); load a corrected schema"#)
        try box.runOK(["schema", "load", "-"], stdin: #"{"user":{"k":{"type":"string","pattern":"^a"}}}"#)
        try box.runOK(["set", "user", "k", "abc"])
    }

    @Test func effectiveExportNamesEachDomainOnce() throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["set", "user", "a", "1"])
        #expect(try box.runOK(["export", "--effective", "user", "user"]).stdout == "{\"user\":{\"a\":1}}\n")
    }

    @Test func overrideErrorsNameTheirSource() throws {
        let box = try Sandbox(inProcess: true)
        expectFailure(
            try box.runFailing(["--override", "user:theme={bad", "get", "user", "theme"], status: 6), 6, contains: "--override user:theme")
        expectFailure(
            try box.runFailing(["get", "user", "theme"], status: 6, environment: ["PREFS_OVERRIDES": "{\"user\":{\"\":1}}"]), 6,
            contains: "PREFS_OVERRIDES")
    }

    /// Bounds and enums compare decimal text exactly: no 38-digit rounding, no Double.
    @Test func boundsAndEnumsAreExact() throws {
        let box = try Sandbox(inProcess: true)
        let schema = """
            {"user": {"pct": {"type": "number", "minimum": 0, "maximum": 100},
                      "huge": {"type": "number", "maximum": 1e999999},
                      "tiny": {"type": "number", "minimum": -1e-999999},
                      "level": {"type": "number", "enum": [100, 0.1]},
                      "vast": {"type": "number", "maximum": 1e1000000000000000000, "minimum": -1e-99999999999999999999}}}
            """
        let load = try box.runOK(["schema", "load", "-"], stdin: schema)
        #expect(load.status == 0, "\(load)")
        let refused = [
            ("pct", "100.00000000000000000000000000000000000000000000001"), ("pct", "-1e-400"), ("pct", "1e2000"),
            ("pct", "-0.00000000000000000000000000000000000000000000000000000001"), ("huge", "2e999999"),
            ("huge", "1.0000000000000000000000000000000000000001e999999"), ("tiny", "-2e-999999"),
            ("level", "100.0000000000000000000000000000000000000001"), ("level", "0.1000000000000000000000000000000000000000001"),
            ("vast", "1e1000000000000000001"), ("vast", "10e1000000000000000000"), ("vast", "1.01e1000000000000000000"),
            ("vast", "-1e-99999999999999999998"),
        ]
        for (key, value) in refused {
            expectFailure(try box.runFailing(["set", "user", key, value], status: 6), 6, contains: "user/\(key)")
        }
        let accepted = [
            ("pct", "100"), ("pct", "1e2"), ("pct", "100.000000000000000000000000000000000000000000000"), ("pct", "0"), ("pct", "-0"),
            ("pct", "0e-400"), ("pct", "99.99999999999999999999999999999999999999999999"), ("pct", "1e-400"),
            ("huge", "1e999999"), ("huge", "9.99e999998"), ("tiny", "-1e-999999"), ("tiny", "-1e-1000000"), ("level", "1E2"),
            ("level", "0.10"), ("level", "1e-1"),
            ("vast", "1e1000000000000000000"), ("vast", "0.1e1000000000000000001"), ("vast", "9.99e999999999999999999"),
            ("vast", "-1e-100000000000000000000"), ("vast", "-10e-100000000000000000000"),
        ]
        for (key, value) in accepted {
            let result = try box.runOK(["set", "user", key, value])
            #expect(result.status == 0, "\(key)=\(value): \(result)")
        }
    }

    /// A long-lived `prefs batch` (fed through a pipe that stays open) checks its lines against
    /// the schema loaded now, not the one it read when it started: a schema loaded meanwhile by
    /// another process refuses a later line.
    @Test func aRunningBatchChecksAgainstASchemaLoadedMeanwhile() throws {
        let box = try Sandbox()
        let process = box.process(["batch", "--window", "1ms"])
        let input = Pipe()
        let errors = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        try input.fileHandleForWriting.write(contentsOf: Data("set user theme blue\n".utf8))
        // Committed (and the schema, none yet, read) before the schema is loaded.
        let deadline = Date().addingTimeInterval(30)
        func stored() throws -> String {
            try Sandbox.exec(Sandbox.binary, ["--store", box.store, "get", "user", "theme"], stdin: nil, environment: box.environment())
                .stdout
        }
        while try stored() != "blue\n", Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        #expect(try stored() == "blue\n", "the batch's first line was not committed")
        try box.runOK(["schema", "load", "-"], stdin: SchemaTests.schema)
        try input.fileHandleForWriting.write(contentsOf: Data("set user theme green\n".utf8))
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 6, "\(stderr)")
        #expect(stderr.contains("user/theme: enum"), "\(stderr)")
        #expect(try box.runOK(["get", "user", "theme"]).stdout == "blue\n")
    }
}
