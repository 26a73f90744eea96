import Foundation
import Testing

@Suite("prefs flag", .timeLimit(.minutes(5)))
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
        let box = try Sandbox(inProcess: true)
        let result = try box.runOK(["flag", "import", "-"], stdin: Self.document)
        #expect(result.status == 0, "\(result)")
        return box
    }

    @Test func evalPrintsValueOrTheWholeResult() throws {
        let box = try imported()
        #expect(try box.runOK(["flag", "eval", "new-checkout", "--type", "boolean", "--default", "false"]).stdout == "false\n")
        let staff = try box.runOK([
            "flag", "eval", "new-checkout", "--type", "boolean", "--default", "false", "--context", "{\"email\":\"a@example.com\"}",
            "--json",
        ])
        #expect(
            staff.stdout
                == "{\"value\":true,\"variant\":\"on\",\"reason\":\"TARGETING_MATCH\",\"errorCode\":null,\"errorMessage\":null,\"metadata\":{\"flagSetId\":\"shop\",\"owner\":\"payments\"}}\n"
        )
        let missing = try box.runOK(["flag", "eval", "nope", "--type", "string", "--default", "plain text", "--json"])
        #expect(missing.status == 0, "an evaluation error is a result")
        #expect(
            missing.stdout.hasPrefix("{\"value\":\"plain text\",\"variant\":null,\"reason\":\"ERROR\",\"errorCode\":\"FLAG_NOT_FOUND\""))
        let disabled = try box.runOK(["flag", "eval", "limits", "--type", "object", "--default", "{\"n\":0}", "--json"])
        #expect(disabled.stdout.hasPrefix("{\"value\":{\"n\":0},\"variant\":null,\"reason\":\"DISABLED\""))
        let mismatch = try box.runOK(["flag", "eval", "banner", "--type", "integer", "--default", "3", "--targeting-key", "u1", "--json"])
        #expect(mismatch.stdout.contains("\"errorCode\":\"TYPE_MISMATCH\"") && mismatch.stdout.hasPrefix("{\"value\":3,"))
    }

    /// A targeting rule that would need 2^40 bytes (found by scripts/fuzz json-logic) is an
    /// evaluation error with the default value, not an out-of-memory crash.
    @Test func runawayTargetingIsAnError() throws {
        let box = try Sandbox(inProcess: true)
        let ones = Array(repeating: "1", count: 40).joined(separator: ",")
        let document = """
            {"flags": {"greedy": {"state": "ENABLED", "variants": {"a": "A", "b": "B"}, "defaultVariant": "a",
              "targeting": {"if": [{"reduce": [[\(ones)], {"cat": [{"var": "accumulator"}, {"var": "accumulator"}]}, "x"]}, "b", "a"]}}}}
            """
        try box.runOK(["flag", "import", "-"], stdin: document)
        let result = try box.runOK(["flag", "eval", "greedy", "--type", "string", "--default", "fallback", "--json"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.hasPrefix(#"{"value":"fallback","variant":null,"reason":"ERROR","errorCode":"GENERAL""#), "\(result)")
        #expect(result.stdout.contains("more than 2000000 steps"), "\(result)")
    }

    @Test func fractionalUsesTheTargetingKey() throws {
        let box = try imported()
        var seen = Set<String>()
        for i in 0..<40 {
            let value = try box.runOK(["flag", "eval", "banner", "--type", "string", "--default", "?", "--targeting-key", "user-\(i)"])
                .stdout
            seen.insert(value)
            #expect(
                try box.runOK([
                    "flag", "eval", "banner", "--type", "string", "--default", "?", "--context", "{\"targetingKey\":\"user-\(i)\"}",
                ]).stdout == value)
        }
        #expect(seen.isSubset(of: ["Hello\n", "Hi\n", "Hey\n", "Yo\n"]) && seen.count >= 3)
        let noKey = try box.runOK(["flag", "eval", "banner", "--type", "string", "--default", "?", "--json"]).stdout
        #expect(noKey.contains("\"reason\":\"DEFAULT\""), "no targeting key: fractional gives null")
        for version in ["1", "3"] {
            #expect(
                try box.runOK([
                    "flag", "eval", "banner", "--type", "string", "--default", "?", "--targeting-key", "u", "--fractional-version", version,
                ]).status == 0)
        }
        expectFailure(
            try box.runFailing(["flag", "eval", "banner", "--type", "string", "--default", "?", "--fractional-version", "4"], status: 2), 2)
    }

    @Test func enabledIsAShellCondition() throws {
        let box = try imported()
        try box.runOK(["flag", "enabled", "new-checkout", "--context", "{\"email\":\"ada@example.com\"}"])
        let off = try box.runFailing(["flag", "enabled", "new-checkout"], status: 1)
        #expect(off.status == 1 && off.stdout.isEmpty && off.stderr.isEmpty)
        try box.runFailing(["flag", "enabled", "missing"], status: 2)
        try box.runOK(["set", "switch", "plain", "true"])
        #expect(try box.runOK(["flag", "enabled", "plain"]).status == 0, "a plain true is a static flag")
        try box.runOK(["--override", "switch:new-checkout=true", "flag", "enabled", "new-checkout"])
    }

    @Test func badInputIsAnError() throws {
        let box = try imported()
        expectFailure(
            try box.runFailing(["flag", "eval", "banner", "--type", "string", "--default", "?", "--context", "{bad"], status: 6), 6,
            contains: "--context")
        expectFailure(
            try box.runFailing(["flag", "eval", "banner", "--type", "string", "--default", "?", "--context", "[1]"], status: 6), 6)
        expectFailure(try box.runFailing(["flag", "eval", "banner", "--type", "integer", "--default", "x"], status: 6), 6)
        expectFailure(try box.runFailing(["flag", "eval", "banner", "--type", "decimal", "--default", "1"], status: 2), 2)
        // Without --type the flag's own type reads the default (issue 30): not a usage error.
        try box.runOK(["flag", "eval", "banner", "--default", "1"])
        let before = try box.storeSnapshot()
        expectFailure(
            try box.runFailing(
                ["flag", "import"], status: 6,
                stdin: "{\"flags\":{\"x\":{\"state\":\"ENABLED\",\"variants\":{\"a\":1},\"defaultVariant\":\"b\"}}}"),
            6, contains: "$.flags.x.defaultVariant")
        #expect(try box.storeSnapshot() == before, "a bad document changes nothing")
    }

    @Test func listShowEnableDisable() throws {
        let box = try imported()
        #expect(
            try box.runOK(["flag", "list"]).stdout
                == "banner\tENABLED\tstring\ta\tyes\ta,b,c,d\nlimits\tDISABLED\tobject\tsmall\tno\tsmall,big\nnew-checkout\tENABLED\tboolean\toff\tyes\ton,off\n"
        )
        #expect(try box.runOK(["flag", "list", "--json"]).stdout.split(separator: "\n").count == 3)
        #expect(try box.runOK(["flag", "show", "limits"]).stdout.contains("\"state\": \"DISABLED\""))
        try box.runOK(["flag", "enable", "limits"])
        #expect(try box.runOK(["flag", "eval", "limits", "--type", "object", "--default", "{}"]).stdout == "{\"n\":1}\n")
        try box.runOK(["flag", "disable", "new-checkout"])
        try box.runFailing(["flag", "enabled", "new-checkout", "--context", "{\"email\":\"ada@example.com\"}"], status: 1)
        expectFailure(try box.runFailing(["flag", "enable", "missing"], status: 1), 1)
        #expect(try box.runOK(["log", "switch", "limits"]).stdout.contains("\tset\tswitch\tlimits\t"))
    }

    @Test func exportImportRoundTripKeepsEvaluations() throws {
        let box = try imported()
        try box.runOK(["set", "switch", "plain", "\"static text\""])
        let exported = try box.runOK(["flag", "export"])
        #expect(exported.status == 0)
        let other = try Sandbox(inProcess: true)
        try other.runOK(["flag", "import", "-"], stdin: exported.stdout)
        let cases: [[String]] = [
            ["new-checkout", "--type", "boolean", "--default", "false", "--context", "{\"email\":\"a@example.com\"}"],
            ["new-checkout", "--type", "boolean", "--default", "false"],
            ["banner", "--type", "string", "--default", "?", "--targeting-key", "k9"],
            ["limits", "--type", "object", "--default", "{}"], ["plain", "--type", "string", "--default", "?"],
        ]
        for arguments in cases {
            let a = try box.runOK(["flag", "eval"] + arguments).stdout
            let b = try other.runOK(["flag", "eval"] + arguments).stdout
            #expect(a == b, "\(arguments)")
        }
        #expect(try other.runOK(["flag", "export"]).stdout == exported.stdout)
    }

    @Test func replaceMakesTheFlagSetExactlyTheFile() throws {
        let box = try imported()
        try box.runOK(["set", "switch", "stale", "true"])
        let small = "{\"flags\":{\"only\":{\"state\":\"ENABLED\",\"variants\":{\"a\":true},\"defaultVariant\":\"a\"}}}"
        try box.runOK(["flag", "import", "--replace", "-"], stdin: small)
        #expect(try box.runOK(["flag", "list"]).stdout == "only\tENABLED\tboolean\ta\tno\ta\n")
    }
}

