import Foundation
import PrefsCore
import PrefsTestSupport
import Testing

/// Flag files and switching a flag as users expect from flagd and a kill switch (issue 43,
/// items 6 and 7).
@Suite("flag habits", .timeLimit(.minutes(5)))
struct FlagHabitTests {
    @Test func lintReportsEverySchemaErrorAtOnce() throws {
        let box = try Sandbox(inProcess: true)
        let file = box.root + "/many.json"
        try """
        {"flags": {
          "a": {"state": "ON", "variants": {"on": true}, "defaultVariant": "on"},
          "b": {"state": "ENABLED", "variants": {"x": 1}, "defaultVariant": "z"},
          "c": {"state": "ENABLED", "variants": {"x": 1}, "defaultVariant": "x", "bogus": 1}
        }}
        """.write(toFile: file, atomically: true, encoding: .utf8)
        let lint = try box.runFailing(["flag", "lint", file], status: 1)
        #expect(lint.stdout.contains(file + ":2:18: error: required, ENABLED or DISABLED [invalid] $.flags.a.state"), "\(lint)")
        #expect(lint.stdout.contains(#"error: "z" is not a variant [invalid] $.flags.b.defaultVariant"#), "\(lint)")
        #expect(lint.stdout.contains("error: unknown property [invalid] $.flags.c.bogus"), "\(lint)")
        #expect(lint.stderr == "prefs: 3 errors, 1 warning\n", "\(lint)")
        // The import still names the first.
        expectFailure(
            try box.runFailing(["flag", "import", file], status: 6), 6,
            contains: "many.json: $.flags.a.state: required, ENABLED or DISABLED")
    }

    @Test func importRefusesTargetingThatReturnsNoVariantWithOrWithoutDryRun() throws {
        let box = try Sandbox(inProcess: true)
        let document = """
            {"flags": {"f": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off",
              "targeting": {"if": [{"==": [{"var": "plan"}, "pro"]}, "onn", "off"]}}}}
            """
        let message = #"standard input: $.flags.f.targeting.if[1]: the targeting of "f" returns "onn", which is not a variant"#
        expectFailure(try box.runFailing(["flag", "import", "--dry-run", "-"], status: 6, stdin: document), 6, contains: message)
        expectFailure(try box.runFailing(["flag", "import", "-"], status: 6, stdin: document), 6, contains: message)
        #expect(!FileManager.default.fileExists(atPath: box.store), "nothing was written")
        let fixed = document.replacingOccurrences(of: "\"onn\"", with: "\"on\"")
        #expect(try box.runOK(["flag", "import", "--dry-run", "-"], stdin: fixed).stdout == "add\tf\n")
    }

    @Test func lintDoesNotWarnOnTheProjectsOwnExamples() throws {
        let box = try Sandbox(inProcess: true)
        let lint = try box.runOK(["flag", "lint", repositoryRoot + "/examples/flags.json"])
        #expect(lint.stdout.isEmpty && lint.stderr.isEmpty, "\(lint)")
        // A static switch with a third variant, or with targeting, still names the unused one.
        let file = box.root + "/switches.json"
        try """
        {"flags": {
          "three": {"state": "ENABLED", "variants": {"on": true, "off": false, "maybe": true}, "defaultVariant": "off"},
          "words": {"state": "ENABLED", "variants": {"on": "yes", "off": "no"}, "defaultVariant": "off"}
        }}
        """.write(toFile: file, atomically: true, encoding: .utf8)
        let other = try box.runOK(["flag", "lint", file])
        #expect(other.stdout.contains(#"variant "on" of "three" is neither the default"#), "\(other)")
        #expect(other.stdout.contains(#"variant "on" of "words" is neither the default"#), "\(other)")
    }

    @Test func flagDefaultSwitchesTheVariantAsOneLoggedCheckedWrite() throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["flag", "import", repositoryRoot + "/examples/flags.json"])
        #expect(try box.runOK(["flag", "eval", "deploy-frozen"]).stdout == "false\n")
        try box.runOK(["flag", "default", "deploy-frozen", "on"], environment: ["PREFS_ACTOR": "ops"])
        #expect(try box.runOK(["flag", "eval", "deploy-frozen"]).stdout == "true\n")
        #expect(
            try box.runOK(["get", "switch", "deploy-frozen"]).stdout
                == #"{"state":"ENABLED","variants":{"on":true,"off":false},"defaultVariant":"on"}"# + "\n")
        let log = try box.runOK(["log", "switch", "deploy-frozen", "--limit", "1", "--json"]).stdout
        #expect(
            log.contains(#""op":"set""#)
                && log.contains(#""old":{"state":"ENABLED","variants":{"on":true,"off":false},"defaultVariant":"off"}"#))
        #expect(log.contains(#""defaultVariant":"on"},"actor":"ops"}"#), "\(log)")

        // A variant the flag does not have: exit 6, the variants listed, nothing written.
        expectFailure(
            try box.runFailing(["flag", "default", "deploy-frozen", "yes"], status: 6), 6,
            contains: #""yes" is not a variant of flag "deploy-frozen"; its variants: "on", "off""#)
        expectFailure(try box.runFailing(["flag", "default", "no-such-flag", "on"], status: 1), 1, contains: "not found")
        try box.runOK(["set", "switch", "plain", "true"])
        expectFailure(try box.runFailing(["flag", "default", "plain", "on"], status: 6), 6, contains: "switch/plain is a plain boolean")

        // Compare-and-set against the version `get --show-meta` shows.
        func version() throws -> Int64 {
            let meta = try box.runOK(["get", "switch", "deploy-frozen", "--show-meta"]).stdout
            let object = try JSONSerialization.jsonObject(with: Data(meta.utf8)) as? [String: Any]
            return try #require((object?["version"] as? NSNumber)?.int64Value, "\(meta)")
        }
        let now = try version()
        expectFailure(
            try box.runFailing(["flag", "default", "deploy-frozen", "off", "--if-version", String(now - 1)], status: 5), 5,
            contains: "switch/deploy-frozen is at version \(now), not \(now - 1)")
        #expect(try box.runOK(["flag", "eval", "deploy-frozen"]).stdout == "true\n")
        try box.runOK(["flag", "default", "deploy-frozen", "off", "--if-version", String(now)])
        #expect(try box.runOK(["flag", "eval", "deploy-frozen"]).stdout == "false\n")
        #expect(try version() > now)
        let records = try box.runOK(["log", "switch", "deploy-frozen"]).stdout.split(separator: "\n")
        #expect(records.count == 3, "import and two switches, no refused write: \(records)")
    }
}
