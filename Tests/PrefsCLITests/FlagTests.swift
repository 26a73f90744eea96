import Foundation
import Testing

@Suite("prefs flag")
struct FlagCLITests {
    static let document = """
        {"$schema": "https://flagd.dev/schema/v0/flags.json",
         "metadata": {"flagSetId": "shop"},
         "$evaluators": {"is_staff": {"ends_with": [{"var": "email"}, "@example.com"]}},
         "flags": {
           "new-checkout": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off",
                            "targeting": {"if": [{"$ref": "is_staff"}, "on", null]}, "metadata": {"owner": "payments"}},
           "banner": {"state": "ENABLED", "variants": {"a": "Hello", "b": "Hi", "c": "Hey", "d": "Yo"}, "defaultVariant": "a",
                      "targeting": {"fractional": [["a", 25], ["b", 25], ["c", 25], ["d", 25]]}},
           "limits": {"state": "DISABLED", "variants": {"small": {"n": 1}, "big": {"n": 9}}, "defaultVariant": "small"}
         }}
        """

    func imported() throws -> Sandbox {
        let box = try Sandbox()
        let result = try box.run(["flag", "import", "-"], stdin: Self.document)
        #expect(result.status == 0, "\(result)")
        return box
    }

    @Test func evalPrintsValueOrTheWholeResult() throws {
        let box = try imported()
        #expect(try box.run(["flag", "eval", "new-checkout", "--type", "boolean", "--default", "false"]).stdout == "false\n")
        let staff = try box.run([
            "flag", "eval", "new-checkout", "--type", "boolean", "--default", "false", "--context", "{\"email\":\"a@example.com\"}",
            "--json",
        ])
        #expect(
            staff.stdout
                == "{\"value\":true,\"variant\":\"on\",\"reason\":\"TARGETING_MATCH\",\"errorCode\":null,\"errorMessage\":null,\"metadata\":{\"flagSetId\":\"shop\",\"owner\":\"payments\"}}\n"
        )
        let missing = try box.run(["flag", "eval", "nope", "--type", "string", "--default", "plain text", "--json"])
        #expect(missing.status == 0, "an evaluation error is a result")
        #expect(
            missing.stdout.hasPrefix("{\"value\":\"plain text\",\"variant\":null,\"reason\":\"ERROR\",\"errorCode\":\"FLAG_NOT_FOUND\""))
        let disabled = try box.run(["flag", "eval", "limits", "--type", "object", "--default", "{\"n\":0}", "--json"])
        #expect(disabled.stdout.hasPrefix("{\"value\":{\"n\":0},\"variant\":null,\"reason\":\"DISABLED\""))
        let mismatch = try box.run(["flag", "eval", "banner", "--type", "integer", "--default", "3", "--targeting-key", "u1", "--json"])
        #expect(mismatch.stdout.contains("\"errorCode\":\"TYPE_MISMATCH\"") && mismatch.stdout.hasPrefix("{\"value\":3,"))
    }

    /// A targeting rule that would need 2^40 bytes (found by scripts/fuzz json-logic) is an
    /// evaluation error with the default value, not an out-of-memory crash.
    @Test func runawayTargetingIsAnError() throws {
        let box = try Sandbox()
        let ones = Array(repeating: "1", count: 40).joined(separator: ",")
        let document = """
            {"flags": {"greedy": {"state": "ENABLED", "variants": {"a": "A", "b": "B"}, "defaultVariant": "a",
              "targeting": {"if": [{"reduce": [[\(ones)], {"cat": [{"var": "accumulator"}, {"var": "accumulator"}]}, "x"]}, "b", "a"]}}}}
            """
        #expect(try box.run(["flag", "import", "-"], stdin: document).status == 0)
        let result = try box.run(["flag", "eval", "greedy", "--type", "string", "--default", "fallback", "--json"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.hasPrefix(#"{"value":"fallback","variant":null,"reason":"ERROR","errorCode":"GENERAL""#), "\(result)")
        #expect(result.stdout.contains("more than 2000000 steps"), "\(result)")
    }

    @Test func fractionalUsesTheTargetingKey() throws {
        let box = try imported()
        var seen = Set<String>()
        for i in 0..<40 {
            let value = try box.run(["flag", "eval", "banner", "--type", "string", "--default", "?", "--targeting-key", "user-\(i)"]).stdout
            seen.insert(value)
            #expect(
                try box.run([
                    "flag", "eval", "banner", "--type", "string", "--default", "?", "--context", "{\"targetingKey\":\"user-\(i)\"}",
                ]).stdout == value)
        }
        #expect(seen.isSubset(of: ["Hello\n", "Hi\n", "Hey\n", "Yo\n"]) && seen.count >= 3)
        let noKey = try box.run(["flag", "eval", "banner", "--type", "string", "--default", "?", "--json"]).stdout
        #expect(noKey.contains("\"reason\":\"DEFAULT\""), "no targeting key: fractional gives null")
        for version in ["1", "3"] {
            #expect(
                try box.run([
                    "flag", "eval", "banner", "--type", "string", "--default", "?", "--targeting-key", "u", "--fractional-version", version,
                ]).status == 0)
        }
        expectFailure(try box.run(["flag", "eval", "banner", "--type", "string", "--default", "?", "--fractional-version", "4"]), 2)
    }

    @Test func enabledIsAShellCondition() throws {
        let box = try imported()
        #expect(try box.run(["flag", "enabled", "new-checkout", "--context", "{\"email\":\"ada@example.com\"}"]).status == 0)
        let off = try box.run(["flag", "enabled", "new-checkout"])
        #expect(off.status == 1 && off.stdout.isEmpty && off.stderr.isEmpty)
        #expect(try box.run(["flag", "enabled", "missing"]).status == 1)
        try box.run(["set", "switch", "plain", "true"])
        #expect(try box.run(["flag", "enabled", "plain"]).status == 0, "a plain true is a static flag")
        #expect(try box.run(["--override", "switch:new-checkout=true", "flag", "enabled", "new-checkout"]).status == 0)
    }

    @Test func badInputIsAnError() throws {
        let box = try imported()
        expectFailure(
            try box.run(["flag", "eval", "banner", "--type", "string", "--default", "?", "--context", "{bad"]), 6, contains: "--context")
        expectFailure(try box.run(["flag", "eval", "banner", "--type", "string", "--default", "?", "--context", "[1]"]), 6)
        expectFailure(try box.run(["flag", "eval", "banner", "--type", "integer", "--default", "x"]), 6)
        expectFailure(try box.run(["flag", "eval", "banner", "--type", "decimal", "--default", "1"]), 2)
        expectFailure(try box.run(["flag", "eval", "banner", "--default", "1"]), 2)
        let before = try box.storeSnapshot()
        expectFailure(
            try box.run(
                ["flag", "import"], stdin: "{\"flags\":{\"x\":{\"state\":\"ENABLED\",\"variants\":{\"a\":1},\"defaultVariant\":\"b\"}}}"),
            6, contains: "$.flags.x.defaultVariant")
        #expect(try box.storeSnapshot() == before, "a bad document changes nothing")
    }

    @Test func listShowEnableDisable() throws {
        let box = try imported()
        #expect(
            try box.run(["flag", "list"]).stdout
                == "banner\tENABLED\tstring\ta\tyes\ta,b,c,d\nlimits\tDISABLED\tobject\tsmall\tno\tsmall,big\nnew-checkout\tENABLED\tboolean\toff\tyes\ton,off\n"
        )
        #expect(try box.run(["flag", "list", "--json"]).stdout.split(separator: "\n").count == 3)
        #expect(try box.run(["flag", "show", "limits"]).stdout.contains("\"state\": \"DISABLED\""))
        try box.run(["flag", "enable", "limits"])
        #expect(try box.run(["flag", "eval", "limits", "--type", "object", "--default", "{}"]).stdout == "{\"n\":1}\n")
        try box.run(["flag", "disable", "new-checkout"])
        #expect(try box.run(["flag", "enabled", "new-checkout", "--context", "{\"email\":\"ada@example.com\"}"]).status == 1)
        expectFailure(try box.run(["flag", "enable", "missing"]), 1)
        #expect(try box.run(["log", "switch", "limits"]).stdout.contains("\tset\tswitch\tlimits\t"))
    }

    @Test func exportImportRoundTripKeepsEvaluations() throws {
        let box = try imported()
        try box.run(["set", "switch", "plain", "\"static text\""])
        let exported = try box.run(["flag", "export"])
        #expect(exported.status == 0)
        let other = try Sandbox()
        #expect(try other.run(["flag", "import", "-"], stdin: exported.stdout).status == 0)
        let cases: [[String]] = [
            ["new-checkout", "--type", "boolean", "--default", "false", "--context", "{\"email\":\"a@example.com\"}"],
            ["new-checkout", "--type", "boolean", "--default", "false"],
            ["banner", "--type", "string", "--default", "?", "--targeting-key", "k9"],
            ["limits", "--type", "object", "--default", "{}"], ["plain", "--type", "string", "--default", "?"],
        ]
        for arguments in cases {
            let a = try box.run(["flag", "eval"] + arguments).stdout
            let b = try other.run(["flag", "eval"] + arguments).stdout
            #expect(a == b, "\(arguments)")
        }
        #expect(try other.run(["flag", "export"]).stdout == exported.stdout)
    }

    @Test func replaceMakesTheFlagSetExactlyTheFile() throws {
        let box = try imported()
        try box.run(["set", "switch", "stale", "true"])
        let small = "{\"flags\":{\"only\":{\"state\":\"ENABLED\",\"variants\":{\"a\":true},\"defaultVariant\":\"a\"}}}"
        #expect(try box.run(["flag", "import", "--replace", "-"], stdin: small).status == 0)
        #expect(try box.run(["flag", "list"]).stdout == "only\tENABLED\tboolean\ta\tno\ta\n")
    }
}