@Suite("prefs flag review cases", .timeLimit(.minutes(5)))
struct FlagCLIReviewTests {
    @Test func aPlainImportKeepsExistingEvaluators() throws {
        let box = try Sandbox(inProcess: true)
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
        try box.runOK(["flag", "import"], stdin: first)
        try box.runOK(["flag", "import"], stdin: second)
        try box.runOK(["flag", "enabled", "a", "--context", "{\"email\":\"x@example.com\"}"])
        try box.runOK(["flag", "enabled", "b", "--context", "{\"plan\":\"beta\"}"])
    }

    @Test func exportLeavesOutWhatFlagdCannotHoldAndStillRoundTrips() throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["set", "switch", "list", "[1,2]"])
        try box.runOK(["set", "switch", "on", "true"])
        let exported = try box.runOK(["flag", "export"])
        #expect(exported.status == 0 && exported.stderr.contains("switch/list is not exported"))
        let other = try Sandbox(inProcess: true)
        try other.runOK(["flag", "import", "--replace"], stdin: exported.stdout)
        try other.runOK(["flag", "enabled", "on"])
    }

    @Test func evaluatingWithoutAStoreIsAUsageError() throws {
        let box = try Sandbox(inProcess: true)
        expectFailure(
            try box.runFailing(["flag", "eval", "x", "--type", "boolean", "--default", "false"], status: 2), 2, contains: "no store")
        expectFailure(try box.runFailing(["flag", "enabled", "x"], status: 2), 2)
    }
}

