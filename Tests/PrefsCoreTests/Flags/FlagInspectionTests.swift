import Foundation
import PrefsCore
import Testing

/// Issue 21: explain, diff, stats and lint on the documents the evaluation tests use, and on
/// adversarial ones.
@Suite("flag inspection", .timeLimit(.minutes(5)))
struct FlagInspectionTests {
    /// A document in the manner of flagd's test kit: every operator family, $refs, fractional
    /// with and without bucketBy, sem_ver, errors of each kind.
    static let kit = """
        {"$evaluators": {"is_staff": {"ends_with": [{"var": "email"}, "@example.com"]},
                         "modern": {"sem_ver": [{"var": "app"}, ">=", "2.1.0"]},
                         "staff_and_modern": {"and": [{"$ref": "is_staff"}, {"$ref": "modern"}]}},
         "flags": {
           "bool-flag": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "on"},
           "string-flag": {"state": "ENABLED", "variants": {"greeting": "hi", "parting": "bye"}, "defaultVariant": "greeting"},
           "integer-flag": {"state": "ENABLED", "variants": {"one": 1, "ten": 10}, "defaultVariant": "ten"},
           "float-flag": {"state": "ENABLED", "variants": {"tenth": 0.1, "half": 0.5}, "defaultVariant": "half"},
           "object-flag": {"state": "ENABLED", "variants": {"empty": {}, "full": {"a": 1}}, "defaultVariant": "full"},
           "disabled": {"state": "DISABLED", "variants": {"on": true}, "defaultVariant": "on"},
           "targeted": {"state": "ENABLED", "variants": {"new": "new", "old": "old"}, "defaultVariant": "old",
                        "targeting": {"if": [{"$ref": "staff_and_modern"}, "new", {"in": [{"var": "country"}, ["de", "fr"]]}, "old", null]}},
           "split": {"state": "ENABLED", "variants": {"a": 1, "b": 2, "c": 3}, "defaultVariant": "a",
                     "targeting": {"fractional": [["a", 50], ["b", 30], ["c", 20]]}},
           "split-by": {"state": "ENABLED", "variants": {"red": "r", "blue": "b"}, "defaultVariant": "red",
                        "targeting": {"fractional": [{"cat": [{"var": "$flagd.flagKey"}, {"var": "email"}]}, ["red", 1], ["blue", 1]]}},
           "versioned": {"state": "ENABLED", "variants": {"v2": "v2", "v1": "v1"}, "defaultVariant": "v1",
                         "targeting": {"if": [{"sem_ver": [{"var": "app"}, "^", "2.0.0"]}, "v2", "v1"]}},
           "math": {"state": "ENABLED", "variants": {"big": "big", "small": "small"}, "defaultVariant": "small",
                    "targeting": {"if": [{">": [{"+": [{"var": "age"}, {"*": [2, 3]}]}, 40]}, "big", "small"]}},
           "collections": {"state": "ENABLED", "variants": {"yes": true, "no": false}, "defaultVariant": "no",
                           "targeting": {"if": [{"some": [{"var": "roles"}, {"==": [{"var": ""}, "admin"]}]}, "yes",
                                                {"missing": ["email"]}, "no", "no"]}},
           "timestamp": {"state": "ENABLED", "variants": {"later": "later", "earlier": "earlier"}, "defaultVariant": "earlier",
                         "targeting": {"if": [{">": [{"var": "$flagd.timestamp"}, 1700000000]}, "later", "earlier"]}},
           "bad-variant": {"state": "ENABLED", "variants": {"a": 1}, "defaultVariant": "a", "targeting": {"cat": ["z"]}},
           "bad-op": {"state": "ENABLED", "variants": {"a": 1}, "defaultVariant": "a", "targeting": {"frobnicate": [1]}},
           "bad-ref": {"state": "ENABLED", "variants": {"a": 1}, "defaultVariant": "a", "targeting": {"$ref": "missing"}},
           "number-name": {"state": "ENABLED", "variants": {"a": 1}, "defaultVariant": "a", "targeting": {"+": [1, 2]}},
           "no-default": {"state": "ENABLED", "variants": {"a": 1}, "targeting": {"if": [false, "a", null]}}
         }}
        """

