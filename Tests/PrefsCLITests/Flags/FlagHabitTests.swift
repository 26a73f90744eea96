import Foundation
import PrefsCore
import PrefsTestSupport
import Testing

/// Flag files and switching a flag as users expect from flagd and a kill switch (issue 43,
/// items 6 and 7).
@Suite("flag habits")
struct FlagHabitTests {
    @Test func lintReportsEverySchemaErrorAtOnce() throws {
        let box = try Sandbox()
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
            try box.runFailing(["flag", "import", file], status: 6), 6, contains: "many.json: $.flags.a.state: required, ENABLED or DISABLED")
    }

    @Test func importRefusesTargetingThatReturnsNoVariantWithOrWithoutDryRun() throws {
        let box = try Sandbox()
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
        let box = try Sandbox()
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
}