/// Issue 16, finding 2: `$ref` expansion was exponential (each level referring twice to the
/// next), and every evaluation of any flag in `switch` then died.
@Suite("prefs flag $ref limits", .timeLimit(.minutes(5)))
struct FlagReferenceLimitTests {
    /// `e0` … `e39` where each refers twice to the next: 2 KB that expands to 2^40 nodes.
    static func doublingChain(levels: Int = 40) -> String {
        """
        {"$evaluators": \(doublingEvaluators(levels: levels)),
         "flags": {"bomb": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off",
                            "targeting": {"if": [{"$ref": "e0"}, "on", "off"]}}}}
        """
    }

    /// The `$evaluators` object of ``doublingChain(levels:)``.
    static func doublingEvaluators(levels: Int = 40) -> String {
        var evaluators = (0..<levels).map { #""e\#($0)": {"or": [{"$ref": "e\#($0 + 1)"}, {"$ref": "e\#($0 + 1)"}]}"# }
        evaluators.append(#""e\#(levels)": {"var": "x"}"#)
        return "{" + evaluators.joined(separator: ",\n") + "}"
    }

    static let plain = "{\"flags\":{\"beta\":{\"state\":\"ENABLED\",\"variants\":{\"on\":true,\"off\":false},\"defaultVariant\":\"on\"}}}"

    @Test func aDoublingChainIsRefusedAtImportWithThePathOfTheRef() throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["flag", "import", "-"], stdin: Self.plain)
        let before = try box.storeSnapshot()
        let result = try box.runFailing(["flag", "import", "-"], status: 6, stdin: Self.doublingChain())
        expectFailure(result, 6, contains: "standard input: $.$evaluators.e21.or[1]: $ref \"e22\" expands the rule beyond 1000000 nodes")
        #expect(try box.storeSnapshot() == before, "a refused document changes nothing")
        try box.runOK(["flag", "enabled", "beta"])
        expectFailure(
            try box.runFailing(["flag", "import", "--replace", "-"], status: 6, stdin: Self.doublingChain()), 6,
            contains: "$.$evaluators.e21.or[1]")
        #expect(try box.storeSnapshot() == before)
    }

