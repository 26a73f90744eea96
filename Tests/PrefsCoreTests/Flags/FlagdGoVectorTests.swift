import Foundation
import PrefsCore
import Testing

/// The cases of flagd's Go evaluator's own tests (open-feature/flagd, `core/pkg/evaluator/`:
/// `string_casing_test.go`, `rollout_test.go`, `fractional_test.go`, `semver_test.go`,
/// `string_comparison_test.go`, `json_test.go`) as data: each row is a
/// rule or a flag, a context and the result the Go test expects. The rows are facts taken
/// from those tests; the test code is prefs' own.
enum GoVectors {
    /// `colorVariants` of the Go tests.
    static let colors = ##"{"red": "#FF0000", "blue": "#0000FF", "green": "#00FF00", "yellow": "#FFFF00"}"##

    /// A flag row: the flag's key and targeting (default variant red), the context, and the
    /// variant and reason flagd answers.
    struct FlagRow: CustomTestStringConvertible, Sendable {
        var source: String
        var name: String
        var key: String
        var targeting: String
        var context: String
        var variant: String
        var reason: String
        var testDescription: String { "\(source): \(name)" }
    }

    /// A rule row: the rule, the data (with `$flagd`) and the rule's result.
    struct RuleRow: CustomTestStringConvertible, Sendable {
        var source: String
        var name: String
        var rule: String
        var data: String
        var result: String
        var testDescription: String { "\(source): \(name)" }
    }

    static let casing = "string_casing_test.go"
    static let rollout = "rollout_test.go"
    static let fractional = "fractional_test.go"

