import Foundation
import PrefsTestSupport
import Testing

/// Issue 21: `prefs flag explain`, `diff`, `stats` and `lint` as a user runs them.
@Suite("prefs flag explain, diff, stats, lint", .timeLimit(.minutes(5)), .ownThreads)
struct FlagInspectionCLITests {
    static let examples = repositoryRoot + "/examples"

    func example(_ name: String) -> String { Self.examples + "/" + name }

    func imported() throws -> Sandbox {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["flag", "import", "-"], stdin: FlagCLITests.document)
        return box
    }

    @Test func explainEndsWithWhatEvalGives() throws {
        let box = try imported()
        for (key, type, fallback) in [("new-checkout", "boolean", "false"), ("banner", "string", "x"), ("limits", "object", "{}")] {
            for context in ["{}", #"{"email":"a@example.com"}"#, #"{"targetingKey":"u7"}"#] {
                let eval = try box.runOK(["flag", "eval", key, "--type", type, "--default", fallback, "--context", context, "--json"])
                let explain = try box.runOK(["flag", "explain", key, "--type", type, "--default", fallback, "--context", context, "--json"])
                let evaluated = try JSONSerialization.jsonObject(with: Data(eval.stdout.utf8)) as? [String: Any] ?? [:]
                let explained = try JSONSerialization.jsonObject(with: Data(explain.stdout.utf8)) as? [String: Any] ?? [:]
                let fields = ["value", "variant", "reason", "errorCode", "errorMessage", "metadata"]
                func canonical(_ object: [String: Any]) throws -> String {
                    let picked = Dictionary(uniqueKeysWithValues: fields.map { ($0, object[$0] ?? "absent") })
                    return String(decoding: try JSONSerialization.data(withJSONObject: picked, options: [.sortedKeys]), as: UTF8.self)
                }
                #expect(try canonical(evaluated) == canonical(explained), "\(key) \(context): \(explain.stdout)")
                #expect(evaluated["reason"] != nil, "\(eval)")
            }
        }
        let text = try box.runOK(["flag", "explain", "new-checkout", "--context", #"{"email":"ada@example.com"}"#])
        #expect(text.stdout.contains("$ref \"is_staff\" → true"), "\(text)")
        #expect(text.stdout.contains("reason   TARGETING_MATCH"), "\(text)")
        let split = try box.runOK(["flag", "explain", "banner", "--targeting-key", "user-1"])
        #expect(split.stdout.contains("bucketing value [\"banner\",\"user-1\"]") && split.stdout.contains("hash "), "\(split)")
        let file = box.root + "/context.json"
        try #"{"email":"x@example.com"}"#.write(toFile: file, atomically: true, encoding: .utf8)
        let fromFile = try box.runOK(["flag", "explain", "new-checkout", "--context", "@" + file, "--json"])
        #expect(fromFile.stdout.contains(#""variant":"on""#), "\(fromFile)")
    }

    @Test func explainRefusesBadInputWithExitCodes() throws {
        let box = try imported()
        let notObject = try box.runFailing(["flag", "explain", "banner", "--context", "[1]"], status: 6)
        #expect(notObject.status == 6 && notObject.stderr.contains("must be a JSON object"), "\(notObject)")
        let huge = box.root + "/huge.json"
        try ("{\"a\":\"" + String(repeating: "x", count: 1 << 20) + "\"}").write(toFile: huge, atomically: true, encoding: .utf8)
        let tooBig = try box.runFailing(["flag", "explain", "banner", "--context", "@" + huge], status: 6)
        #expect(tooBig.status == 6 && tooBig.stderr.contains("longer than 1048576 bytes"), "\(tooBig)")
        let deep = try box.runFailing(
            [
                "flag", "explain", "banner", "--context",
                String(repeating: "{\"a\":", count: 600) + "1" + String(repeating: "}", count: 600),
            ], status: 6)
        #expect(deep.status == 6, "\(deep)")
        let noStore = try Sandbox(inProcess: true).runFailing(["flag", "explain", "banner"], status: 2)
        #expect(noStore.status == 2 && noStore.stderr.contains("import flags first"), "\(noStore)")
        let missingFile = try box.runFailing(["flag", "explain", "banner", "--context", "@" + box.root + "/nope.json"], status: 2)
        #expect(missingFile.status == 2, "\(missingFile)")
        let defaultWithoutType = try box.runFailing(["flag", "explain", "banner", "--default", "x"], status: 2)
        #expect(defaultWithoutType.status == 2, "\(defaultWithoutType)")
        let unknown = try box.runOK(["flag", "explain", "nope", "--json"])
        #expect(unknown.stdout.contains(#""errorCode":"FLAG_NOT_FOUND""#), "\(unknown)")
    }

    /// A `$ref` chain as deep as an import accepts (505 evaluators, each `!` of the next):
    /// explain, lint and diff run it without exhausting the stack.
    @Test func deepReferenceChainsAreExplained() throws {
        let box = try Sandbox(inProcess: true)
        var evaluators = (0..<505).map { "\"d\($0)\": {\"!\": {\"$ref\": \"d\($0 + 1)\"}}" }
        evaluators.append("\"d505\": true")
        let document = """
            {"$evaluators": {\(evaluators.joined(separator: ", "))},
             "flags": {"d": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off",
                             "targeting": {"if": [{"$ref": "d0"}, "on", "off"]}}}}
            """
        let file = box.root + "/deep.json"
        try document.write(toFile: file, atomically: true, encoding: .utf8)
        try box.runOK(["flag", "import", file])
        let eval = try box.runOK(["flag", "eval", "d", "--type", "boolean", "--default", "true", "--json"])
        let explain = try box.runOK(["flag", "explain", "d", "--type", "boolean", "--default", "true", "--json"])
        #expect(eval.stdout.hasPrefix(#"{"value":false,"variant":"off","reason":"TARGETING_MATCH""#), "\(eval)")
        #expect(
            explain.stdout.hasPrefix(#"{"flag":"d","value":false,"variant":"off","reason":"TARGETING_MATCH""#),
            "\(explain.stdout.prefix(300))")
        let text = try box.runOK(["flag", "explain", "d", "--document", file])
        #expect(text.stdout.contains("$ref \"d504\"") && text.stdout.hasSuffix("reason   TARGETING_MATCH\n"), "\(text.stdout.suffix(300))")
        try box.runOK(["flag", "lint", file])
        try box.runOK(["flag", "diff", "@store", file, "--synthetic", "100"])
    }

    @Test func diffReportsMovesAndExitCodes() throws {
        let box = try Sandbox(inProcess: true)
        let same = try box.runOK(["flag", "diff", example("flags.json"), example("flags.json"), "--synthetic", "1000"])
        #expect(same.status == 0 && same.stdout == "1000 contexts, 3 flags\nunchanged: 3 flags\n", "\(same)")
        let changed = try box.runFailing(
            ["flag", "diff", example("flags.json"), example("flags-next.json"), "--synthetic", "10000"], status: 1)
        #expect(changed.status == 1, "\(changed)")
        #expect(changed.stdout.contains("changed new-checkout: "), "\(changed)")
        #expect(changed.stdout.contains("* off → on"), "\(changed)")
        let again = try box.runFailing(
            ["flag", "diff", example("flags.json"), example("flags-next.json"), "--synthetic", "10000"], status: 1)
        #expect(again.stdout == changed.stdout, "seeded: the same output")
        let seeded = try box.runFailing(
            ["flag", "diff", example("flags.json"), example("flags-next.json"), "--synthetic", "10000", "--seed", "9"], status: 1)
        #expect(seeded.status == 1 && seeded.stdout != changed.stdout)
        let json = try box.runFailing(
            [
                "flag", "diff", example("flags.json"), example("flags-next.json"), "--contexts", example("contexts.jsonl"), "--json",
            ], status: 1)
        #expect(json.status == 1, "\(json)")
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect(object?["contexts"] as? Int == 6 && object?["changed"] as? Bool == true, "\(json)")
        // @store is the switch domain: after importing NEW, store vs NEW is no change.
        try box.runOK(["flag", "import", example("flags-next.json")])
        let store = try box.runOK(["flag", "diff", "@store", example("flags-next.json"), "--contexts", example("contexts.jsonl")])
        #expect(store.status == 0, "\(store)")
        let fromStdin = try box.runFailing(["flag", "diff", "@store", "-", "--synthetic", "10"], status: 1, stdin: "{\"flags\":{}}")
        #expect(fromStdin.status == 1 && fromStdin.stdout.contains("removed new-checkout"), "\(fromStdin)")
    }

    @Test func diffRefusesInvalidInputWithExitSix() throws {
        let box = try Sandbox(inProcess: true)
        let contexts = box.root + "/c.jsonl"
        try "{\"targetingKey\":\"a\"}\n\n{\"targetingKey\":\n".write(toFile: contexts, atomically: true, encoding: .utf8)
        let badLine = try box.runFailing(
            ["flag", "diff", example("flags.json"), example("flags-next.json"), "--contexts", contexts], status: 6)
        #expect(badLine.status == 6 && badLine.stderr.contains("c.jsonl:3: invalid JSON"), "\(badLine)")
        let badDocument = try box.runFailing(
            ["flag", "diff", example("flags.json"), "-", "--synthetic", "5"], status: 6, stdin: "{\"flags\":{\"f\":{}}}")
        #expect(badDocument.status == 6 && badDocument.stderr.contains("standard input: $.flags.f"), "\(badDocument)")
        let neither = try box.runFailing(["flag", "diff", example("flags.json"), example("flags.json")], status: 2)
        #expect(neither.status == 2, "\(neither)")
        let zero = try box.runFailing(["flag", "diff", example("flags.json"), example("flags.json"), "--synthetic", "0"], status: 6)
        #expect(zero.status == 6, "\(zero)")
        // A 1 MiB context line: refused with its line, in bounded time.
        try ("{}\n{\"a\":\"" + String(repeating: "x", count: 1 << 20) + "\"}\n").write(toFile: contexts, atomically: true, encoding: .utf8)
        let huge = try box.runFailing(
            ["flag", "diff", example("flags.json"), example("flags-next.json"), "--contexts", contexts], status: 6)
        #expect(huge.status == 6 && huge.stderr.contains("c.jsonl:2: a context longer than 1048576 bytes"), "\(huge)")
    }

    @Test func statsPrintsCountsOrAChart() throws {
        let box = try Sandbox(inProcess: true)
        let plain = try box.runOK(["flag", "stats", "new-checkout", "--document", example("flags.json"), "--synthetic", "10000"])
        let rows = plain.stdout.split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }
        #expect(rows.map(\.first) == ["off", "on"], "\(plain)")
        #expect(rows.map { $0.last } == ["80", "20"], "configured shares: \(plain)")
        if let on = rows.last, on.count == 4, let count = Int(on[1]) { #expect(abs(count - 2000) < 150, "\(plain)") }
        let json = try box.runOK(["flag", "stats", "new-checkout", "--document", example("flags.json"), "--synthetic", "100", "--json"])
        #expect(json.stdout.hasPrefix(#"{"flag":"new-checkout","contexts":100,"variants":[{"outcome":"off""#), "\(json)")
        // On a terminal: bars (script gives the command a pseudo-terminal).
        let command = [Sandbox.binary, "flag", "stats", "new-checkout", "--document", example("flags.json"), "--synthetic", "1000"]
        let tty = try Sandbox.exec(
            "/usr/bin/script", ["-qec", command.joined(separator: " "), "/dev/null"], stdin: nil, environment: box.environment())
        #expect(tty.status == 0 && tty.stdout.contains("█") && tty.stdout.contains("(configured 20%)"), "\(tty)")
        let missing = try box.runFailing(["flag", "stats", "nope", "--document", example("flags.json"), "--synthetic", "10"], status: 1)
        #expect(missing.status == 1, "\(missing)")
    }

    @Test func lintFormatsAndExitCodes() throws {
        let box = try Sandbox(inProcess: true)
        let clean = try box.runOK(["flag", "lint", example("flags-next.json")])
        #expect(clean.status == 0, "warnings only: \(clean)")
        let document = """
            {"flags": {
              "f": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off",
                    "targeting": {"if": [{"var": "beta"}, "onn", "off"]}}
            }}
            """
        let file = box.root + "/flags.json"
        try document.write(toFile: file, atomically: true, encoding: .utf8)
        let text = try box.runFailing(["flag", "lint", file], status: 1)
        #expect(text.status == 1, "\(text)")
        #expect(text.stdout.contains(file + ":3:47: error: the targeting of \"f\" returns \"onn\", which is not a variant"), "\(text)")
        #expect(text.stdout.contains("warning: variant \"on\" of \"f\" is neither the default"), "\(text)")
        let github = try box.runFailing(["flag", "lint", file, "--format", "github"], status: 1)
        #expect(
            github.status == 1 && github.stdout.contains("::error file=\(file),line=3,col=47,title=prefs flag lint%3A unknown-variant::"),
            "\(github)")
        let json = try box.runFailing(["flag", "lint", file, "--format", "json"], status: 1)
        let findings = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]]
        #expect(
            json.status == 1 && findings?.count == 2
                && findings?.contains { $0["line"] as? Int == 3 && $0["severity"] as? String == "error" } == true, "\(json)")
        // @store: a DISABLED flag never enabled.
        try box.runOK(
            ["flag", "import", "-"], stdin: #"{"flags":{"d":{"state":"DISABLED","variants":{"on":true},"defaultVariant":"on"}}}"#)
        let store = try box.runOK(["flag", "lint"])
        #expect(store.status == 0 && store.stdout.contains("never-enabled"), "\(store)")
        try box.runOK(["flag", "enable", "d"])
        try box.runOK(["flag", "disable", "d"])
        let enabledOnce = try box.runOK(["flag", "lint", "@store"])
        #expect(enabledOnce.status == 0 && enabledOnce.stdout.isEmpty, "\(enabledOnce)")
        let badFormat = try box.runFailing(["flag", "lint", file, "--format", "xml"], status: 2)
        #expect(badFormat.status == 2, "\(badFormat)")
    }
}

