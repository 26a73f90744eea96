import Foundation
import Testing

/// `flag eval`, `enabled` and `explain` read and compile only the flag asked for (with the
/// `$evaluators` it names and the flag-set metadata), so its answer and its cost do not depend
/// on the other flags of `switch` (issue 30, item 5).
@Suite("one flag among many", .timeLimit(.minutes(5)))
struct FlagCostTests {
    static let evaluators =
        #"{"is_staff": {"ends_with": [{"var": "email"}, "@example.com"]}, "beta": {"in": [{"var": "tier"}, ["gold", "beta"]]}}"#
    static let target = """
        "new-checkout": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off",
          "targeting": {"if": [{"$ref": "is_staff"}, "on", {"fractional": [["on", 30], ["off", 70]]}]}, "metadata": {"owner": "payments"}}
        """

    /// A flagd document with the target flag and `others` more, some of them naming an evaluator.
    static func document(others: Int) -> String {
        var flags = [target]
        for index in 0..<others {
            let rule = index % 3 == 0 ? #", "targeting": {"if": [{"$ref": "beta"}, "b", null]}"# : ""
            flags.append(#""flag-\#(index)": {"state": "ENABLED", "variants": {"a": \#(index), "b": -1}, "defaultVariant": "a"\#(rule)}"#)
        }
        return #"{"metadata": {"flagSetId": "shop"}, "$evaluators": \#(evaluators), "flags": {\#(flags.joined(separator: ",\n"))}}"#
    }

    static func store(others: Int) throws -> Sandbox {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["flag", "import", "-"], stdin: document(others: others))
        return box
    }