    static let flagRows: [FlagRow] = [
        // string_casing_test.go: TestJSONEvaluator_lowerEvaluation / upperEvaluation / ErrorFallback
        FlagRow(
            source: casing, name: "lower composed with == - match", key: "headerColor",
            targeting: #"{"if": [{"==": [{"lower": [{"var": "email"}]}, "user@example.com"]}, "red", "green"]}"#,
            context: #"{"email": "User@Example.com"}"#, variant: "red", reason: "TARGETING_MATCH"),
        FlagRow(
            source: casing, name: "lower composed with starts_with - match", key: "headerColor",
            targeting: #"{"if": [{"starts_with": [{"lower": [{"var": "email"}]}, "user@faas"]}, "red", "green"]}"#,
            context: #"{"email": "USER@FAAS.com"}"#, variant: "red", reason: "TARGETING_MATCH"),
        FlagRow(
            source: casing, name: "lower of bare string argument - match", key: "headerColor",
            targeting: #"{"if": [{"==": [{"lower": {"var": "email"}}, "user@example.com"]}, "red", "green"]}"#,
            context: #"{"email": "USER@EXAMPLE.COM"}"#, variant: "red", reason: "TARGETING_MATCH"),
        FlagRow(
            source: casing, name: "lower is ASCII-only, non-ASCII unchanged", key: "headerColor",
            targeting: #"{"if": [{"==": [{"lower": [{"var": "name"}]}, "stra\u00dfe"]}, "red", "green"]}"#,
            context: #"{"name": "STRA\u00dfE"}"#, variant: "red", reason: "TARGETING_MATCH"),
        FlagRow(
            source: casing, name: "non-string input falls back to default", key: "headerColor",
            targeting: #"{"if": [{"==": [{"lower": [{"var": "num"}]}, "1"]}, "blue", "red"]}"#,
            context: #"{"num": 1}"#, variant: "red", reason: "TARGETING_MATCH"),
        FlagRow(
            source: casing, name: "upper composed with == - match", key: "headerColor",
            targeting: #"{"if": [{"==": [{"upper": [{"var": "country"}]}, "US"]}, "red", "green"]}"#,
            context: #"{"country": "us"}"#, variant: "red", reason: "TARGETING_MATCH"),
        FlagRow(
            source: casing, name: "upper composed with == - no match", key: "headerColor",
            targeting: #"{"if": [{"==": [{"upper": [{"var": "country"}]}, "US"]}, "red", "green"]}"#,
            context: #"{"country": "ca"}"#, variant: "green", reason: "TARGETING_MATCH"),
        FlagRow(
            source: casing, name: "upper is ASCII-only, non-ASCII unchanged - no match", key: "headerColor",
            targeting: #"{"if": [{"==": [{"upper": [{"var": "name"}]}, "STRASSE"]}, "red", "green"]}"#,
            context: #"{"name": "stra\u00dfe"}"#, variant: "green", reason: "TARGETING_MATCH"),
        FlagRow(
            source: casing, name: "lower invalid input falls back", key: "headerColor", targeting: #"{"lower": [{"var": "num"}]}"#,
            context: #"{"num": 123.0}"#, variant: "red", reason: "DEFAULT"),
        FlagRow(
            source: casing, name: "upper invalid input falls back", key: "headerColor", targeting: #"{"upper": [{"var": "num"}]}"#,
            context: #"{"num": 123.0}"#, variant: "red", reason: "DEFAULT"),

        // rollout_test.go: TestRolloutIntegration (evaluated now: after the 2024 window)
        FlagRow(
            source: rollout, name: "shorthand rollout after end returns new", key: "rolloutFeature",
            targeting: #"{"rollout": [1704067200, 1706745600, "new"]}"#, context: #"{"targetingKey": "user123"}"#, variant: "new",
            reason: "TARGETING_MATCH"),
        FlagRow(
            source: rollout, name: "longhand rollout after end returns new", key: "rolloutFeatureLonghand",
            targeting: #"{"rollout": [1704067200, 1706745600, "old", "new"]}"#, context: #"{"targetingKey": "user123"}"#,
            variant: "new", reason: "TARGETING_MATCH"),
        FlagRow(
            source: rollout, name: "conditional rollout for internal user", key: "conditionalRollout",
            targeting:
                #"{"if": [{"ends_with": [{"var": "email"}, "@internal.com"]}, "new", {"rollout": [1704067200, 1706745600, "old", "new"]}]}"#,
            context: #"{"targetingKey": "user123", "email": "test@internal.com"}"#, variant: "new", reason: "TARGETING_MATCH"),
    ]

    /// fractional_test.go's TestFractionalEvaluation (open-feature/flagd 29c0552).
    static let fractionalRows: [FlagRow] = {
        let seeded =
            #"{"if": [{"in": ["@faas.com", {"var": ["email"]}]}, {"fractional": [SEED, ["red",25], ["blue",25], ["green",25], ["yellow",25]]}, null]}"#
        let common = seeded.replacingOccurrences(of: "SEED", with: #"{"cat": [{"var": "$flagd.flagKey"}, {"var": "email"}]}"#)
        let custom = seeded.replacingOccurrences(of: "SEED", with: #"{"cat": ["my-seed", {"var": "email"}]}"#)
        let byEmail = seeded.replacingOccurrences(of: "SEED", with: #"{"var": "email"}"#)
        func row(_ name: String, _ key: String, _ targeting: String, _ context: String, _ variant: String, _ reason: String) -> FlagRow {
            FlagRow(source: fractional, name: name, key: key, targeting: targeting, context: context, variant: variant, reason: reason)
        }
        return [
            row("rachel@faas.com", "headerColor", common, #"{"email": "rachel@faas.com"}"#, "yellow", "TARGETING_MATCH"),
            row("monica@faas.com", "headerColor", common, #"{"email": "monica@faas.com"}"#, "blue", "TARGETING_MATCH"),
            row("joey@faas.com", "headerColor", common, #"{"email": "joey@faas.com"}"#, "red", "TARGETING_MATCH"),
            row("ross@faas.com", "headerColor", common, #"{"email": "ross@faas.com"}"#, "green", "TARGETING_MATCH"),
            row(
                "rachel@faas.com with custom seed", "customSeededHeaderColor", custom, #"{"email": "rachel@faas.com"}"#, "green",
                "TARGETING_MATCH"),
            row(
                "monica@faas.com with custom seed", "customSeededHeaderColor", custom, #"{"email": "monica@faas.com"}"#, "red",
                "TARGETING_MATCH"),
            row(
                "joey@faas.com with custom seed", "customSeededHeaderColor", custom, #"{"email": "joey@faas.com"}"#, "green",
                "TARGETING_MATCH"),
            row(
                "ross@faas.com with custom seed", "customSeededHeaderColor", custom, #"{"email": "ross@faas.com"}"#, "green",
                "TARGETING_MATCH"),
            row("ross@faas.com with different flag key", "footerColor", byEmail, #"{"email": "ross@faas.com"}"#, "red", "TARGETING_MATCH"),
            row(
                "non even split", "headerColor",
                #"{"if": [{"in": ["@faas.com", {"var": ["email"]}]}, {"fractional": ["email", ["red",50], ["blue",25], ["green",25]]}, null]}"#,
                #"{"email": "test4@faas.com"}"#, "red", "TARGETING_MATCH"),
            row(
                "fallback to default variant if no email provided", "headerColor",
                #"{"fractional": [{"var": "email"}, ["red",25], ["blue",25], ["green",25], ["yellow",25]]}"#, "{}", "red", "DEFAULT"),
            row(
                "get variant for non-percentage weight values", "headerColor",
                #"{"fractional": [{"var": "email"}, ["red",25], ["blue",25]]}"#,
                #"{"email": "foo@foo.com"}"#, "red", "TARGETING_MATCH"),
            row(
                "get variant for non-specified weight values", "headerColor", #"{"fractional": [{"var": "email"}, ["red"], ["blue"]]}"#,
                #"{"email": "foo@foo.com"}"#, "red", "TARGETING_MATCH"),
            row(
                "default to targetingKey if no bucket key provided", "headerColor", #"{"fractional": [["blue",50], ["green",50]]}"#,
                #"{"targetingKey": "foo@foo.com"}"#, "blue", "TARGETING_MATCH"),
            row(
                "missing email - parser should ignore nil/missing custom variables and continue", "headerColor",
                #"{"fractional": [{"var": "email"}, ["red",50], ["blue",50]]}"#, #"{"targetingKey": "foo@foo.com"}"#, "red",
                "TARGETING_MATCH"),
        ]
    }()

    static let semver = "semver_test.go"
    static let comparison = "string_comparison_test.go"

    /// semver_test.go's TestJSONEvaluator_semVerEvaluation and string_comparison_test.go's
    /// starts_with / ends_with evaluations: `{"if": [RULE, "red", ELSE]}`.
    static let comparisonRows: [FlagRow] = {
        func row(_ source: String, _ name: String, _ rule: String, _ otherwise: String, _ context: String, _ variant: String) -> FlagRow {
            FlagRow(
                source: source, name: name, key: "headerColor", targeting: #"{"if": [\#(rule), "red", \#(otherwise)]}"#, context: context,
                variant: variant, reason: "TARGETING_MATCH")
        }
        let version = #"{"version": "1.0.0"}"#
        let email = #"{"email": "user@faas.com"}"#
        return [
            row(semver, "versions and operator provided - match", #"{"sem_ver": ["1.0.0", ">", "0.1.0"]}"#, "null", version, "red"),
            row(
                semver, "resolve target property using nested operation - match", #"{"sem_ver": [{"var": "version"}, ">", "1.0.0"]}"#,
                "null", #"{"version": "1.0.1"}"#, "red"),
            row(
                semver, "versions and operator provided - no match", #"{"sem_ver": ["1.0.0", ">", "1.0.0"]}"#, #""green""#, version, "green"
            ),
            row(
                semver, "versions and major-version operator provided - match", #"{"sem_ver": ["1.2.3", "^", "1.5.6"]}"#, #""green""#,
                version, "red"),
            row(
                semver, "versions and minor-version operator provided - match", #"{"sem_ver": ["1.2.3", "~", "1.2.6"]}"#, #""green""#,
                version, "red"),
            row(semver, "versions given as double - match", #"{"sem_ver": [1.2, "=", "1.2"]}"#, #""green""#, version, "red"),
            row(semver, "versions given as int - match", #"{"sem_ver": [1, "=", "v1.0.0"]}"#, #""green""#, version, "red"),
            row(
                semver, "versions with prefixed v operator provided - match", #"{"sem_ver": [{"var": "version"}, "<", "v1.2"]}"#,
                #""green""#,
                #"{"version": "v1.0.0"}"#, "red"),
            row(
                semver, "versions and major-version operator provided - no match", #"{"sem_ver": ["2.2.3", "^", "1.2.3"]}"#, #""green""#,
                version, "green"),
            row(
                semver, "versions and minor-version operator provided - no match", #"{"sem_ver": ["1.3.3", "~", "1.2.6"]}"#, #""green""#,
                version, "green"),
            row(
                semver, "resolve target property using nested operation - no match", #"{"sem_ver": [{"var": "version"}, ">", "1.0.0"]}"#,
                #""green""#, #"{"version": "0.0.1"}"#, "green"),
            row(
                semver, "error during parsing (not an array) - return default", #"{"sem_ver": "not an array"}"#, #""green""#, email, "green"
            ),
            row(
                semver, "error during parsing (wrong number of items in array)", #"{"sem_ver": ["not", "enough"]}"#, #""green""#, email,
                "green"),
            row(
                semver, "error during parsing (invalid property value)", #"{"sem_ver": ["invalid", ">", "1.0.0"]}"#, #""green""#, email,
                "green"),
            row(semver, "error during parsing (invalid property type)", #"{"sem_ver": [1.0, ">", "1.0.0"]}"#, #""green""#, email, "green"),
            row(
                semver, "error during parsing (invalid operator)", #"{"sem_ver": ["1.0.0", "invalid", "1.0.0"]}"#, #""green""#, email,
                "green"),
            row(
                comparison, "starts_with: two strings provided - match", #"{"starts_with": ["user@faas.com", "user@faas"]}"#, "null", email,
                "red"),
            row(
                comparison, "starts_with: nested operation - match", #"{"starts_with": [{"var": "email"}, "user@faas"]}"#, "null", email,
                "red"),
            row(
                comparison, "starts_with: two strings provided - no match", #"{"starts_with": ["user@faas.com", "nope"]}"#, #""green""#,
                email, "green"),
            row(
                comparison, "starts_with: nested operation - no match", #"{"starts_with": [{"var": "email"}, "nope"]}"#, #""green""#, email,
                "green"),
            row(
                comparison, "starts_with: error during parsing - return default", #"{"starts_with": "no-array"}"#, #""green""#, email,
                "green"),
            row(
                comparison, "ends_with: two strings provided - match", #"{"ends_with": ["user@faas.com", "faas.com"]}"#, "null", email,
                "red"),
            row(comparison, "ends_with: nested operation - match", #"{"ends_with": [{"var": "email"}, "faas.com"]}"#, "null", email, "red"),
            row(
                comparison, "ends_with: two strings provided - no match", #"{"ends_with": ["user@faas.com", "nope"]}"#, #""green""#, email,
                "green"),
            row(
                comparison, "ends_with: nested operation - no match", #"{"ends_with": [{"var": "email"}, "nope"]}"#, #""green""#, email,
                "green"),
            row(comparison, "ends_with: error during parsing - return default", #"{"ends_with": "no-array"}"#, #""green""#, email, "green"),
        ]
    }()

    /// semver_test.go's TestSemVerOperator_Compare: `[v1, operator, v2]` and the comparison's
    /// result (null where the Go test expects an error).
    static let semverCompare: [(String, String, String, String, String)] = [
        ("invalid version", "invalid", ">", "v1.0.0", "null"),
        ("preview version vs non preview version", "v1.0.0-preview.1.2", ">", "v1.0.0", "false"),
        ("preview version vs preview version", "v1.0.0-preview.1.3", ">", "v1.0.0-preview.1.2", "true"),
        ("no prefixed v left greater", "0.0.1", ">", "v0.0.2", "false"), ("no prefixed v right greater", "v0.0.1", ">", "0.0.2", "false"),
        ("no prefixed v right equals", "v0.0.1", "=", "0.0.1", "true"), ("no prefixed v both", "0.0.1", ">", "0.0.2", "false"),
        ("invalid operator", "v0.0.1", "", "v0.0.2", "null"), ("less with large number", "v1234.0.1", "<", "v1235.0.2", "true"),
        ("less", "v0.0.1", "<", "v0.0.2", "true"), ("no minor version", "v1.0", "<", "v1.2", "true"),
        ("not less", "v0.0.1", "<", "v0.0.1", "false"),
        ("less or equal", "v0.0.1", "<=", "v0.0.2", "true"), ("less or equal 2", "v0.0.1", "<=", "v0.0.1", "true"),
        ("equal", "v0.0.1", "=", "v0.0.1", "true"), ("not equal", "v0.0.2", "=", "v0.0.1", "false"),
        ("unequal", "v0.0.2", "!=", "v0.0.1", "true"),
        ("not unequal", "v0.0.1", "!=", "v0.0.1", "false"), ("greater or equal 1", "v0.0.2", ">=", "v0.0.1", "true"),
        ("greater or equal 2", "v0.0.1", ">=", "v0.0.1", "true"), ("not greater or equal", "v0.0.1", ">=", "v0.0.2", "false"),
        ("greater", "v0.0.2", ">", "v0.0.1", "true"), ("not greater", "v0.0.1", ">", "v0.0.1", "false"),
        ("matching major version", "v1.3.4", "^", "v1.5.3", "true"), ("not matching major version", "v2.1.1", "^", "v1.1.1", "false"),
        ("matching minor version", "v1.3.4", "~", "v1.3.1", "true"), ("not matching minor version", "v2.2.1", "~", "v2.1.1", "false"),
    ]

    static let start = 1_704_067_200
    static let end = 1_706_745_600

    static func flagd(_ timestamp: Int, key: String = "testFlag") -> String {
        #""$flagd": {"flagKey": "\#(key)", "timestamp": \#(timestamp)}"#
    }

    static let ruleRows: [RuleRow] = {
        let before = flagd(start - 1000)
        let after = flagd(end + 1000)
        let middle = flagd(start + (end - start) / 2)
        func row(_ name: String, _ rule: String, _ data: String, _ result: String, source: String = rollout) -> RuleRow {
            RuleRow(source: source, name: name, rule: rule, data: data, result: result)
        }
        let tier = #"{"if": [{"==": [{"var": "tier"}, "premium"]}, "premium-new", "basic-new"]}"#
        return [
            // TestRolloutEvaluate
            row(
                "shorthand: before start returns nil (defaultVariant)", "[\(start), \(end), \"new\"]",
                #"{"targetingKey": "user123", \#(before)}"#, "null"),
            row(
                "shorthand: after end returns toVariant", "[\(start), \(end), \"new\"]", #"{"targetingKey": "user123", \#(after)}"#,
                #""new""#),
            row(
                "longhand: before start returns fromVariant", "[\(start), \(end), \"old\", \"new\"]",
                #"{"targetingKey": "user123", \#(before)}"#, #""old""#),
            row(
                "longhand: after end returns toVariant", "[\(start), \(end), \"old\", \"new\"]", #"{"targetingKey": "user123", \#(after)}"#,
                #""new""#),
            row(
                "invalid: string bucketBy not supported", "[\"custom-bucket\", \(start), \(end), \"old\", \"new\"]",
                #"{"targetingKey": "user123", \#(after)}"#, "null"),
            row(
                "with JSONLogic bucketBy", "[{\"var\": \"email\"}, \(start), \(end), \"old\", \"new\"]",
                #"{"targetingKey": "user123", "email": "test@example.com", \#(after)}"#, #""new""#),
            row("invalid: not an array", "\"not an array\"", #"{"targetingKey": "user123"}"#, "null"),
            row("invalid: too few arguments", "[\(start), \(end)]", #"{"targetingKey": "user123"}"#, "null"),
            row(
                "invalid: endTime before startTime", "[\(end), \(start), \"new\"]",
                #"{"targetingKey": "user123", \#(flagd(1_705_406_400))}"#, "null"),
            row(
                "during rollout: shorthand returns nil (from=defaultVariant) for this user hash", "[\(start), \(end), \"new\"]",
                #"{"targetingKey": "user123", \#(middle)}"#, "null"),
            // TestRolloutNestedJSONLogic
            row(
                "before rollout - everyone gets old", "[\(start), \(end), \"old\", \(tier)]",
                #"{"targetingKey": "user-123", "tier": "premium", \#(before)}"#, #""old""#),
            row(
                "after rollout, premium user gets premium-new", "[\(start), \(end), \"old\", \(tier)]",
                #"{"targetingKey": "user-123", "tier": "premium", \#(after)}"#, #""premium-new""#),
            row(
                "after rollout, basic user gets basic-new", "[\(start), \(end), \"old\", \(tier)]",
                #"{"targetingKey": "user-123", "tier": "basic", \#(after)}"#, #""basic-new""#),
        ].map { RuleRow(source: $0.source, name: $0.name, rule: #"{"rollout": \#($0.rule)}"#, data: $0.data, result: $0.result) }
            + [
                // Test_parseStringCasingEvaluationData: the operand forms
                row("bare string value", #"{"lower": "a"}"#, "{}", #""a""#, source: casing),
                row("single-element array", #"{"lower": ["a"]}"#, "{}", #""a""#, source: casing),
                row("array with more than one element", #"{"lower": ["a", "b"]}"#, "{}", "null", source: casing),
                row("value is not a string", #"{"lower": [1]}"#, "{}", "null", source: casing),
                // Test_parseStringComparisonEvaluationData: the operand forms
                row("return two string values", #"{"starts_with": ["a", "b"]}"#, "{}", "false", source: comparison),
                row("provided object is not an array", #"{"starts_with": "not-an-array"}"#, "{}", "null", source: comparison),
                row("provided object does not have two elements", #"{"starts_with": ["a"]}"#, "{}", "null", source: comparison),
                row("property is not a string", #"{"starts_with": [1, "b"]}"#, "{}", "null", source: comparison),
                row("targetValue is not a string", #"{"starts_with": ["a", 1]}"#, "{}", "null", source: comparison),
            ]
            + semverCompare.map { name, left, op, right, result in
                row(
                    name,
                    #"{"sem_ver": [\#(JSONValue.string(left).compactText), \#(JSONValue.string(op).compactText), \#(JSONValue.string(right).compactText)]}"#,
                    "{}", result, source: semver)
            }
    }()
}

@Suite("flagd Go evaluator vectors", .timeLimit(.minutes(5)))
struct FlagdGoVectorTests {
    static func flagSet(key: String, targeting: String, version: FractionalVersion) throws -> FlagSet {
        let document =
            #"{"flags": {"\#(key)": {"state": "ENABLED", "variants": \#(GoVectors.colors), "defaultVariant": "red", "targeting": \#(targeting)}}}"#
        let members = try FlagDocument.validate(JSONValue(parsing: document))
        return FlagSet(entries: members.map { ($0.key, $0.value) }, fractionalVersion: version)
    }

    static func context(_ text: String) throws -> [String: LogicValue] {
        guard case .object(let object) = LogicValue(try JSONValue(parsing: text)) else { return [:] }
        return object
    }

    @Test(arguments: GoVectors.comparisonRows)
    func semVerAndStringComparisonRowsAnswerAsFlagd(row: GoVectors.FlagRow) throws {
        let flags = try Self.flagSet(key: row.key, targeting: row.targeting, version: .v3)
        let result = flags.evaluate(row.key, type: .string, default: .string("?"), context: try Self.context(row.context))
        #expect(result.variant == row.variant && result.reason == row.reason, "\(row.name): \(result)")
    }

    /// json_test.go's `Flags` document (the %-verbs filled in as its constants fill them) and
    /// its TestResolve*Value rows: flag, type, context, value, reason and error code. A
    /// DISABLED flag is the one row where prefs answers otherwise (see docs/flags.md).
    static let jsonDocument = """
        {"metadata": {"flagSetId": "testSetId", "version": "v33"}, "flags": {
          "staticBoolFlag": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "on"},
          "staticStringFlag": {"state": "ENABLED", "variants": {"red": "#CC0000", "blue": "#0000CC"}, "defaultVariant": "red"},
          "staticFloatFlag": {"state": "ENABLED", "variants": {"one": 1.000000, "two": 2}, "defaultVariant": "one"},
          "staticIntFlag": {"state": "ENABLED", "variants": {"one": 1, "two": 2}, "defaultVariant": "one"},
          "staticObjectFlag": {"state": "ENABLED", "variants": {"obj1": {"abc": 123}, "obj2": {"xyz": true}}, "defaultVariant": "obj1"},
          "targetingBoolFlag": {"state": "ENABLED", "variants": {"bool1": true, "bool2": false}, "defaultVariant": "bool2",
            "targeting": {"if": [{"==": [{"var": ["color"]}, "yellow"]}, "bool1", null]}},
          "targetingStringFlag": {"state": "ENABLED", "variants": {"str1": "my-string", "str2": "other"}, "defaultVariant": "str2",
            "targeting": {"if": [{"==": [{"var": ["color"]}, "yellow"]}, "str1", null]}},
          "targetingFloatFlag": {"state": "ENABLED", "variants": {"number1": 100.000000, "number2": 200}, "defaultVariant": "number2",
            "targeting": {"if": [{"==": [{"var": ["color"]}, "yellow"]}, "number1", null]}},
          "targetingNumberFlag": {"state": "ENABLED", "variants": {"number1": 100, "number2": 200}, "defaultVariant": "number2",
            "targeting": {"if": [{"==": [{"var": ["color"]}, "yellow"]}, "number1", null]}},
          "disabledFlag": {"state": "DISABLED", "variants": {"on": true, "off": false}, "defaultVariant": "on"},
          "metadataFlag": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "on", "metadata": {"version": "v66"}}
        }}
        """

    static let jsonRows: [(String, FlagType, String, String, String, String?)] = [
        ("staticBoolFlag", .boolean, "{}", "true", "STATIC", nil),
        ("targetingBoolFlag", .boolean, #"{"color": "yellow"}"#, "true", "TARGETING_MATCH", nil),
        ("staticObjectFlag", .boolean, "{}", "null", "ERROR", "TYPE_MISMATCH"),
        ("missingFlag", .boolean, "{}", "null", "ERROR", "FLAG_NOT_FOUND"),
        ("staticStringFlag", .string, "{}", ##""#CC0000""##, "STATIC", nil),
        ("targetingStringFlag", .string, #"{"color": "yellow"}"#, #""my-string""#, "TARGETING_MATCH", nil),
        ("staticObjectFlag", .string, "{}", "null", "ERROR", "TYPE_MISMATCH"),
        ("staticFloatFlag", .float, "{}", "1.000000", "STATIC", nil),
        ("targetingFloatFlag", .float, #"{"color": "yellow"}"#, "100.000000", "TARGETING_MATCH", nil),
        ("staticObjectFlag", .float, "{}", "null", "ERROR", "TYPE_MISMATCH"),
        ("staticIntFlag", .integer, "{}", "1", "STATIC", nil),
        ("targetingNumberFlag", .integer, #"{"color": "yellow"}"#, "100", "TARGETING_MATCH", nil),
        ("staticFloatFlag", .integer, "{}", "1", "STATIC", nil),
        ("targetingFloatFlag", .integer, #"{"color": "yellow"}"#, "100", "TARGETING_MATCH", nil),
        ("staticObjectFlag", .integer, "{}", "null", "ERROR", "TYPE_MISMATCH"),
        ("staticObjectFlag", .object, "{}", #"{"abc":123}"#, "STATIC", nil),
        ("staticBoolFlag", .object, "{}", "null", "ERROR", "TYPE_MISMATCH"),
    ]

    @Test func jsonTestRowsAnswerAsFlagd() throws {
        let members = try FlagDocument.validate(JSONValue(parsing: Self.jsonDocument))
        let flags = FlagSet(entries: members.map { ($0.key, $0.value) })
        for (key, type, context, value, reason, code) in Self.jsonRows {
            let result = flags.evaluate(key, type: type, default: .null, context: try Self.context(context))
            #expect(
                result.value.compactText == value && result.reason == reason && result.errorCode == code, "\(key) as \(type): \(result)")
        }
        // Metadata: the flag set's, with the flag's own over it (TestMetadataResolveType).
        let metadata = flags.evaluate("metadataFlag", type: .boolean, default: .bool(false)).metadata
        #expect(JSONValue.object(metadata).compactText == #"{"flagSetId":"testSetId","version":"v66"}"#)
        // Go answers a DISABLED flag with reason ERROR and FLAG_DISABLED; prefs with reason
        // DISABLED, as OpenFeature's providers and flagd's testbed do.
        let disabled = flags.evaluate("disabledFlag", type: .boolean, default: .bool(false))
        #expect(disabled.reason == "DISABLED" && disabled.errorCode == nil && disabled.value == .bool(false), "\(disabled)")
    }

    @Test(arguments: GoVectors.flagRows)
    func flagRowsAnswerAsFlagd(row: GoVectors.FlagRow) throws {
        // The rollout document's own flags roll from/to variants named old/new.
        var flags = try Self.flagSet(key: row.key, targeting: row.targeting, version: .v3)
        if row.source == GoVectors.rollout {
            let document =
                #"{"flags": {"\#(row.key)": {"state": "ENABLED", "variants": {"old": "old-value", "new": "new-value"}, "defaultVariant": "old", "targeting": \#(row.targeting)}}}"#
            let members = try FlagDocument.validate(JSONValue(parsing: document))
            flags = FlagSet(entries: members.map { ($0.key, $0.value) })
        }
        let result = flags.evaluate(row.key, type: .string, default: .string("?"), context: try Self.context(row.context))
        #expect(result.variant == row.variant && result.reason == row.reason, "\(row.name): \(result)")
    }

    /// fractional_test.go's expectations (at open-feature/flagd 29c0552) are those of the
    /// legacy percentage bucketing, `abs(int32 h) / 2147483647 * 100`: prefs' hashing version 1.
    @Test(arguments: GoVectors.fractionalRows)
    func fractionalRowsAnswerAsFlagdAtVersion1(row: GoVectors.FlagRow) throws {
        let flags = try Self.flagSet(key: row.key, targeting: row.targeting, version: .v1)
        let result = flags.evaluate(row.key, type: .string, default: .string("?"), context: try Self.context(row.context))
        #expect(result.variant == row.variant && result.reason == row.reason, "\(row.name): \(result)")
    }

    @Test(arguments: GoVectors.ruleRows)
    func ruleRowsGiveFlagdsResult(row: GoVectors.RuleRow) throws {
        #expect(try logic(row.rule, row.data).compactText == row.result, "\(row.name)")
    }

    /// TestRolloutDeterminism and TestRolloutTimeProgression: one user always lands on the
    /// same side, and the share rolled grows with the time (5,000 users; within the Go test's
    /// bounds: 0 at the start, 20–30 % at a quarter, 45–55 % halfway, 70–80 % at three
    /// quarters, all at the end).
    @Test func rolloutIsDeterministicAndProgresses() throws {
        let rule = try JSONLogic(JSONValue(parsing: #"{"rollout": [1704067200, 1706745600, "old", "new"]}"#))
        let duration = GoVectors.end - GoVectors.start
        let middle = GoVectors.start + duration / 2
        let same = try JSONValue(parsing: #"{"targetingKey": "same-user@example.com", \#(GoVectors.flagd(middle))}"#)
        let first = rule.evaluate(LogicValue(same))
        for _ in 0..<100 { #expect(rule.evaluate(LogicValue(same)) == first) }
        for (time, low, high) in [
            (GoVectors.start, 0.0, 0.0), (GoVectors.start + duration / 4, 0.20, 0.30), (middle, 0.45, 0.55),
            (GoVectors.start + 3 * duration / 4, 0.70, 0.80), (GoVectors.end, 1.0, 1.0),
        ] {
            var rolled = 0
            for user in 0..<5000 {
                let data = try JSONValue(parsing: #"{"targetingKey": "user-\#(user)", \#(GoVectors.flagd(time))}"#)
                if rule.evaluate(LogicValue(data)) == .string("new") { rolled += 1 }
            }
            let share = Double(rolled) / 5000
            #expect(share >= low && share <= high, "at \(time): \(share)")
        }
    }
}

/// docs/flags.md's table "where prefs follows flagd's Go evaluator, where it follows
/// json-logic-js, and why": one test per row.
@Suite("flagd Go evaluator decisions", .timeLimit(.minutes(5)))
struct FlagdDecisionTests {
    static func flags(_ flags: String) throws -> FlagSet {
        let members = try FlagDocument.validate(JSONValue(parsing: #"{"flags": {\#(flags)}}"#))
        return FlagSet(entries: members.map { ($0.key, $0.value) })
    }

    @Test func fractionalWithoutABucketingValueOrTargetingKeyIsTheDefault() throws {
        // fractional.go: no string bucketing value and no targetingKey is an error, null, the
        // default variant (flagd-testbed's fractional-null-bucket-key-flag: "fallback", DEFAULT).
        let set = try Self.flags(
            #""seeded": {"state": "ENABLED", "variants": {"a": "A", "b": "B", "fallback": "F"}, "defaultVariant": "fallback", "targeting": {"fractional": [{"var": "user.name"}, ["a", 50], ["b", 50]]}},"#
                + #""basic": {"state": "ENABLED", "variants": {"a": "A", "b": "B", "fallback": "F"}, "defaultVariant": "fallback", "targeting": {"fractional": [["a", 50], ["b", 50]]}}"#
        )
        for key in ["seeded", "basic"] {
            let none = set.evaluate(key, type: .string, default: .string("wrong"))
            #expect(none.value == .string("F") && none.variant == "fallback" && none.reason == "DEFAULT", "\(key): \(none)")
            let keyed = set.evaluate(key, type: .string, default: .string("wrong"), context: ["targetingKey": .string("user-1")])
            #expect(keyed.reason == "TARGETING_MATCH" && ["a", "b"].contains(keyed.variant), "\(key): \(keyed)")
        }
    }

    @Test func aBooleanReadAsFloatIsATypeMismatch() throws {
        // json.go: resolve[float64] asserts the variant is a float64; a bool is not.
        let set = try Self.flags(#""b": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "on"}"#)
        let result = set.evaluate("b", type: .float, default: .number("0.5"))
        #expect(result.reason == "ERROR" && result.errorCode == "TYPE_MISMATCH" && result.value == .number("0.5"), "\(result)")
    }

    @Test func aWholeFloatReadAsIntegerIsThatInteger() throws {
        // json.go: ResolveIntValue reads a float64 and converts it: 0.0 is 0. A float with a
        // fraction stays a TYPE_MISMATCH in prefs (Go would truncate 0.5 to 0).
        let set = try Self.flags(
            #""float-zero-flag": {"state": "ENABLED", "variants": {"zero": 0.0, "half": 0.5}, "defaultVariant": "zero"},"#
                + #""half": {"state": "ENABLED", "variants": {"zero": 0.0, "half": 0.5}, "defaultVariant": "half"}"#)
        let zero = set.evaluate("float-zero-flag", type: .integer, default: .number("1"))
        #expect(zero.value == .number("0") && zero.variant == "zero" && zero.reason == "STATIC", "\(zero)")
        let asFloat = set.evaluate("float-zero-flag", type: .float, default: .number("0.1"))
        #expect(asFloat.value == .number("0.0") && asFloat.reason == "STATIC", "\(asFloat)")
        let half = set.evaluate("half", type: .integer, default: .number("1"))
        #expect(half.errorCode == "TYPE_MISMATCH" && half.value == .number("1"), "\(half)")
    }

    @Test func anEmptyStringComparesAsZero() throws {
        // diegoholiveira/jsonlogic's ToNumber("") is 0, as JavaScript's: `timestamp > ""` is true.
        let data = #"{"time": "", "$flagd": {"flagKey": "timestamp-flag", "timestamp": 1800000000}}"#
        #expect(try logic(#"{">": [{"var": "$flagd.timestamp"}, {"var": "time"}]}"#, data) == .bool(true))
        #expect(try logic(#"{"<": [{"var": "$flagd.timestamp"}, {"var": "time"}]}"#, data) == .bool(false))
    }

    @Test func catJoinsAMissingValueAsEmptyAndTrims() throws {
        // jsonlogic's concat: ToString(nil) is "", and the joined text is strings.TrimSpace'd.
        #expect(try logic(#"{"cat": ["a", {"var": "missing"}, "b"]}"#) == .string("ab"))
        #expect(try logic(#"{"cat": [" hello ", {"var": "name"}, " "]}"#, #"{"name": "ada"}"#) == .string("hello ada"))
        #expect(try logic(#"{"cat": ["\t", " "]}"#) == .string(""))
        #expect(try logic(#"{"cat": ["a", " ", "b"]}"#) == .string("a b"), "inner white space is kept")
    }

    @Test func aNumberFromTargetingNamesTheVariantOfItsText() throws {
        // json.go strips the quotes from the result's JSON text and looks it up: 3 is variant
        // "3" (the Python core does the same). A number no variant is named for is GENERAL.
        let set = try Self.flags(
            #""n": {"state": "ENABLED", "variants": {"3": "three", "1.5": "one and a half", "x": "x"}, "defaultVariant": "x", "targeting": {"+": [1, 2]}},"#
                + #""f": {"state": "ENABLED", "variants": {"3": "three", "1.5": "one and a half", "x": "x"}, "defaultVariant": "x", "targeting": {"/": [3, 2]}},"#
                + #""none": {"state": "ENABLED", "variants": {"x": "x"}, "defaultVariant": "x", "targeting": {"+": [1, 2]}}"#)
        let three = set.evaluate("n", type: .string, default: .string("?"))
        #expect(three.value == .string("three") && three.variant == "3" && three.reason == "TARGETING_MATCH", "\(three)")
        let half = set.evaluate("f", type: .string, default: .string("?"))
        #expect(half.variant == "1.5" && half.reason == "TARGETING_MATCH", "\(half)")
        let none = set.evaluate("none", type: .string, default: .string("?"))
        #expect(none.reason == "ERROR" && none.errorCode == "GENERAL", "\(none)")
    }

    @Test func rolloutTimesAre32BitSeconds() throws {
        // rollout.go reads its times as int32; prefs gives null beyond that instead of wrapping.
        let data = #"{"targetingKey": "u", "$flagd": {"flagKey": "f", "timestamp": 1800000000}}"#
        #expect(try logic(#"{"rollout": [1700000000, 1750000000, "old", "new"]}"#, data) == .string("new"))
        #expect(try logic(#"{"rollout": [1700000000, 4294967296, "old", "new"]}"#, data) == .null)
        #expect(try logic(#"{"rollout": [1700000000.9, 1750000000.2, "old", "new"]}"#, data) == .string("new"), "truncated as Go's int32()")
    }

    @Test func regexMatchIsAnUnknownOperator() throws {
        // Some versions of string_comparison_test.go test a regex_match; flagd does not document
        // it and prefs does not implement it: the rule does not compile, the flag is PARSE_ERROR.
        #expect(throws: RuleError.self) { try JSONLogic(JSONValue(parsing: #"{"regex_match": ["user@faas.com", ".*"]}"#)) }
        let set = try Self.flags(
            #""f": {"state": "ENABLED", "variants": {"a": 1}, "defaultVariant": "a", "targeting": {"regex_match": ["a", "a"]}}"#)
        let result = set.evaluate("f", type: .integer, default: .number("0"))
        #expect(result.reason == "ERROR" && result.errorCode == "PARSE_ERROR", "\(result)")
    }

    @Test func statsShowsARolloutsConfiguredShare() throws {
        // A quarter of the window elapsed: `to` is configured at 25%, and about that many land on it.
        let set = try Self.flags(
            #""r": {"state": "ENABLED", "variants": {"old": "o", "new": "n"}, "defaultVariant": "old", "targeting": {"rollout": [1000000000, 1000400000, "new"]}}"#
        )
        let stats = try FlagDistribution.measure("r", in: set, contexts: .synthetic(count: 20_000, seed: 3), now: 1_000_100_000)
        #expect(stats.hasFractional)
        let rolled = try #require(stats.buckets.first { $0.outcome == "new" })
        let rest = try #require(stats.buckets.first { $0.outcome == "old" })
        #expect(rolled.configuredPercent == 25 && rest.configuredPercent == 75, "\(stats.buckets)")
        #expect(abs(Double(rolled.count) / 200 - 25) < 1.5, "\(rolled.count)")
        // The shorthand rolls from the default variant: its outcome is DEFAULT, named `old`.
        #expect(rest.count + rolled.count == 20_000, "\(stats.buckets)")
    }

    @Test func rolloutWithoutATimestampIsNull() throws {
        // rollout.go: a zero $flagd.timestamp is an error (null).
        #expect(try logic(#"{"rollout": [1700000000, 1750000000, "old", "new"]}"#, #"{"targetingKey": "u"}"#) == .null)
    }
}