/// Issue 30: a flag file written for current flagd (`lower`, `upper`, `rollout`) imports,
/// evaluates, explains and lints.
@Suite("prefs flag: flagd's lower, upper and rollout", .timeLimit(.minutes(5)))
struct FlagdOperatorCLITests {
    @Test func aFileWithLowerUpperAndRolloutImportsEvaluatesExplainsAndLints() throws {
        let box = try Sandbox(inProcess: true)
        let now = Int(Date().timeIntervalSince1970)
        // A window around now: the rollout is under way, a user lands on one side or the other.
        let document = """
            {"flags": {
              "search": {"state": "ENABLED", "variants": {"classic": "classic", "vector": "vector"}, "defaultVariant": "classic",
                "targeting": {"if": [{"==": [{"upper": {"var": "country"}}, "DE"]}, "vector",
                                     {"rollout": [\(now - 50_000), \(now + 50_000), "classic", "vector"]}]}},
              "staff": {"state": "ENABLED", "variants": {"yes": true, "no": false}, "defaultVariant": "no",
                "targeting": {"if": [{"ends_with": [{"lower": [{"var": "email"}]}, "@example.com"]}, "yes", null]}},
              "done": {"state": "ENABLED", "variants": {"old": 1, "new": 2}, "defaultVariant": "old",
                "targeting": {"rollout": [1704067200, 1706745600, "new"]}}
            }}
            """
        let imported = try box.runOK(["flag", "import", "-"], stdin: document)
        #expect(imported.status == 0 && imported.stderr.isEmpty, "\(imported)")
        #expect(try box.runOK(["flag", "eval", "search", "--context", #"{"country":"de"}"#]).stdout == "vector\n")
        #expect(try box.runOK(["flag", "eval", "staff", "--context", #"{"email":"Ada@EXAMPLE.com"}"#]).stdout == "true\n")
        #expect(try box.runOK(["flag", "eval", "staff", "--context", #"{"email":"ada@example.org"}"#]).stdout == "false\n")
        #expect(try box.runOK(["flag", "eval", "done", "--targeting-key", "u1"]).stdout == "2\n", "the window is over: everyone rolled")

        // Under way: about half of the users rolled, each the same every time.
        var rolled = 0
        for user in 0..<40 {
            let first = try box.runOK(["flag", "eval", "search", "--targeting-key", "user-\(user)"]).stdout
            #expect(try box.runOK(["flag", "eval", "search", "--targeting-key", "user-\(user)"]).stdout == first)
            if first == "vector\n" { rolled += 1 }
        }
        #expect((8...32).contains(rolled), "\(rolled) of 40 rolled halfway through the window")

        let explain = try box.runOK(["flag", "explain", "search", "--targeting-key", "user-1"])
        #expect(explain.stdout.contains("rollout → "), "\(explain)")
        #expect(
            explain.stdout.contains("s elapsed (")
                && explain.stdout.contains("bucketing value \"searchuser-1\" (flag key and targetingKey)"), "\(explain)")
        #expect(explain.stdout.contains("bucket ") && explain.stdout.contains("side won: "), "\(explain)")
        let json = try box.runOK(["flag", "explain", "search", "--targeting-key", "user-1", "--json"])
        #expect(json.stdout.contains(#""duration":100000"#) && json.stdout.contains(#""side":"#), "\(json)")