    @Test func aDoublingChainIsRefusedByRefresh() throws {
        let box = try Sandbox(inProcess: true)
        let file = box.root + "/flags.json"
        try Data(Self.plain.utf8).write(to: URL(fileURLWithPath: file))
        try box.runOK(["refresh", "switch", "--from", file])
        try Data(Self.doublingChain().utf8).write(to: URL(fileURLWithPath: file))
        expectFailure(try box.runFailing(["refresh", "switch"], status: 7), 7, contains: "$.$evaluators.e21.or[1]")
        #expect(try box.runOK(["flag", "enabled", "beta"]).status == 0, "the last good copy is still served")
        #expect(try box.runOK(["flag", "list"]).stdout == "beta\tENABLED\tboolean\ton\tno\ton,off\n")
    }

    /// A plain key → value document for `switch` (no `flags`) gets the same check.
    @Test func aPlainRefreshDocumentWithADoublingChainIsRefused() throws {
        let box = try Sandbox(inProcess: true)
        let file = box.root + "/switch.json"
        try Data(#"{"beta": true}"#.utf8).write(to: URL(fileURLWithPath: file))
        try box.runOK(["refresh", "switch", "--from", file])
        let plain = #"{"$evaluators": \#(Self.doublingEvaluators()), "beta": false}"#
        try Data(plain.utf8).write(to: URL(fileURLWithPath: file))
        expectFailure(try box.runFailing(["refresh", "switch"], status: 7), 7, contains: #"$.$evaluators.e21.or[1]: $ref "e22" expands"#)
        #expect(try box.runOK(["flag", "enabled", "beta"]).status == 0, "the last good copy is still served")
        // Sound evaluators (e0 expands to 786,431 nodes), but a flag's rule refers to e0 twice.
        let flagged = """
            {"$evaluators": \(Self.doublingEvaluators(levels: 18)),
             "f": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off",
                   "targeting": {"or": [{"$ref": "e0"}, {"$ref": "e0"}]}}}
            """
        try Data(flagged.utf8).write(to: URL(fileURLWithPath: file))
        expectFailure(try box.runFailing(["refresh", "switch"], status: 7), 7, contains: #"$.f.targeting.or[1]: $ref "e0" expands"#)
        #expect(try box.runOK(["flag", "list"]).stdout == "beta\tENABLED\tboolean\tstatic\tno\ttrue\n")
    }

    /// A chain 10,000 `$ref`s deep, a cycle and 10,000 nested arrays: refused with a path,
    /// never a crash.
    @Test func deepChainsCyclesAndNestingAreRefused() throws {
        let box = try Sandbox(inProcess: true)
        var chain = (0..<10_000).map { #""d\#($0)": {"!": {"$ref": "d\#($0 + 1)"}}"# }
        chain.append(#""d10000": true"#)
        let deep = """
            {"$evaluators": {\(chain.joined(separator: ","))},
             "flags": {"f": {"state": "ENABLED", "variants": {"on": true}, "targeting": {"if": [{"$ref": "d0"}, "on", null]}}}}
            """
        expectFailure(
            try box.runFailing(["flag", "import", "-"], status: 6, stdin: deep), 6,
            contains: "$.$evaluators.d511[\"!\"]: $ref \"d512\" nests the rule deeper than 512 levels")
        let cycle = """
            {"$evaluators": {"a": {"or": [{"var": "x"}, {"$ref": "b"}]}, "b": {"!": {"$ref": "a"}}},
             "flags": {"f": {"state": "ENABLED", "variants": {"on": true}, "targeting": {"if": [{"$ref": "a"}, "on", null]}}}}
            """
        expectFailure(
            try box.runFailing(["flag", "import", "-"], status: 6, stdin: cycle), 6,
            contains: "$.$evaluators.b[\"!\"]: $ref \"a\" forms a cycle")
        let nested = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        let arrays = "{\"flags\": {\"f\": {\"state\": \"ENABLED\", \"variants\": {\"on\": true}, \"targeting\": {\"if\": \(nested)}}}}"
        expectFailure(try box.runFailing(["flag", "import", "-"], status: 6, stdin: arrays), 6)
        #expect(try box.runOK(["flag", "list"]).stdout.isEmpty)
    }
}

/// Issue 17: bucketing as current flagd providers do, and the targeting key's spellings.
@Suite("prefs flag conformance", .timeLimit(.minutes(5)))
struct FlagConformanceTests {
    func evaluations(_ box: Sandbox, _ extra: [String] = []) throws -> [String] {
        try (0..<24).map { i in
            let result = try box.runOK(
                ["flag", "eval", "banner", "--type", "string", "--default", "?", "--targeting-key", "user-\(i)"] + extra)
            #expect(result.status == 0, "\(result)")
            return result.stdout
        }
    }

    @Test func fractionalHashingIsV3UnlessTheStoreOrTheInvocationSaysOtherwise() throws {
        let box = try FlagCLITests().imported()
        let v1 = try evaluations(box, ["--fractional-version", "1"])
        let v2 = try evaluations(box, ["--fractional-version", "2"])
        let v3 = try evaluations(box, ["--fractional-version", "3"])
        #expect(v2 != v3 && v1 != v3, "the versions bucket differently")
        #expect(try evaluations(box) == v3, "v3 is the default")
        #expect(try box.runOK(["flag", "config", "fractional-version"]).stdout == "3\n")
        #expect(try box.runOK(["flag", "list", "--json"]).stdout.contains(#""fractionalVersion":3}"#))
        #expect(try box.runOK(["doctor"]).stdout.contains("ok\tflags\tfractional hashing version 3 (the default)\n"))

        let set = try box.runOK(["flag", "config", "fractional-version", "2"])
        #expect(set.status == 0 && set.stdout.isEmpty && set.stderr.isEmpty, "\(set)")
        #expect(try box.runOK(["flag", "config", "fractional-version"]).stdout == "2\n")
        #expect(try evaluations(box) == v2, "the store setting applies")
        #expect(try evaluations(box, ["--fractional-version", "3"]) == v3, "the invocation wins over the store")
        #expect(try evaluations(box, ["--fractional-version", "1"]) == v1)
        #expect(try box.runOK(["flag", "list", "--json"]).stdout.contains(#""fractionalVersion":2}"#))
        #expect(
            try box.runOK(["doctor"]).stdout.contains("ok\tflags\tfractional hashing version 2 (prefs flag config fractional-version)\n"))
        let user = try box.runFailing(["flag", "enabled", "new-checkout", "--targeting-key", "u", "--fractional-version", "1"], status: 1)
        #expect(user.status == 1 && user.stderr.isEmpty, "\(user)")

        let before = try box.storeSnapshot()
        expectFailure(try box.runFailing(["flag", "config", "fractional-version", "4"], status: 2), 2, contains: "1, 2 or 3")
        expectFailure(try box.runFailing(["flag", "config", "hashing", "2"], status: 2), 2, contains: "fractional-version")
        expectFailure(try box.runFailing(["flag", "config", "fractional-version", "2", "--unset"], status: 2), 2)
        #expect(try box.storeSnapshot() == before)
        try box.runOK(["flag", "config", "fractional-version", "--unset"])
        #expect(try box.runOK(["flag", "config", "fractional-version"]).stdout == "3\n")
        #expect(try evaluations(box) == v3)
    }

    @Test func theTargetingKeyMayBeEmptyOrStartWithADash() throws {
        let box = try FlagCLITests().imported()
        let document = """
            {"flags": {"who": {"state": "ENABLED", "variants": {"absent": "absent", "present": "present"}, "defaultVariant": "absent",
              "targeting": {"if": [{"==": [{"var": "targetingKey"}, null]}, "absent", {"cat": ["key=", {"var": "targetingKey"}]}]}}}}
            """
        try box.runOK(["flag", "import", "-"], stdin: document)
        func who(_ arguments: [String]) throws -> RunResult {
            try box.runOK(["flag", "eval", "who", "--type", "string", "--default", "?", "--json"] + arguments)
        }
        // A key starting with "-", both spellings: the rule sees it.
        for arguments in [["--targeting-key", "-x"], ["--targeting-key=-x"], ["--context", #"{"targetingKey":"-x"}"#]] {
            let result = try who(arguments)
            #expect(
                result.status == 0 && result.stdout.contains(#""errorMessage":"targeting returned \"key=-x\""#), "\(arguments) \(result)")
        }
        let dash = try box.runOK(["flag", "eval", "banner", "--type", "string", "--default", "?", "--targeting-key", "-x"])
        let dashContext = try box.runOK([
            "flag", "eval", "banner", "--type", "string", "--default", "?", "--context", #"{"targetingKey":"-x"}"#,
        ])
        #expect(dash.status == 0 && dash.stdout == dashContext.stdout && dash.stdout != "?\n", "\(dash)")
        try box.runFailing(["flag", "enabled", "new-checkout", "--targeting-key", "--x"], status: 1)
        // An empty key, both spellings, is absent: the rule sees no targetingKey, fractional
        // has nothing to bucket, and the context's key is not overridden.
        for arguments in [["--targeting-key", ""], ["--targeting-key="], ["--context", #"{"targetingKey":""}"#]] {
            let result = try who(arguments)
            #expect(
                result.status == 0 && result.stdout.hasPrefix(#"{"value":"absent","variant":"absent","reason":"TARGETING_MATCH""#),
                "\(arguments) \(result)")
            let banner = try box.runOK(["flag", "eval", "banner", "--type", "string", "--default", "?", "--json"] + arguments)
            #expect(
                banner.status == 0 && banner.stdout.hasPrefix(#"{"value":"Hello","variant":"a","reason":"DEFAULT""#),
                "\(arguments) \(banner)")
        }
        #expect(
            try box.runOK(["flag", "enabled", "new-checkout", "--targeting-key", "", "--context", #"{"email":"a@example.com"}"#]).status
                == 0)
        #expect(
            try box.runOK(["flag", "enabled", "new-checkout", "--targeting-key=", "--context", #"{"email":"a@example.com"}"#]).status == 0)
        let kept = try who(["--context", #"{"targetingKey":"ctx"}"#, "--targeting-key="])
        #expect(kept.stdout.contains(#"targeting returned \"key=ctx\""#), "\(kept)")
        let keptSpaced = try who(["--targeting-key", "", "--context", #"{"targetingKey":"ctx"}"#])
        #expect(keptSpaced.stdout.contains(#"targeting returned \"key=ctx\""#), "\(keptSpaced)")
    }
}