    static let contexts = [
        "{}", #"{"email":"ada@example.com","app":"2.3.1"}"#, #"{"email":"bob@other.org","app":"1.9","country":"de"}"#,
        #"{"targetingKey":"user-1"}"#, #"{"targetingKey":"user-2","email":"x@example.com","app":"v2.0.0-beta"}"#,
        #"{"age":35,"roles":["admin"]}"#, #"{"age":"40","roles":[]}"#, #"{"targetingKey":"","app":2}"#,
        #"{"email":"e@example.com","app":"99999999999999999999.0.0","country":"fr"}"#,
    ]

    /// The documents the repository's conformance tests evaluate (issue 17's and 16's), and the kit above.
    static func documents() throws -> [FlagSet] {
        var sets: [FlagSet] = []
        for text in [kit, FlagEvaluationTests.document] {
            for version in FractionalVersion.allCases {
                let members = try FlagDocument.validate(JSONValue(parsing: text))
                sets.append(FlagSet(entries: members.map { ($0.key, $0.value) } + [("plain", .number("42"))], fractionalVersion: version))
            }
        }
        return sets
    }

    @Test func explainGivesExactlyWhatEvalGives() throws {
        var checked = 0
        for flags in try Self.documents() {
            for key in flags.sortedKeys + ["missing"] {
                for text in Self.contexts {
                    let context = try EvaluationContexts.data(JSONValue(parsing: text))
                    for (type, fallback) in [(nil, JSONValue.null), (FlagType.string, .string("?")), (.boolean, .bool(false))] {
                        for targetingKey in [nil, "", "tk-9"] as [String?] {
                            let expected = flags.evaluate(
                                key, type: type ?? flags.naturalType(of: key), default: fallback, context: context,
                                targetingKey: targetingKey,
                                now: 1_800_000_000)
                            let explained = flags.explain(
                                key, type: type, default: fallback, context: context, targetingKey: targetingKey, now: 1_800_000_000)
                            #expect(explained.resolution == expected, "\(key) \(text)")
                            // The traced rule gives what the evaluator's rule gave.
                            if expected.reason == "TARGETING_MATCH", let trace = explained.trace {
                                let returned: JSONValue =
                                    trace.result == .bool(true)
                                    ? .string("true") : trace.result == .bool(false) ? .string("false") : trace.result
                                #expect(returned == expected.variant.map(JSONValue.string), "\(key) \(text)")
                            }
                            checked += 1
                        }
                    }
                }
            }
        }
        #expect(checked > 3000)
    }