    /// Every way to ask for the target flag, with the contexts that take each branch.
    static let questions: [[String]] = {
        var result: [[String]] = []
        for context in [#"{"email":"ada@example.com"}"#, #"{"email":"bob@mail.org"}"#, "{}"] {
            for key in ["user-1", "user-2", "user-3", "user-4"] {
                result.append(["flag", "eval", "new-checkout", "--json", "--context", context, "--targeting-key", key])
                result.append(["flag", "enabled", "new-checkout", "--context", context, "--targeting-key", key])
            }
        }
        result.append(["flag", "explain", "new-checkout", "--json", "--context", #"{"email":"bob@mail.org"}"#, "--targeting-key", "u"])
        result.append(["flag", "eval", "new-checkout", "--type", "string", "--default", "x", "--json"])
        result.append(["flag", "eval", "new-checkout", "--fractional-version", "2", "--targeting-key", "user-3", "--json"])
        return result
    }()

    /// Runs `prefs --store STORE QUESTION` as `box` runs its commands (in this process unless
    /// `PREFS_TEST_IN_PROCESS=0`), whatever its exit status (`flag enabled` answers with it).
    static func ask(_ box: Sandbox, _ question: [String]) throws -> RunResult {
        let arguments = ["--store", box.store] + question
        guard box.inProcess else { return try Sandbox.exec(Sandbox.binary, arguments, stdin: nil, environment: box.environment()) }
        return Sandbox.runInProcess(arguments, stdin: nil, environment: box.environment())
    }

    @Test func theAnswerForOneFlagIsTheSameWithOneOrFiveThousandFlags() throws {
        let alone = try Self.store(others: 0)
        let crowded = try Self.store(others: 4_999)
        #expect(try crowded.runOK(["flag", "list"]).stdout.split(separator: "\n").count == 5_000)
        var answers: Set<String> = []
        // explain shows $flagd.timestamp: the two runs may fall in different seconds.
        func timeless(_ text: String) -> String {
            text.replacingOccurrences(of: #""timestamp":[0-9]+"#, with: #""timestamp":T"#, options: .regularExpression)
        }
        for question in Self.questions {
            // `flag enabled` answers with its status (0 enabled, 1 not): compared, not fixed.
            let one = try Self.ask(alone, question)
            let many = try Self.ask(crowded, question)
            #expect(
                one.status == many.status && timeless(one.stdout) == timeless(many.stdout) && one.stderr == many.stderr,
                "\(question): \(one) / \(many)")
            #expect(one.status == 0 || question[1] == "enabled", "\(question): \(one)")
            answers.insert(one.stdout)
        }
        // The questions take different branches (staff, fractional on and off, default).
        #expect(answers.contains { $0.contains(#""variant":"on","reason":"TARGETING_MATCH""#) })
        #expect(answers.contains { $0.contains(#""variant":"off","reason":"TARGETING_MATCH""#) })
        // Another flag, and one that is not there, answer as before too.
        let other = try crowded.run(["flag", "eval", "flag-3", "--context", #"{"tier":"gold"}"#], expecting: 0)
        #expect(other.status == 0 && other.stdout == "-1\n", "\(other)")
        let typo = try crowded.run(["flag", "eval", "flag-49999", "--default", "0"], expecting: 0)
        #expect(typo.status == 0 && typo.stdout == "0\n", "\(typo)")
        #expect(typo.stderr.hasPrefix("prefs: warning: flag 'flag-49999' not found, answered the default; did you mean 'flag-"), "\(typo)")
    }

    /// A flag that is not there is named with its nearest flag from the flags' names alone:
    /// no other flag is parsed, so a damaged flag does not stop the answer (before, the
    /// did-you-mean parsed every flag: exit 3 here, and 112x the cost at 5,000 flags), and
    /// the names are those `flag list` shows (an override's included, an expired key's not).
    @Test(.enabled(if: sqliteShell != nil, "needs the sqlite3 shell (apt install sqlite3)"))
    func aMissingFlagIsNamedFromTheNamesAlone() throws {
        let box = try Self.store(others: 10)
        try sqlite(box.store, "UPDATE kv_switch SET value = '{not json' WHERE key = 'flag-5'")
        let eval = try box.run(["flag", "eval", "flag-55", "--default", "0"], expecting: 0)
        #expect(eval.status == 0 && eval.stdout == "0\n", "\(eval)")
        #expect(eval.stderr == "prefs: warning: flag 'flag-55' not found, answered the default; did you mean 'flag-5'?\n", "\(eval)")
        let strict = try box.run(["flag", "eval", "flag-55"], expecting: 1)
        #expect(strict.status == 1 && strict.stderr == "prefs: flag 'flag-55' not found; did you mean 'flag-5'?\n", "\(strict)")
        let enabled = try box.run(["flag", "enabled", "flag-55"], expecting: 2)
        #expect(enabled.status == 2 && enabled.stderr == "prefs: flag 'flag-55' not found; did you mean 'flag-5'?\n", "\(enabled)")
        // An override is a flag; an expired key is not.
        let overridden = try box.run(
            ["--override", "switch:brand-new=1", "flag", "eval", "brand-nex", "--default", "0"], expecting: 0)
        #expect(
            overridden.stderr == "prefs: warning: flag 'brand-nex' not found, answered the default; did you mean 'brand-new'?\n",
            "\(overridden)")
        let near = try box.run(["flag", "eval", "new-checkoux", "--default", "0"], expecting: 0)
        #expect(near.stderr.hasSuffix("; did you mean 'new-checkout'?\n"), "\(near)")
        try sqlite(box.store, "UPDATE kv_switch SET expires_at = 1 WHERE key = 'new-checkout'")
        let expired = try box.run(["flag", "eval", "new-checkoux", "--default", "0"], expecting: 0)
        #expect(expired.stderr == "prefs: warning: flag 'new-checkoux' not found, answered the default\n", "\(expired)")
    }

    /// An override (`--override switch:KEY=…`) is a flag and a schema default of a `switch` key
    /// is not (issue 38: one rule for what is a flag), as `flag list` shows them, whether or not
    /// the other flags are read.
    @Test func overridesAndSchemaDefaultsAnswerAsFlagList() throws {
        let box = try Self.store(others: 3)
        let overridden = try box.runOK([
            "--override", #"switch:flag-1={"state":"ENABLED","variants":{"x":"over"},"defaultVariant":"x"}"#, "flag", "eval", "flag-1",
        ])
        #expect(overridden.status == 0 && overridden.stdout == "over\n", "\(overridden)")
        let evaluators = try box.runOK([
            "--override", #"switch:$evaluators={"is_staff":{"==":[1,1]}}"#, "flag", "eval", "new-checkout", "--targeting-key", "u",
        ])
        #expect(evaluators.status == 0 && evaluators.stdout == "true\n", "\(evaluators)")
        let schema = box.root + "/schema.json"
        try #"{"switch": {"max-retries": {"type": "integer", "default": 3}}}"#.write(toFile: schema, atomically: true, encoding: .utf8)
        try box.runOK(["schema", "load", schema])
        let fromSchema = try box.run(["flag", "eval", "max-retries", "--json"], expecting: 1)
        #expect(fromSchema.status == 1 && fromSchema.stderr.hasPrefix("prefs: flag 'max-retries' not found"), "\(fromSchema)")
        #expect(try !box.runOK(["flag", "list"]).stdout.contains("max-retries"))
        let overriddenDefault = try box.runOK(["--override", "switch:max-retries=5", "flag", "eval", "max-retries", "--json"])
        #expect(
            overriddenDefault.stdout
                == #"{"value":5,"variant":"static","reason":"STATIC","errorCode":null,"errorMessage":null,"metadata":{"flagSetId":"shop"}}"#
                + "\n",
            "\(overriddenDefault)")
    }

    /// A broken flag or evaluator that the flag does not name changes nothing for it: each
    /// flag's targeting is compiled on its own (as it always was), and the broken one answers
    /// PARSE_ERROR only for itself.
    @Test func anUnreferencedBrokenFlagDoesNotChangeTheAnswer() throws {
        let box = try Self.store(others: 10)
        let question = ["flag", "eval", "new-checkout", "--json", "--targeting-key", "user-2"]
        let before = try box.runOK(question)
        // `set` stores what an import would refuse: an unknown operator, a $ref cycle, a
        // missing evaluator.
        try box.runOK(["set", "switch", "broken", #"{"state":"ENABLED","variants":{"a":1},"defaultVariant":"a","targeting":{"nope":[1]}}"#])
        try box.runOK([
            "set", "switch", "dangling", #"{"state":"ENABLED","variants":{"a":1},"defaultVariant":"a","targeting":{"$ref":"gone"}}"#,
        ])
        let evaluators = String(Self.evaluators.dropLast()) + #", "cycle": {"$ref": "cycle"}, "bad": {"nope": []}}"#
        try box.runOK(["set", "switch", "$evaluators", evaluators])
        let after = try box.run(question, expecting: 0)
        #expect(after.status == 0 && after.stdout == before.stdout && after.stderr.isEmpty, "\(before) / \(after)")
        let broken = try box.run(["flag", "eval", "broken"], expecting: 6)
        #expect(broken.status == 6 && broken.stdout.isEmpty, "\(broken)")
        #expect(broken.stderr == "prefs: flag 'broken': PARSE_ERROR: $.flags.broken.targeting: unknown operator \"nope\"\n", "\(broken)")
        let dangling = try box.run(["flag", "eval", "dangling", "--default", "0", "--json"], expecting: 0)
        #expect(dangling.status == 0, "\(dangling)")
        #expect(
            dangling.stdout.contains(
                #""errorCode":"PARSE_ERROR","errorMessage":"$.flags.dangling.targeting: $ref to a missing evaluator \"gone\"""#),
            "\(dangling)")
    }

    /// Only the flag asked for is read: another flag's row that is not valid JSON (a damaged
    /// store) stops `flag list` and an evaluation of that flag (exit 3), not this one. Before,
    /// every evaluation read every flag and stopped at the damaged one.
    @Test(.enabled(if: sqliteShell != nil, "needs the sqlite3 shell (apt install sqlite3)"))
    func aDamagedOtherFlagDoesNotStopTheEvaluation() throws {
        let box = try Self.store(others: 10)
        let question = ["flag", "eval", "new-checkout", "--json", "--targeting-key", "user-2"]
        let before = try box.runOK(question)
        try sqlite(box.store, "UPDATE kv_switch SET value = '{not json' WHERE key = 'flag-5'")
        let after = try box.run(question, expecting: 0)
        #expect(after.status == 0 && after.stdout == before.stdout && after.stderr.isEmpty, "\(after)")
        let enabled = try box.run(["flag", "enabled", "new-checkout", "--context", #"{"email":"ada@example.com"}"#], expecting: 0)
        #expect(enabled.status == 0 && enabled.stderr.isEmpty, "\(enabled)")
        let explained = try box.run(["flag", "explain", "new-checkout", "--json"], expecting: 0)
        #expect(explained.status == 0 && explained.stderr.isEmpty, "\(explained)")
        for damaged in [["flag", "eval", "flag-5"], ["flag", "list"]] {
            let result = try box.run(damaged, expecting: 3)
            #expect(result.status == 3 && result.stderr.contains("switch/flag-5 is corrupt"), "\(damaged): \(result)")
        }
    }
}