        // lint: arity and operand types, each with its JSON path and line:column.
        let bad = """
            {"flags": {"f": {"state": "ENABLED", "variants": {"a": "a", "b": "b"}, "defaultVariant": "a",
              "targeting": {"if": [{"==": [{"lower": ["x", "y"]}, "x"]}, "a",
                                   {"rollout": ["seed", 1704067200, 1706745600, "a", "b"]}]}},
             "g": {"state": "ENABLED", "variants": {"a": "a", "b": "b"}, "defaultVariant": "a",
              "targeting": {"rollout": [1706745600, 1704067200, "b"]}}}}
            """
        let file = box.root + "/bad.json"
        try bad.write(toFile: file, atomically: true, encoding: .utf8)
        let lint = try box.runFailing(["flag", "lint", file], status: 1)
        #expect(lint.status == 1, "\(lint)")
        #expect(
            lint.stdout.contains(
                #"bad.json:2:42: error: lower takes one operand, not 2: it returns null [arity] $.flags.f.targeting.if[0]["=="][0].lower"#),
            "\(lint)")
        #expect(lint.stdout.contains("bad.json:3:37: error: rollout's first operand \"seed\" is a literal string"), "\(lint)")
        #expect(
            lint.stdout.contains(
                "bad.json:5:41: error: rollout's end time is not after its start time: it returns null [rollout-window] $.flags.g.targeting.rollout[1]"
            ), "\(lint)")
        #expect(lint.stderr == "prefs: 3 errors, 0 warnings\n", "\(lint)")
    }
}