    @Test func explainShowsTheDecisions() throws {
        let flags = try Self.documents()[2]
        let staff = flags.explain("targeted", context: try EvaluationContexts.data(JSONValue(parsing: Self.contexts[1])), now: 1)
        #expect(staff.resolution.variant == "new")
        let text = staff.text
        for part in [
            "$ref \"staff_and_modern\"", "$ref \"is_staff\"", "ends_with → true", "\"email\" found", "2.3.1 >= 2.1.0",
            "condition 1 is true: branch 1 taken", "reason   TARGETING_MATCH", "variant  \"new\"",
        ] {
            #expect(text.contains(part), "\(part) in \(text)")
        }
        let split = flags.explain("split", targetingKey: "user-1", now: 1)
        let fractional = try #require(split.trace)
        #expect(fractional.label == "fractional")
        #expect(fractional.notes.joined().contains("bucketing value [\"split\",\"user-1\"]"), "\(fractional.notes)")
        #expect(fractional.notes.joined().contains("ranges \"a\" [0, 50), \"b\" [50, 80), \"c\" [80, 100)"), "\(fractional.notes)")
        let bucket = try #require(fractional.details.first { $0.key == "bucket" }.flatMap { Double($0.value.compactText) })
        let expected = bucket < 50 ? "a" : bucket < 80 ? "b" : "c"
        #expect(split.resolution.variant == expected)
        let missing = flags.explain("targeted", now: 1)
        #expect(missing.text.contains("\"email\" missing: null"), "\(missing.text)")
        #expect(missing.text.contains("no condition is true: the else branch"), "\(missing.text)")
        let twoOperands = FlagSet(entries: [
            ("n", try JSONValue(parsing: #"{"state":"ENABLED","variants":{"a":1},"defaultVariant":"a","targeting":{"if":[false,"a"]}}"#))
        ])
        let noElse = twoOperands.explain("n", now: 1)
        #expect(noElse.text.contains("no condition is true and there is no else: null"), "\(noElse.text)")
        #expect(missing.resolution.reason == "DEFAULT")
        let json = flags.explain("versioned", context: ["app": .string("2.5")], now: 1).json
        #expect(json["reason"] == .string("TARGETING_MATCH") && json["variant"] == .string("v2"), "\(json.compactText)")
        #expect(json["trace"]?["node"] == .string("if"))
        #expect(flags.explain("disabled").steps.first?.contains("DISABLED") == true)
    }

    @Test(.timeLimit(.minutes(1))) func explainOfDeepChainsAndHugeContextsIsBounded() throws {
        // A $ref chain 250 levels deep (500 nodes with the $ref marks), and one beyond the limit.
        var chain = (0..<600).map { JSONValue.Member("d\($0)", .object([.init("!", .object([.init("$ref", .string("d\($0 + 1)"))]))])) }
        chain.append(.init("d600", .bool(true)))
        let rule = try JSONValue(
            parsing:
                #"{"state":"ENABLED","variants":{"on":true,"off":false},"defaultVariant":"off","targeting":{"if":[{"$ref":"d0"},"on","off"]}}"#
        )
        let shallow = FlagSet(entries: [
            (FlagSet.evaluatorsKey, .object(Array(chain.prefix(250)) + [.init("d250", .bool(true))])), ("d", rule),
        ])
        let explained = shallow.explain("d", now: 1)
        #expect(explained.resolution == shallow.evaluate("d", type: .boolean, default: .null, now: 1))
        #expect(explained.resolution.variant == "on" && explained.trace != nil)
        let deep = FlagSet(entries: [(FlagSet.evaluatorsKey, .object(chain)), ("d", rule)])
        let refused = deep.explain("d", now: 1)
        #expect(refused.resolution.errorCode == "PARSE_ERROR" && refused.trace == nil)
        #expect(refused.steps.last?.contains("deeper than 512 levels") == true, "\(refused.steps)")
        // A context with 200,000 roles: the trace records at most its node limit, and `some`
        // is applied without recording each item.
        let roles = LogicValue.array((0..<200_000).map { .string("r\($0)") } + [.string("admin")])
        let flags = try Self.documents()[2]
        let big = flags.explain("collections", context: ["roles": roles], now: 1)
        #expect(big.resolution.variant == "yes")
        #expect(big.text.contains("the rule applied to 200001 items (not traced)"), "\(big.text.prefix(2000))")
        // A rule that evaluates more nodes than the trace keeps.
        let wide = JSONValue.object([.init("and", .array(Array(repeating: JSONValue.bool(true), count: 20_000) + [.string("on")]))])
        let many = FlagSet(entries: [
            (
                "w",
                .object([
                    .init("state", .string("ENABLED")), .init("variants", .object([.init("on", .bool(true))])), .init("targeting", wide),
                ])
            )
        ])
        let truncated = many.explain("w", now: 1)
        #expect(truncated.truncated && truncated.resolution.variant == "on", "\(truncated.steps)")
        #expect(truncated.resolution == many.evaluate("w", type: .boolean, default: .null, now: 1))
    }

    @Test func diffCountsTransitions() throws {
        let old = try FlagDocument.flagSet(
            JSONValue(
                parsing:
                    #"{"flags":{"f":{"state":"ENABLED","variants":{"on":true,"off":false},"defaultVariant":"off","targeting":{"fractional":[["on",20],["off",80]]}},"same":{"state":"ENABLED","variants":{"a":1},"defaultVariant":"a"},"gone":{"state":"ENABLED","variants":{"a":1},"defaultVariant":"a"}}}"#
            ))
        let new = try FlagDocument.flagSet(
            JSONValue(
                parsing:
                    #"{"flags":{"f":{"state":"ENABLED","variants":{"on":true,"off":false},"defaultVariant":"off","targeting":{"fractional":[["on",50],["off",50]]}},"same":{"state":"ENABLED","variants":{"a":1},"defaultVariant":"a"},"fresh":{"state":"DISABLED","variants":{"a":1},"defaultVariant":"a"}}}"#
            ))
        let diff = try FlagDiff.compare(old, new, contexts: .synthetic(count: 20_000, seed: 7), examples: 2, now: 1)
        #expect(diff.contexts == 20_000 && diff.evaluations == 2 * 20_000 * 4)
        let byKey = Dictionary(uniqueKeysWithValues: diff.flags.map { ($0.key, $0) })
        #expect(byKey["same"]?.status == .unchanged && byKey["gone"]?.status == .removed && byKey["fresh"]?.status == .added)
        let f = try #require(byKey["f"])
        #expect(f.status == .changed)
        // on stays on (the bucket ranges grow from [0,20) to [0,50)); 30% move off → on.
        #expect(f.transitions.allSatisfy { !($0.from == "on" && $0.to == "off") })
        let moved = try #require(f.transitions.first { $0.from == "off" && $0.to == "on" })
        #expect(abs(Double(moved.count) / 20_000 - 0.30) < 0.015, "\(moved.count)")
        #expect(moved.examples.count == 2 && f.moved == moved.count)
        #expect(byKey["fresh"]?.transitions.first?.from == "(absent)" && byKey["fresh"]?.transitions.first?.to == "(disabled)")
        // The same seed gives the same result; another seed other keys.
        let again = try FlagDiff.compare(old, new, contexts: .synthetic(count: 20_000, seed: 7), examples: 2, now: 1)
        #expect(again.json == diff.json)
        #expect(EvaluationContexts.syntheticKey(0, seed: 7) != EvaluationContexts.syntheticKey(0, seed: 8))
        let none = try FlagDiff.compare(old, old, contexts: .synthetic(count: 100, seed: 0), now: 1)
        #expect(!none.hasChanges)
    }

    @Test func diffOfTheConformanceDocumentsMatchesEval() throws {
        let sets = try Self.documents()
        let lines = Self.contexts.joined(separator: "\n")
        // v3 against v2 hashing: only fractional flags move, each cell agrees with evaluate.
        let diff = try FlagDiff.compare(sets[2], sets[1], contexts: .lines(Array(lines.utf8), name: "t"), now: 5)
        for flag in diff.flags {
            var expected: [String: Int] = [:]
            for text in Self.contexts {
                let context = try EvaluationContexts.data(JSONValue(parsing: text))
                let a = FlagDiff.outcome(
                    sets[2].evaluate(flag.key, type: sets[2].naturalType(of: flag.key), default: .null, context: context, now: 5))
                let b = FlagDiff.outcome(
                    sets[1].evaluate(flag.key, type: sets[1].naturalType(of: flag.key), default: .null, context: context, now: 5))
                expected[a + "→" + b, default: 0] += 1
            }
            #expect(Dictionary(uniqueKeysWithValues: flag.transitions.map { ($0.from + "→" + $0.to, $0.count) }) == expected, "\(flag.key)")
        }
    }

    @Test func malformedContextLinesNameTheLine() throws {
        let flags = try Self.documents()[2]
        let cases: [(String, String)] = [
            ("{}\n\n{\"a\":1}\n[1]\n", "t:4: the evaluation context must be a JSON object"),
            ("{}\n{\"a\":\n", "t:2: invalid JSON"),
            ("{}\r\n{}\r\nnot json", "t:3: invalid JSON"),
            (String(repeating: "[", count: 600) + String(repeating: "]", count: 600), "t:1:"),
        ]
        for (text, message) in cases {
            do {
                _ = try FlagDistribution.measure("split", in: flags, contexts: .lines(Array(text.utf8), name: "t"))
                Issue.record("accepted \(text.prefix(40))")
            } catch let error as PrefsError {
                #expect(error.kind == .invalidValue && error.message.hasPrefix(message), "\(error.message)")
            }
        }
        // A file: read in chunks, a line over 1 MiB refused with its number.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("prefs-contexts-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("c.jsonl").path
        let good = String(repeating: "{\"targetingKey\":\"u\"}\n", count: 100_000)
        try (good + "{\"x\":\"" + String(repeating: "y", count: 1 << 20) + "\"}\n").write(toFile: path, atomically: true, encoding: .utf8)
        do {
            _ = try FlagDistribution.measure("split", in: flags, contexts: .file(path))
            Issue.record("accepted a 1 MiB line")
        } catch let error as PrefsError {
            #expect(
                error.kind == .invalidValue && error.message == "\(path):100001: a context longer than 1048576 bytes", "\(error.message)")
        }
        try good.write(toFile: path, atomically: true, encoding: .utf8)
        let stats = try FlagDistribution.measure("split", in: flags, contexts: .file(path))
        #expect(stats.total == 100_000 && stats.buckets.count == 3 && stats.buckets.filter { $0.count > 0 }.count == 1)
    }

    @Test func statsComparesConfiguredAndObservedShares() throws {
        let flags = try Self.documents()[2]
        let stats = try FlagDistribution.measure("split", in: flags, contexts: .synthetic(count: 30_000, seed: 1), now: 1)
        #expect(stats.total == 30_000 && stats.hasFractional)
        for (name, share) in [("a", 50.0), ("b", 30.0), ("c", 20.0)] {
            let bucket = try #require(stats.buckets.first { $0.outcome == name })
            #expect(bucket.configuredPercent == share)
            #expect(abs(Double(bucket.count) / 300 - share) < 1.5, "\(name): \(bucket.count)")
        }
        #expect(stats.json["contexts"] == .number("30000"))
        let plain = try FlagDistribution.measure("targeted", in: flags, contexts: .synthetic(count: 10, seed: 1), now: 1)
        #expect(!plain.hasFractional && plain.buckets.map(\.outcome) == ["old"])
    }

    @Test func lintFindsEachProblemWithItsPlace() throws {
        let text = """
            {
              "$evaluators": {"unused": {"==": [1, 1]}, "loop": {"$ref": "loop"}},
              "flags": {
                "unreachable": {"state": "ENABLED", "variants": {"on": true, "off": false, "never": false}, "defaultVariant": "off",
                                "targeting": {"if": [{"var": "x"}, "on", null]}},
                "unknown": {"state": "ENABLED", "variants": {"on": true}, "defaultVariant": "on",
                            "targeting": {"if": [{"var": "x"}, "no", "on"]}},
                "weights": {"state": "ENABLED", "variants": {"a": 1, "b": 2}, "defaultVariant": "a",
                            "targeting": {"fractional": [["a", 0], ["a", 0]]}},
                "missing-ref": {"state": "ENABLED", "variants": {"a": 1}, "defaultVariant": "a", "targeting": {"$ref": "nope"}},
                "mixed": {"state": "ENABLED", "variants": {"a": 1, "b": "x"}, "defaultVariant": "a"},
                "nothing": {"state": "ENABLED", "variants": {"a": 1}, "defaultVariant": null},
                "booleans": {"state": "ENABLED", "variants": {"on": true}, "defaultVariant": "on", "targeting": {"==": [1, 1]}},
                "negative": {"state": "ENABLED", "variants": {"a": 1, "b": 2}, "defaultVariant": "a",
                             "targeting": {"fractional": [["a", 1], ["b", -1]]}},
                "fine": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off",
                         "targeting": {"if": [{"$ref": "loop"}, "on", "off"]}}
              }
            }
            """
        let findings = FlagDocument.lint(Array(text.utf8))
        func find(_ check: String, _ path: String) -> FlagLintFinding? { findings.first { $0.check == check && $0.path == path } }
        let unreachable = try #require(find("unreachable-variant", "$.flags.unreachable.variants.never"), "\(findings)")
        #expect((unreachable.severity, unreachable.line, unreachable.column) == (.warning, 4, 89))
        let unknown = try #require(find("unknown-variant", "$.flags.unknown.targeting.if[1]"), "\(findings)")
        #expect((unknown.severity, unknown.line) == (.error, 7))
        #expect(find("fractional-weights", "$.flags.weights.targeting.fractional")?.severity == .error)
        #expect(find("fractional-duplicate", "$.flags.weights.targeting.fractional[1][0]")?.severity == .error)
        #expect(find("fractional-negative-weight", "$.flags.negative.targeting.fractional[1][1]")?.severity == .error, "\(findings)")
        #expect(find("unreachable-variant", "$.flags.weights.variants.b") != nil)
        #expect(find("missing-evaluator", "$.flags.missing-ref.targeting")?.line == 10)
        #expect(find("unused-evaluator", "$.$evaluators.unused")?.line == 2)
        #expect(find("mixed-types", "$.flags.mixed.variants")?.severity == .error)
        #expect(find("no-default", "$.flags.nothing.defaultVariant")?.severity == .warning)
        #expect(
            findings.filter { $0.check == "unknown-variant" && $0.path == "$.flags.booleans.targeting" }.map(\.message).joined()
                .contains("can return false"), "\(findings)")
        #expect(find("targeting", "$.$evaluators.loop")?.message.contains("cycle") == true, "\(findings)")
        #expect(!findings.contains { $0.path.hasPrefix("$.flags.fine") && $0.check != "targeting" }, "\(findings)")
        // Invalid JSON: one finding at its place.
        let broken = FlagDocument.lint(Array("{\n  \"flags\": {,}\n}".utf8))
        #expect(broken.count == 1 && broken[0].check == "json" && broken[0].line == 2 && broken[0].column == 13, "\(broken)")
        // A clean document has no finding; the example file neither.
        let clean = FlagDocument.lint(
            Array(
                #"{"flags":{"f":{"state":"ENABLED","variants":{"on":true,"off":false},"defaultVariant":"off","targeting":{"fractional":[["on",1],["off",1]]}}}}"#
                    .utf8))
        #expect(clean.isEmpty, "\(clean)")
        // History: a DISABLED flag never ENABLED.
        let disabled = Array(#"{"flags":{"d":{"state":"DISABLED","variants":{"on":true},"defaultVariant":"on"}}}"#.utf8)
        #expect(FlagDocument.lint(disabled, everEnabled: []).map(\.check) == ["never-enabled"])
        #expect(FlagDocument.lint(disabled, everEnabled: ["d"]).isEmpty)
        #expect(FlagDocument.lint(disabled).isEmpty)
    }

    @Test func positionsFollowPaths() {
        let text = "{\"a\": [1, {\"b c\": true}],\n \"d\": {\"e\": \"x]\"}}"
        let positions = JSONPositions(Array(text.utf8))
        #expect(positions.lineAndColumn(of: "$.a[1][\"b c\"]")! == (1, 19))
        #expect(positions.lineAndColumn(of: "$.d.e")! == (2, 13))
        #expect(positions.lineAndColumn(of: "$.d.e.missing[3]")! == (2, 13))
        #expect(positions.lineAndColumn(of: "$.zz")! == (1, 1))
    }
}