@Suite("prefs flag review cases")
struct FlagCLIReviewTests {
    @Test func aPlainImportKeepsExistingEvaluators() throws {
        let box = try Sandbox()
        let first = """
            {"$evaluators": {"staff": {"ends_with": [{"var": "email"}, "@example.com"]}},
             "flags": {"a": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off",
                             "targeting": {"if": [{"$ref": "staff"}, "on", null]}}}}
            """
        let second = """
            {"$evaluators": {"beta": {"==": [{"var": "plan"}, "beta"]}},
             "flags": {"b": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off",
                             "targeting": {"if": [{"$ref": "beta"}, "on", null]}}}}
            """
        #expect(try box.run(["flag", "import"], stdin: first).status == 0)
        #expect(try box.run(["flag", "import"], stdin: second).status == 0)
        #expect(try box.run(["flag", "enabled", "a", "--context", "{\"email\":\"x@example.com\"}"]).status == 0)
        #expect(try box.run(["flag", "enabled", "b", "--context", "{\"plan\":\"beta\"}"]).status == 0)
    }

    @Test func exportLeavesOutWhatFlagdCannotHoldAndStillRoundTrips() throws {
        let box = try Sandbox()
        try box.run(["set", "switch", "list", "[1,2]"])
        try box.run(["set", "switch", "on", "true"])
        let exported = try box.run(["flag", "export"])
        #expect(exported.status == 0 && exported.stderr.contains("switch/list is not exported"))
        let other = try Sandbox()
        #expect(try other.run(["flag", "import", "--replace"], stdin: exported.stdout).status == 0)
        #expect(try other.run(["flag", "enabled", "on"]).status == 0)
    }

    @Test func evaluatingWithoutAStoreIsAUsageError() throws {
        let box = try Sandbox()
        expectFailure(try box.run(["flag", "eval", "x", "--type", "boolean", "--default", "false"]), 2, contains: "no store")
        expectFailure(try box.run(["flag", "enabled", "x"]), 2)
    }
}
