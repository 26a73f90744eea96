import Foundation
import PrefsCore
import Testing

/// Evaluates a JSONLogic rule (JSON text) against data (JSON text).
func logic(_ rule: String, _ data: String = "{}", version: FractionalVersion = .v2) throws -> JSONValue {
    try JSONLogic(JSONValue(parsing: rule), fractionalVersion: version).evaluate(LogicValue(JSONValue(parsing: data))).json
}

@Suite("JSONLogic operators", .timeLimit(.minutes(5)))
struct JSONLogicTests {
    @Test(arguments: [
        // var, missing
        (#"{"var":"a.b"}"#, #"{"a":{"b":3}}"#, "3"), (#"{"var":["x", 9]}"#, "{}", "9"), (#"{"var":"list.1"}"#, #"{"list":[5,6]}"#, "6"),
        (#"{"var":""}"#, "7", "7"), (#"{"missing":["a","b"]}"#, #"{"a":1}"#, #"["b"]"#),
        (#"{"missing_some":[1,["a","b"]]}"#, #"{"b":1}"#, "[]"), (#"{"missing_some":[2,["a","b"]]}"#, #"{"b":1}"#, #"["a"]"#),
        // if
        (#"{"if":[true,"y","n"]}"#, "{}", #""y""#), (#"{"if":[false,"a",true,"b","c"]}"#, "{}", #""b""#),
        (#"{"if":[false,"a"]}"#, "{}", "null"),
        (#"{"if":[[],"a","b"]}"#, "{}", #""b""#),
        // equality and logic
        (#"{"==":[1,"1"]}"#, "{}", "true"), (#"{"===":[1,"1"]}"#, "{}", "false"), (#"{"!=":[1,2]}"#, "{}", "true"),
        (#"{"!==":[1,1]}"#, "{}", "false"), (#"{"==":[null,0]}"#, "{}", "false"), (#"{"!":[0]}"#, "{}", "true"),
        (#"{"!!":["x"]}"#, "{}", "true"),
        (#"{"or":[0,"",3]}"#, "{}", "3"), (#"{"and":[1,0,2]}"#, "{}", "0"), (#"{"and":[1,2]}"#, "{}", "2"),
        // comparison
        (#"{"<":[1,2]}"#, "{}", "true"), (#"{"<":[1,2,3]}"#, "{}", "true"), (#"{"<":[1,3,2]}"#, "{}", "false"),
        (#"{"<=":[2,2,3]}"#, "{}", "true"),
        (#"{">":[3,2]}"#, "{}", "true"), (#"{">=":[2,2]}"#, "{}", "true"), (#"{"<":["a","b"]}"#, "{}", "true"),
        // arithmetic
        (#"{"%":[7,3]}"#, "{}", "1"), (#"{"/":[1,4]}"#, "{}", "0.25"), (#"{"*":[2,3,4]}"#, "{}", "24"), (#"{"+":[1,"2",3]}"#, "{}", "6"),
        (#"{"-":[5,7]}"#, "{}", "-2"), (#"{"-":[5]}"#, "{}", "-5"), (#"{"min":[3,1,2]}"#, "{}", "1"), (#"{"max":[3,1,2]}"#, "{}", "3"),
        // strings and arrays
        (#"{"merge":[[1],[2,[3]],4]}"#, "{}", "[1,2,[3],4]"), (#"{"cat":["a",1,true,null]}"#, "{}", #""a1true""#),
        (#"{"substr":["jsonlogic",4]}"#, "{}", #""logic""#), (#"{"substr":["jsonlogic",-5,3]}"#, "{}", #""log""#),
        (#"{"substr":["jsonlogic",1,-3]}"#, "{}", #""sonlo""#), (#"{"in":["Spring","Springfield"]}"#, "{}", "true"),
        (#"{"in":["b",["a","b"]]}"#, "{}", "true"), (#"{"map":[[1,2],{"*":[{"var":""},2]}]}"#, "{}", "[2,4]"),
        (#"{"filter":[[1,2,3],{">":[{"var":""},1]}]}"#, "{}", "[2,3]"), (#"{"all":[[1,2],{">":[{"var":""},0]}]}"#, "{}", "true"),
        (#"{"all":[[],{">":[{"var":""},0]}]}"#, "{}", "false"), (#"{"none":[[1,2],{">":[{"var":""},5]}]}"#, "{}", "true"),
        (#"{"some":[[1,2],{">":[{"var":""},1]}]}"#, "{}", "true"),
        (#"{"reduce":[[1,2,3],{"+":[{"var":"current"},{"var":"accumulator"}]},10]}"#, "{}", "16"),
        // flagd: starts_with / ends_with
        (#"{"starts_with":["abc","ab"]}"#, "{}", "true"), (#"{"ends_with":["abc","bc"]}"#, "{}", "true"),
        (#"{"ends_with":["abc",1]}"#, "{}", "null"), (#"{"starts_with":["abc"]}"#, "{}", "null"),
        (#"{"starts_with":[1,"1"]}"#, "{}", "null"),
    ])
    func operators(rule: String, data: String, expected: String) throws {
        #expect(try logic(rule, data).compactText == expected, "\(rule)")
    }

    @Test func unknownOperatorsAreRuleErrors() {
        #expect(throws: RuleError.self) { try JSONLogic(JSONValue(parsing: #"{"frobnicate":[1]}"#)) }
        #expect(throws: RuleError.self) { try JSONLogic(JSONValue(parsing: #"{"if":[{"nope":1},1,2]}"#)) }
    }

    @Test(arguments: [
        ("1.2.3", "=", "1.2.3", "true"), ("v1.2.3", "=", "1.2.3", "true"), ("V1.2.3", "=", "1.2.3", "true"), ("1", "=", "1.0.0", "true"),
        ("1.2", "=", "1.2.0", "true"), ("1.2.3", "!=", "1.2.4", "true"), ("1.2.3", "<", "1.10.0", "true"), ("1.2.3", "<=", "1.2.3", "true"),
        ("2.0.0", ">", "1.99.99", "true"), ("2.0.0", ">=", "2.0.0", "true"), ("2.0.0-alpha", "<", "2.0.0", "true"),
        ("2.0.0-alpha", "<", "2.0.0-alpha.1", "true"), ("2.0.0-alpha.1", "<", "2.0.0-alpha.beta", "true"),
        ("2.0.0-beta.2", "<", "2.0.0-beta.11", "true"), ("2.0.0-rc.1", "<", "2.0.0", "true"), ("1.0.0+build.1", "=", "1.0.0+other", "true"),
        ("1.5.0", "^", "1.9.9", "true"), ("2.0.0", "^", "1.9.9", "false"), ("1.5.3", "~", "1.5.0", "true"),
        ("1.6.0", "~", "1.5.0", "false"),
        ("not.a.version", "=", "1.0.0", "null"), ("1.2.3.4", "=", "1.2.3", "null"), ("1.2.3", "===", "1.2.3", "null"),
        ("01.2.3", "=", "1.2.3", "null"),
        ("18446744073709551615.0.0", ">", "1.0.0", "true"),
        // Numeric identifiers of any length (issue 17): compared as digit strings.
        ("18446744073709551616.0.0", ">", "1.0.0", "true"), ("99999999999999999999.0.0", ">=", "1.2.3", "true"),
        ("99999999999999999999.0.0", ">", "18446744073709551615.0.0", "true"), ("1.2.3", "<", "99999999999999999999.0.0", "true"),
        ("100000000000000000000.0.0", ">", "99999999999999999999.0.0", "true"),
        ("99999999999999999999.1.0", "=", "v99999999999999999999.1", "true"),
        ("99999999999999999999.1.0", "^", "99999999999999999999.7.0", "true"),
        ("99999999999999999998.1.0", "^", "99999999999999999999.1.0", "false"),
        ("1.99999999999999999999.5", "~", "1.99999999999999999999.0", "true"),
        ("1.2.99999999999999999999", "<", "1.2.100000000000000000000", "true"), ("018446744073709551616.0.0", "=", "1.0.0", "null"),
        ("1.2.3-99999999999999999999", ">", "1.2.3-18446744073709551615", "true"),
        ("1.2.3-99999999999999999999", "<", "1.2.3-alpha", "true"),
        ("1.2.3-100000000000000000000", ">", "1.2.3-99999999999999999999", "true"),
        ("18446744073709551616.0.0", ">", "18446744073709551615.0.0", "true"),
        ("18446744073709551615.0.0", "<", "18446744073709551616.0.0", "true"),
        ("18446744073709551615.0.0", "=", "18446744073709551615.0.0", "true"),
        ("99999999999999999999", "=", "99999999999999999999.0.0", "true"),
        ("2.99999999999999999999", ">", "2.99999999999999999998.7", "true"),
        ("v1.2.99999999999999999999-rc.1", "<", "1.2.99999999999999999999", "true"),
        ("1.2.3-", "=", "1.2.3", "null"), ("1.2.3+", "=", "1.2.3", "null"), ("1.2.3-01", "=", "1.2.3", "null"),
        ("1.2.3-0a", "<", "1.2.3", "true"), ("1..3", "=", "1.0.3", "null"), ("", "=", "1.0.0", "null"), ("v", "=", "0.0.0", "null"),
        ("1.2.3-rc.1+build.5", "=", "1.2.3-rc.1", "true"), ("1.2.3-rc+b.", "=", "1.2.3-rc", "null"), ("1.2.3-r_c", "=", "1.2.3", "null"),
    ])
    func semVer(left: String, op: String, right: String, expected: String) throws {
        let rule = "{\"sem_ver\":[\"\(left)\",\"\(op)\",\"\(right)\"]}"
        #expect(try logic(rule).compactText == expected, "\(rule)")
    }

    @Test func semVerEdgeArguments() throws {
        #expect(try logic(#"{"sem_ver":[2,">=","1.0.0"]}"#) == .bool(true), "numbers become strings")
        #expect(try logic(#"{"sem_ver":[1.5,"=","1.5.0"]}"#) == .bool(true))
        #expect(try logic(#"{"sem_ver":["1.0.0",">="]}"#) == .null, "wrong argument count")
        #expect(try logic(#"{"sem_ver":["1.0.0","<>","1.0.0"]}"#) == .null, "unknown operator")
    }
}

@Suite("fractional and hashing", .timeLimit(.minutes(5)))
struct FractionalTests {
    @Test(arguments: [("ejOoVL", UInt32(0)), ("bY9fO-", 1), ("SI7p-", 2_147_483_647), ("6LvT0", 2_147_483_648), ("ceQdGm", 4_294_967_295)])
    func murmurCheckValues(text: String, hash: UInt32) {
        #expect(MurmurHash3.x86Hash32(Array(text.utf8), seed: 0) == hash)
    }

    @Test func bucketingByKeyIsStable() throws {
        let rule = #"{"fractional":[{"var":"id"},["a",50],["b",50]]}"#
        let first = try logic(rule, #"{"id":"user-1"}"#)
        for _ in 0..<5 { #expect(try logic(rule, #"{"id":"user-1"}"#) == first) }
        // The hash range ends map to the first and last bucket.
        #expect(try logic(#"{"fractional":["ejOoVL",["a",1],["b",1]]}"#) == .string("a"))
        #expect(try logic(#"{"fractional":["ceQdGm",["a",1],["b",1]]}"#) == .string("b"))
    }

    @Test func edgeCasesGiveNull() throws {
        let data = #"{"targetingKey":"k","$flagd":{"flagKey":"f"}}"#
        #expect(try logic(#"{"fractional":[["a",0],["b",0]]}"#, data) == .null, "total weight 0")
        #expect(try logic(#"{"fractional":[["a",2147483647],["b",1]]}"#, data) == .null, "total weight too large")
        #expect(try logic(#"{"fractional":[["a",1.5],["b",1]]}"#, data) == .null, "non-integer weight")
        // A negative weight makes the result null, as flagd's Go evaluator (ruled in FLAGD.md).
        #expect(try logic(#"{"fractional":[["a",-5],["b",1]]}"#, data) == .null, "negative weight")
        #expect(try logic(#"{"fractional":[["a",1],["b",-1]]}"#, data) == .null, "negative weight, last")
        #expect(try logic(#"{"fractional":["user-1",["a",-1],["b",2],["c",1]]}"#, data) == .null, "negative weight, with bucketBy")
        #expect(try logic(#"{"fractional":[["a",{"-":[0,3]}],["b",1]]}"#, data) == .null, "a rule giving a negative weight")
        #expect(try logic(#"{"fractional":[["a",-0.0],["b",1]]}"#, data) == .string("b"), "-0 is a weight of 0")
        #expect(try logic(#"{"fractional":[["a"],["b"]]}"#, data) != .null, "missing weight is 1")
        #expect(try logic(#"{"fractional":[["a",1],["b",1]]}"#, #"{"$flagd":{"flagKey":"f"}}"#) == .null, "no targeting key")
        #expect(try logic(#"{"fractional":[["a",1],["b",1]]}"#, #"{"targetingKey":"","$flagd":{"flagKey":"f"}}"#) == .null)
        #expect(try logic(#"{"fractional":[{"if":[true,"a","b"]},["x",1]]}"#, data) == .string("x"), "bucketBy may be a rule")
        #expect(try logic(#"{"fractional":[[{"cat":["v","1"]},1]]}"#, data) == .string("v1"), "a variant may be a rule")
    }

    @Test func splitLandsWithinOnePercentOfTheWeights() throws {
        let rule = try JSONLogic(JSONValue(parsing: #"{"fractional":[["a",50],["b",30],["c",20]]}"#))
        var counts: [String: Int] = [:]
        for i in 0..<100_000 {
            let data = LogicValue.object(["targetingKey": .string("user-\(i)"), "$flagd": .object(["flagKey": .string("split")])])
            if case .string(let variant) = rule.evaluate(data) { counts[variant, default: 0] += 1 }
        }
        #expect(abs(Double(counts["a"] ?? 0) / 1000 - 50) < 1)
        #expect(abs(Double(counts["b"] ?? 0) / 1000 - 30) < 1)
        #expect(abs(Double(counts["c"] ?? 0) / 1000 - 20) < 1)
    }

    @Test func hashingVersionsDiffer() throws {
        let data = #"{"targetingKey":"user-7","$flagd":{"flagKey":"f"}}"#
        let rule = #"{"fractional":[["a",1],["b",1],["c",1],["d",1]]}"#
        let results = try FractionalVersion.allCases.map { try logic(rule, data, version: $0) }
        #expect(results.allSatisfy { if case .string = $0 { true } else { false } })
        // v2 is flagKey + targetingKey hashed as UTF-8.
        let hash = MurmurHash3.x86Hash32(Array("fuser-7".utf8))
        let bucket = (UInt64(hash) * 4) >> 32
        #expect(results[1] == .string(["a", "b", "c", "d"][Int(bucket)]))
    }

    /// v3 without `bucketBy` hashes the CBOR array `[flagKey, targetingKey]`: 0x82, then each
    /// string as 0x60 + length and its bytes.
    @Test func versionThreeHashesTheCBORPair() throws {
        let data = #"{"targetingKey":"user-7","$flagd":{"flagKey":"f"}}"#
        let bytes: [UInt8] = [0x82, 0x61] + Array("f".utf8) + [0x66] + Array("user-7".utf8)
        let bucket = (UInt64(MurmurHash3.x86Hash32(bytes)) * 4) >> 32
        let result = try logic(#"{"fractional":[["a",1],["b",1],["c",1],["d",1]]}"#, data, version: .v3)
        #expect(result == .string(["a", "b", "c", "d"][Int(bucket)]))
        let long = String(repeating: "k", count: 300)
        let longBytes: [UInt8] = [0x82, 0x61] + Array("f".utf8) + [0x79, 0x01, 0x2C] + Array(long.utf8)
        let longBucket = (UInt64(MurmurHash3.x86Hash32(longBytes)) * 4) >> 32
        let longData = #"{"targetingKey":"\#(long)","$flagd":{"flagKey":"f"}}"#
        #expect(
            try logic(#"{"fractional":[["a",1],["b",1],["c",1],["d",1]]}"#, longData, version: .v3)
                == .string(["a", "b", "c", "d"][Int(longBucket)]))
    }
}

@Suite("flag evaluation", .timeLimit(.minutes(5)))
struct FlagEvaluationTests {
    static let document = """
        {"metadata": {"flagSetId": "shop", "version": 3},
         "$evaluators": {"is_staff": {"ends_with": [{"var": "email"}, "@example.com"]}},
         "flags": {
           "static-on": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "on", "metadata": {"version": 4}},
           "no-default": {"state": "ENABLED", "variants": {"on": true}},
           "off": {"state": "DISABLED", "variants": {"on": true}, "defaultVariant": "on", "targeting": {"frobnicate": 1}},
           "staff": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off",
                     "targeting": {"if": [{"$ref": "is_staff"}, "on", null]}},
           "staff-spaced": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off",
                     "targeting": {"if": [{ "$ref" :  "is_staff" }, "on", null]}},
           "bools": {"state": "ENABLED", "variants": {"true": "yes", "false": "no"}, "defaultVariant": "false",
                     "targeting": {"==": [{"var": "plan"}, "pro"]}},
           "null-nodefault": {"state": "ENABLED", "variants": {"a": 1}, "targeting": {"if": [false, "a", null]}},
           "unknown-variant": {"state": "ENABLED", "variants": {"a": 1}, "defaultVariant": "a", "targeting": {"cat": ["z"]}},
           "bad-op": {"state": "ENABLED", "variants": {"a": 1}, "defaultVariant": "a", "targeting": {"frobnicate": [1]}},
           "bad-ref": {"state": "ENABLED", "variants": {"a": 1}, "defaultVariant": "a", "targeting": {"$ref": "missing"}},
           "flagd-context": {"state": "ENABLED", "variants": {"a": "A", "b": "B"}, "defaultVariant": "a",
                     "targeting": {"if": [{"==": [{"var": "$flagd.flagKey"}, "flagd-context"]}, "b", "a"]}},
           "version-gate": {"state": "ENABLED", "variants": {"new": "new", "old": "old"}, "defaultVariant": "old",
                     "targeting": {"if": [{"and": [{"ends_with": [{"var": "email"}, "@example.com"]}, {"sem_ver": [{"var": "app"}, ">=", "2.1"]}]}, "new", "old"]}}
         }}
        """

    func flags() throws -> FlagSet {
        let members = try FlagDocument.validate(JSONValue(parsing: Self.document))
        return FlagSet(entries: members.map { ($0.key, $0.value) } + [("plain", .number("42"))])
    }

    func context(_ text: String) throws -> [String: LogicValue] {
        guard case .object(let object) = LogicValue(try JSONValue(parsing: text)) else { return [:] }
        return object
    }

    @Test func theReasonAndErrorTable() throws {
        let flags = try flags()
        let fallback = JSONValue.bool(false)
        func eval(_ key: String, _ type: FlagType = .boolean, _ ctx: String = "{}", _ def: JSONValue = fallback) throws -> FlagResolution {
            flags.evaluate(key, type: type, default: def, context: try context(ctx))
        }
        var r = try eval("missing")
        #expect((r.reason, r.errorCode, r.value) == ("ERROR", "FLAG_NOT_FOUND", fallback))
        r = try eval("off", .boolean, "{}", .bool(false))
        #expect((r.reason, r.errorCode, r.value, r.variant) == ("DISABLED", nil, .bool(false), nil), "targeting not run")
        r = try eval("static-on")
        #expect((r.reason, r.value, r.variant) == ("STATIC", .bool(true), "on"))
        r = try eval("no-default", .boolean, "{}", .bool(false))
        #expect((r.reason, r.value, r.variant) == ("DEFAULT", .bool(false), nil))
        r = try eval("staff", .boolean, #"{"email":"x@other.org"}"#)
        #expect((r.reason, r.value, r.variant) == ("DEFAULT", .bool(false), "off"), "targeting null → default variant")
        r = try eval("null-nodefault", .integer, "{}", .number("9"))
        #expect((r.reason, r.value, r.variant) == ("DEFAULT", .number("9"), nil), "no default variant → caller default")
        r = try eval("staff", .boolean, #"{"email":"ada@example.com"}"#)
        #expect((r.reason, r.value, r.variant) == ("TARGETING_MATCH", .bool(true), "on"))
        r = try eval("staff-spaced", .boolean, #"{"email":"ada@example.com"}"#)
        #expect(r.reason == "TARGETING_MATCH", "$ref with whitespace")
        r = try eval("bools", .string, #"{"plan":"pro"}"#, .string("?"))
        #expect((r.reason, r.value, r.variant) == ("TARGETING_MATCH", .string("yes"), "true"), "true → variant named \"true\"")
        r = try eval("bools", .string, #"{"plan":"free"}"#, .string("?"))
        #expect((r.value, r.variant) == (.string("no"), "false"))
        r = try eval("unknown-variant", .integer, "{}", .number("0"))
        #expect((r.reason, r.errorCode, r.value) == ("ERROR", "GENERAL", .number("0")))
        r = try eval("bad-op", .integer, "{}", .number("0"))
        #expect((r.reason, r.errorCode) == ("ERROR", "PARSE_ERROR"))
        r = try eval("bad-ref", .integer, "{}", .number("0"))
        #expect((r.reason, r.errorCode) == ("ERROR", "PARSE_ERROR"))
        r = try eval("static-on", .string, "{}", .string("s"))
        #expect((r.reason, r.errorCode, r.value) == ("ERROR", "TYPE_MISMATCH", .string("s")))
        r = try eval("plain", .integer, "{}", .number("0"))
        #expect((r.reason, r.value) == ("STATIC", .number("42")), "plain values are static flags")
        for (value, integer) in [
            ("2.0", true), ("-9223372036854775808", true), ("1e20", false), ("9223372036854775808", false), ("1e999", false),
        ] {
            let plain = FlagSet(entries: [("n", .number(value))])
            let result = plain.evaluate("n", type: .integer, default: .number("0"), context: [:])
            #expect(
                result.reason == (integer ? "STATIC" : "ERROR") && (integer || result.errorCode == "TYPE_MISMATCH"), "\(value): \(result)")
        }
        r = try eval("flagd-context", .string, #"{"$flagd":{"flagKey":"spoofed"}}"#, .string("?"))
        #expect(r.value == .string("B"), "$flagd is set by the evaluator")
        r = try eval("version-gate", .string, #"{"email":"a@example.com","app":"v2.3.0"}"#, .string("?"))
        #expect(r.value == .string("new"))
        r = try eval("version-gate", .string, #"{"email":"a@example.com","app":"2.0"}"#, .string("?"))
        #expect(r.value == .string("old"))
    }

    @Test func metadataIsMerged() throws {
        let r = try flags().evaluate("static-on", type: .boolean, default: .bool(false))
        #expect(JSONValue.object(r.metadata).compactText == #"{"flagSetId":"shop","version":4}"#)
        let other = try flags().evaluate("staff", type: .boolean, default: .bool(false))
        #expect(JSONValue.object(other.metadata).compactText == #"{"flagSetId":"shop","version":3}"#)
    }

    @Test func timestampIsSeconds() throws {
        let members = try FlagDocument.validate(
            JSONValue(
                parsing:
                    #"{"flags":{"t":{"state":"ENABLED","variants":{"a":"a","b":"b"},"defaultVariant":"a","targeting":{"if":[{">":[{"var":"$flagd.timestamp"},1700000000]},"b","a"]}}}}"#
            ))
        let r = FlagSet(entries: members.map { ($0.key, $0.value) }).evaluate("t", type: .string, default: .string("?"), now: 1_800_000_000)
        #expect(r.value == .string("b"))
    }

    @Test(arguments: [
        ("[]", "$: a flagd document"), ("{}", "$.flags: required"), (#"{"flags":{"f":{"variants":{"a":1}}}}"#, "$.flags.f.state"),
        (#"{"flags":{"f":{"state":"ON","variants":{"a":1}}}}"#, "$.flags.f.state"),
        (#"{"flags":{"f":{"state":"ENABLED","variants":{}}}}"#, "$.flags.f.variants"),
        (#"{"flags":{"f":{"state":"ENABLED","variants":{"a":1,"b":"x"}}}}"#, "one type"),
        (#"{"flags":{"f":{"state":"ENABLED","variants":{"a":1},"defaultVariant":"z"}}}"#, "$.flags.f.defaultVariant"),
        (#"{"flags":{"f":{"state":"ENABLED","variants":{"a":1},"targeting":[1]}}}"#, "$.flags.f.targeting"),
        (#"{"flags":{"f":{"state":"ENABLED","variants":{"a":1},"metadata":{"x":[1]}}}}"#, "$.flags.f.metadata.x"),
        (#"{"flags":{},"extra":1}"#, "$.extra"), (#"{"flags":{"f":{"state":"ENABLED","variants":{"a":[1]}}}}"#, "one type"),
    ])
    func invalidDocumentsAreRefused(document: String, message: String) throws {
        do {
            _ = try FlagDocument.validate(JSONValue(parsing: document))
            Issue.record("accepted \(document)")
        } catch let error as PrefsError {
            #expect(error.kind == .invalidValue)
            #expect(error.message.contains(message), "\(error.message)")
        }
    }
}

/// Issue 17: edges where prefs differed from json-logic-js and the JSONLogic suites.
@Suite("JSONLogic edge semantics", .timeLimit(.minutes(5)))
struct JSONLogicEdgeTests {
    @Test(arguments: [
        // cat: null and missing values concatenate as empty (Array.prototype.join).
        (#"{"cat":[null,"test",null]}"#, "{}", #""test""#), (#"{"cat":[{"var":"nope"},"test",{"var":"x"}]}"#, #"{"x":null}"#, #""test""#),
        (#"{"cat":[[1,null,2],"|"]}"#, "{}", #""1,,2|""#),
        // One operand of / and %: x / undefined is NaN, and NaN has no JSON form: null.
        (#"{"/":[4]}"#, "{}", "null"), (#"{"cat":[{"/":[4]}]}"#, "{}", #""NaN""#), (#"{"%":[4]}"#, "{}", "null"),
        (#"{"cat":[{"%":[4]}]}"#, "{}", #""NaN""#), (#"{"cat":[{"/":[1,0]}]}"#, "{}", #""Infinity""#),
        // One operand of *: JavaScript's +x.
        (#"{"*":[true]}"#, "{}", "1"), (#"{"*":[null]}"#, "{}", "0"), (#"{"*":[""]}"#, "{}", "0"), (#"{"*":["2.5"]}"#, "{}", "2.5"),
        (#"{"*":[false]}"#, "{}", "0"), (#"{"*":["3px"]}"#, "{}", "null"), (#"{"*":"4"}"#, "{}", "4"),
        // A missing operand is undefined: false in both directions.
        (#"{">":[1]}"#, "{}", "false"), (#"{">=":[]}"#, "{}", "false"), (#"{"<":[1]}"#, "{}", "false"), (#"{"<=":[]}"#, "{}", "false"),
        (#"{">=":[1]}"#, "{}", "false"), (#"{"<=":[1]}"#, "{}", "false"), (#"{">":[]}"#, "{}", "false"), (#"{"<":[]}"#, "{}", "false"),
        (#"{">":[1,null]}"#, "{}", "true"),
        // No operands of and/or: false.
        (#"{"and":[]}"#, "{}", "false"), (#"{"or":[]}"#, "{}", "false"), (#"{"!":{"and":[]}}"#, "{}", "true"),
    ])
    func edges(rule: String, data: String, expected: String) throws {
        #expect(try logic(rule, data).compactText == expected, "\(rule)")
    }
}

@Suite("JSONLogic review cases", .timeLimit(.minutes(5)))
struct JSONLogicReviewTests {
    @Test func hugeAndNonFiniteNumbersNeverCrash() throws {
        #expect(try logic(#"{"substr":["abc",{"var":"from"}]}"#, #"{"from":1e19}"#) == .string(""))
        #expect(try logic(#"{"substr":["abc",{"/":[1,0]}]}"#) == .string(""))
        #expect(try logic(#"{"substr":["abc",0,{"/":[-1,0]}]}"#) == .string(""))
        #expect(try logic(#"{"substr":["abc",-1e30]}"#) == .string("abc"))
        #expect(try logic(#"{"missing_some":["x",["a"]]}"#) == .array([]))
        #expect(try logic(#"{"missing_some":[1e30,["a"]]}"#) == .array([.string("a")]))
    }

    @Test func javascriptSemantics() throws {
        #expect(try logic(#"{"!":[[0]]}"#) == .bool(false))
        #expect(try logic(#"{"!!":[[""]]}"#) == .bool(true))
        #expect(try logic(#"{"in":["","abc"]}"#) == .bool(true))
        #expect(try logic(#"{"*":["3px",2]}"#) == .number("6"))
        #expect(try logic(#"{"+":["",1]}"#) == .null)
        #expect(try logic(#"{"+":[true,1]}"#) == .null)
        #expect(try logic(#"{"var":["x","d"]}"#, #"{"x":null}"#) == .null, "an explicit null is found")
        #expect(try logic(#"{"var":["y","d"]}"#, #"{"x":null}"#) == .string("d"))
        #expect(try logic(#"{"cat":[1e-7," ",1e21," ",0.5]}"#) == .string("1e-7 1e+21 0.5"))
    }

    @Test func stringsAreComparedByTheirBytes() throws {
        #expect(try logic("{\"===\":[\"e\\u0301\",\"\\u00e9\"]}") == .bool(false))
        #expect(try logic("{\"==\":[\"e\\u0301\",\"\\u00e9\"]}") == .bool(false))
        #expect(try logic("{\"starts_with\":[\"e\\u0301tude\",\"e\"]}") == .bool(true))
        #expect(try logic("{\"substr\":[\"a\\ud83d\\ude00b\",1,2]}") == .string("😀"), "UTF-16 units, like JavaScript")
    }

    @Test func fractionalAcceptsFlagdsVariantsAndFallsBack() throws {
        let data = #"{"targetingKey":"k1","$flagd":{"flagKey":"f"}}"#
        let bools = try logic(#"{"fractional":[[true,1],[false,1]]}"#, data)
        #expect(bools == .bool(true) || bools == .bool(false))
        #expect(try logic(#"{"fractional":[["a",null]]}"#, data) == .string("a"), "a null weight is 1")
        let fallback = try logic(#"{"fractional":[{"var":"nope"},["a",1],["b",1]]}"#, data)
        #expect(fallback == (try logic(#"{"fractional":[["a",1],["b",1]]}"#, data)), "a null bucketBy falls back to flagKey+targetingKey")
    }

    @Test func cborUsesTheShortestExactFloat() throws {
        // Version 3 hashes CBOR: 1.5 is the half-precision F9 3E 00.
        let expected = MurmurHash3.x86Hash32([0xF9, 0x3E, 0x00])
        let bucket = (UInt64(expected) * 2) >> 32
        let result = try logic(#"{"fractional":[1.5,["a",1],["b",1]]}"#, "{}", version: .v3)
        #expect(result == .string(bucket == 0 ? "a" : "b"))
    }
}

/// Inputs found by fuzzing the evaluator (scripts/fuzz json-logic): each used to exhaust
/// memory, the stack or the CPU.
@Suite("evaluation limits", .timeLimit(.minutes(5)))
struct EvaluationLimitTests {
    /// `reduce` doubling a string 40 times wanted 2^40 bytes: the fuzzer's out-of-memory.
    @Test func doublingStringIsStopped() throws {
        let ones = Array(repeating: "1", count: 40).joined(separator: ",")
        let rule = try JSONLogic(
            JSONValue(parsing: #"{"reduce":[[\#(ones)],{"cat":[{"var":"accumulator"},{"var":"accumulator"}]},"x"]}"#))
        #expect(throws: RuleError.self) { try rule.evaluate(checking: .object([:])) }
        #expect(rule.evaluate(.object([:])) == .null)
    }

    /// The same with arrays: sharing keeps memory small until the result is written out.
    @Test func doublingArrayIsStopped() throws {
        let ones = Array(repeating: "1", count: 60).joined(separator: ",")
        let rule = try JSONLogic(
            JSONValue(parsing: #"{"reduce":[[\#(ones)],{"merge":[[{"var":"accumulator"}],[{"var":"accumulator"}]]},[]]}"#))
        #expect(throws: RuleError.self) { try rule.evaluate(checking: .object([:])) }
    }

    /// Wrapping the accumulator once per item built a value 100,000 levels deep: the process
    /// died with a segmentation fault (stack overflow).
    @Test func deepAccumulatorIsStopped() throws {
        let rule = try JSONLogic(JSONValue(parsing: #"{"reduce":[{"var":"items"},[{"var":"accumulator"}],0]}"#))
        let data = LogicValue.object(["items": .array(Array(repeating: .number(1), count: 100_000))])
        #expect(throws: RuleError.self) { try rule.evaluate(checking: data) }
        // A shallow reduce over the same items still works.
        let sum = try JSONLogic(JSONValue(parsing: #"{"reduce":[{"var":"items"},{"+":[{"var":"current"},{"var":"accumulator"}]},0]}"#))
        #expect(try sum.evaluate(checking: data) == .number(100_000))
    }

    /// `+` read a long string by trying every prefix: quadratic, 0.15 s for 20,000 digits in
    /// a release build, minutes for the million here.
    @Test(.timeLimit(.minutes(1))) func longNumericStringIsLinear() throws {
        let digits = String(repeating: "1", count: 1_000_000)
        let rule = try JSONLogic(JSONValue(parsing: #"{"+":[{"var":"s"}]}"#))
        #expect(try rule.evaluate(checking: .object(["s": .string(digits)])) == .number(.infinity))
        // JavaScript's parseFloat: the longest decimal prefix.
        #expect(try logic(#"{"+":["12.5e1x"," 7.","-.5e","0x10","1e+"]}"#) == .number("132.5"))
        #expect(try logic(#"{"+":["inf"]}"#) == .null)
    }

    /// A budget shared by several evaluations (a server's request): each takes its steps from
    /// it, and the one that finds it spent is stopped, with `exceeded` set.
    @Test func sharedBudgetStopsTheEvaluationThatRunsItOut() throws {
        let items = (0..<100).map(String.init).joined(separator: ",")
        let sum = #"{"reduce":[[\#(items)],{"+":[{"var":"current"},{"var":"accumulator"}]},0]}"#
        let rule = try JSONLogic(JSONValue(parsing: sum))
        var unlimited = EvaluationBudget.unlimited
        #expect(try rule.evaluate(checking: .object([:]), budget: &unlimited) == .number(4950) && !unlimited.exceeded)
        var budget = EvaluationBudget(steps: 1500)
        #expect(try rule.evaluate(checking: .object([:]), budget: &budget) == .number(4950))
        let once = budget.spent
        #expect(once > 500 && once < 1500 && !budget.exceeded, "one evaluation took \(once) steps")
        #expect {
            try rule.evaluate(checking: .object([:]), budget: &budget)
        } throws: { error in
            (error as? RuleError)?.message == "the request needs more than its budget of 1500 evaluation steps"
        }
        #expect(budget.exceeded && budget.remaining == 0)
        // The rule's own limit still applies under a larger budget, and is not the budget's.
        let ones = Array(repeating: "1", count: 40).joined(separator: ",")
        let doubling = try JSONLogic(
            JSONValue(parsing: #"{"reduce":[[\#(ones)],{"cat":[{"var":"accumulator"},{"var":"accumulator"}]},"x"]}"#))
        var large = EvaluationBudget(steps: 10 * JSONLogic.evaluationBudget)
        #expect(throws: RuleError.self) { try doubling.evaluate(checking: .object([:]), budget: &large) }
        #expect(!large.exceeded && large.spent == JSONLogic.evaluationBudget)
        // Flags evaluated with a spent budget answer GENERAL.
        let flag = #"{"state":"ENABLED","variants":{"a":1},"defaultVariant":"a","targeting":{"if":[{">":[\#(sum), 0]},"a",null]}}"#
        let flags = FlagSet(entries: [("sum", try JSONValue(parsing: flag))])
        var small = EvaluationBudget(steps: 100)
        let resolution = flags.evaluateAnyType("sum", budget: &small)
        #expect(resolution.errorCode == "GENERAL" && small.exceeded)
        #expect(resolution.errorMessage?.contains("budget of 100 evaluation steps") == true, "\(resolution)")
        #expect(flags.evaluateAnyType("sum").value.compactText == "1")
    }
}

/// Issue 16, finding 2: a flag document planted in `switch` without `flag import` (as a
/// hostile sync peer could) must not take evaluation down.
@Suite("$ref expansion limits", .timeLimit(.minutes(5)))
struct ReferenceExpansionTests {
    /// `e0` … `e39`, each `or` of two `$ref`s to the next: 2^40 nodes when expanded.
    static func doublingEvaluators(levels: Int = 40) -> JSONValue {
        var members = (0..<levels).map { level in
            JSONValue.Member(
                "e\(level)",
                .object([
                    .init(
                        "or",
                        .array([.object([.init("$ref", .string("e\(level + 1)"))]), .object([.init("$ref", .string("e\(level + 1)"))])]))
                ]))
        }
        members.append(.init("e\(levels)", .object([.init("var", .string("x"))])))
        return .object(members)
    }

    static func flag(_ targeting: String) throws -> JSONValue {
        try JSONValue(
            parsing: #"{"state":"ENABLED","variants":{"on":true,"off":false},"defaultVariant":"off","targeting":\#(targeting)}"#)
    }

    @Test(.timeLimit(.minutes(1))) func aPlantedDoublingChainIsAnErrorNotACrash() throws {
        let store = try TemporaryStore()
        let stack = try store.open()
        try stack.set(Self.doublingEvaluators(), in: .switch, forKey: FlagSet.evaluatorsKey)
        try stack.set(try Self.flag(#"{"if":[{"$ref":"e0"},"on","off"]}"#), in: .switch, forKey: "bomb")
        try stack.set(try Self.flag(#"{"if":[{"var":"x"},"on","off"]}"#), in: .switch, forKey: "fine")
        try stack.flushSynchronously()
        let flags = try stack.flags.flagSet()
        let bomb = flags.evaluate("bomb", type: .boolean, default: .bool(false), context: ["x": .bool(true)])
        #expect(bomb.reason == "ERROR" && bomb.errorCode == "PARSE_ERROR" && bomb.value == .bool(false), "\(bomb)")
        #expect(bomb.errorMessage?.contains("$ref \"e22\" expands the rule beyond 1000000 nodes") == true, "\(bomb)")
        let fine = flags.evaluate("fine", type: .boolean, default: .bool(false), context: ["x": .bool(true)])
        #expect(fine.value == .bool(true) && fine.reason == "TARGETING_MATCH", "the other flags still evaluate: \(fine)")
        #expect(flags.flags["bomb"]?.hasTargeting == true)
    }

    /// Eighteen doubling levels (786,431 nodes) stay under the size limit: the shared subtree
    /// is compiled once, and evaluating it eight times over is stopped by the evaluation budget.
    @Test(.timeLimit(.minutes(1))) func sharedSubtreesCountInTheEvaluationBudget() throws {
        let flags = FlagSet(entries: [
            (FlagSet.evaluatorsKey, Self.doublingEvaluators(levels: 18)), ("f", try Self.flag(#"{"if":[{"$ref":"e0"},"on","off"]}"#)),
            ("g", try Self.flag(#"{"if":[{"some":[[1,2,3,4,5,6,7,8],{"$ref":"e0"}]},"on","off"]}"#)),
        ])
        let truthy = flags.evaluate("f", type: .boolean, default: .bool(true), context: ["x": .bool(true)])
        #expect(truthy.value == .bool(true) && truthy.reason == "TARGETING_MATCH", "`or` stops at the first true: \(truthy)")
        let falsy = flags.evaluate("f", type: .boolean, default: .bool(true), context: ["x": .bool(false)])
        #expect(falsy.value == .bool(false) && falsy.reason == "TARGETING_MATCH", "every node once: \(falsy)")
        let eightTimes = flags.evaluate("g", type: .boolean, default: .bool(true))
        #expect(eightTimes.reason == "ERROR" && eightTimes.errorCode == "GENERAL", "\(eightTimes)")
        #expect(eightTimes.errorMessage?.contains("more than 2000000 steps") == true, "\(eightTimes)")
    }

    @Test(.timeLimit(.minutes(1))) func deepChainsAndCyclesAreErrorsNotCrashes() throws {
        var chain = (0..<10_000).map { JSONValue.Member("d\($0)", .object([.init("!", .object([.init("$ref", .string("d\($0 + 1)"))]))])) }
        chain.append(.init("d10000", .bool(true)))
        let cycle = try JSONValue(parsing: #"{"a":{"or":[{"var":"x"},{"$ref":"b"}]},"b":{"!":{"$ref":"a"}}}"#)
        for (evaluators, message) in [
            (JSONValue.object(chain), "nests the rule deeper than 512 levels"), (cycle, "$ref \"a\" forms a cycle"),
        ] {
            let flags = FlagSet(entries: [
                (FlagSet.evaluatorsKey, evaluators), ("d", try Self.flag(#"{"if":[{"$ref":"d0"},"on","off"]}"#)),
                ("c", try Self.flag(#"{"if":[{"$ref":"a"},"on","off"]}"#)),
            ])
            let results = ["d", "c"].map { flags.evaluate($0, type: .boolean, default: .bool(false)) }
            #expect(results.contains { $0.errorCode == "PARSE_ERROR" && $0.errorMessage?.contains(message) == true }, "\(results)")
        }
        // 500 levels is allowed and evaluates.
        let shallow = FlagSet(entries: [
            (FlagSet.evaluatorsKey, .object(Array(chain.prefix(500)) + [.init("d500", .bool(true))])),
            ("d", try Self.flag(#"{"if":[{"$ref":"d0"},"on","off"]}"#)),
        ])
        let result = shallow.evaluate("d", type: .boolean, default: .bool(false))
        #expect(result.value == .bool(true) && result.reason == "TARGETING_MATCH", "\(result)")
    }

    /// A sync peer's `$evaluators` get the import's check: a doubling chain is skipped, a
    /// sound one applied.
    @Test func syncSkipsEvaluatorsAnImportWouldRefuse() throws {
        let store = try TemporaryStore()
        let stack = try store.open()
        try stack.sync.setRemote(try RemoteURL(parsing: "postgres://u@127.0.0.1:1/db"), domains: nil)
        func operation(_ json: String, hlc: Int64) -> SyncOperation {
            SyncOperation(
                id: UUID().uuidString, domain: "switch", key: FlagSet.evaluatorsKey, json: json, expiresAt: nil, hlc: hlc, node: "peer",
                actor: "peer")
        }
        let applied = try stack.sync.applyRemoteOperations([operation(Self.doublingEvaluators().compactText, hlc: 1 << 40)], through: 1)
        #expect(applied == 0)
        #expect(try stack.storedValue(in: .switch, forKey: FlagSet.evaluatorsKey) == nil)
        let sound = #"{"staff":{"ends_with":[{"var":"email"},"@example.com"]}}"#
        #expect(try stack.sync.applyRemoteOperations([operation(sound, hlc: 2 << 40)], through: 2) == 1)
        #expect(try stack.storedValue(in: .switch, forKey: FlagSet.evaluatorsKey) == (try JSONValue(parsing: sound)))
    }

    @Test func validationNamesTheRefAndTheLimit() throws {
        let document = JSONValue.object([
            .init("$evaluators", Self.doublingEvaluators()), .init("flags", .object([.init("f", try Self.flag(#"{"$ref":"e0"}"#))])),
        ])
        #expect {
            try FlagDocument.validate(document)
        } throws: { error in
            (error as? PrefsError)?.kind == .invalidValue
                && (error as? PrefsError)?.message == #"$.$evaluators.e21.or[1]: $ref "e22" expands the rule beyond 1000000 nodes"#
        }
        // A flag's own targeting is checked too, with its path.
        let twice = JSONValue.object([
            .init("$evaluators", .object(Array(Self.doublingEvaluators().objectMembers?.suffix(19) ?? []))),
            .init("flags", .object([.init("f", try Self.flag(#"{"or":[{"$ref":"e22"},{"$ref":"e22"}]}"#))])),
        ])
        #expect {
            try FlagDocument.validate(twice)
        } throws: { error in
            (error as? PrefsError)?.message == #"$.flags.f.targeting.or[1]: $ref "e22" expands the rule beyond 1000000 nodes"#
        }
    }
}
