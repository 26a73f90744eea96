import PrefsCore
import Testing

@Suite("JSON values", .timeLimit(.minutes(5)))
struct JSONValueTests {
    /// A repeated member name keeps its first place and takes the last value, whether the names
    /// before it came in increasing byte order (no index), are few (a scan) or many (an index),
    /// and when the repeat comes after the index was made.
    @Test(arguments: [false, true])
    func aRepeatedNameKeepsItsFirstPlaceAndTakesTheLastValue(increasing: Bool) throws {
        #expect(try JSONValue(parsing: #"{"a":1,"b":2,"c":3,"b":4}"#).compactText == #"{"a":1,"b":4,"c":3}"#)
        #expect(try JSONValue(parsing: #"{"b":1,"a":2,"b":3}"#).compactText == #"{"b":3,"a":2}"#)
        let names = (0..<40).map { "k" + ($0 < 10 ? "0" : "") + String($0) }
        let ordered = increasing ? names : names.reversed()
        var text = "{" + ordered.map { "\"\($0)\":0" }.joined(separator: ",")
        text += #","k10":1,"a":2,"k39":3,"a":4,"k00":5}"#
        var expected = ordered.map { name -> String in
            let value = ["k10": 1, "k39": 3, "k00": 5][name] ?? 0
            return "\"\(name)\":\(value)"
        }
        expected.append(#""a":4"#)
        #expect(try JSONValue(parsing: text).compactText == "{" + expected.joined(separator: ",") + "}")
    }

    @Test(arguments: [
        "0", "-0", "0.1", "1e400", "-1.5E-7", "12345678901234567890123456789", "true", "false", "null", "\"\"",
        "[]", "{}", "[1,[2,[3]]]", "{\"b\":1,\"a\":2}", "\"é日本🎉\"", "\"a\\\"b\\\\c\\n\\t\\u0001\"",
    ])
    func compactTextRoundTrips(text: String) throws {
        let value = try JSONValue(parsing: text)
        #expect(value.compactText == text)
        #expect(try JSONValue(parsing: value.compactText) == value)
    }

    @Test func whitespaceEscapesAndDuplicates() throws {
        #expect(try JSONValue(parsing: " { \"a\" : [ 1 , 2 ] } \n").compactText == "{\"a\":[1,2]}")
        #expect(try JSONValue(parsing: "\"\\u00e9\\/\\ud83c\\udf89\"") == .string("é/🎉"))
        #expect(try JSONValue(parsing: "{\"a\":1,\"b\":2,\"a\":3}").compactText == "{\"a\":3,\"b\":2}")
        #expect(JSONValue.string("\u{7F}x\u{0}").compactText == "\"\\u007fx\\u0000\"")
        #expect(try JSONValue(parsing: "{\"a\":[true]}")["a"] == .array([.bool(true)]))
    }

    @Test(arguments: [
        "", " ", "{", "[1,]", "{\"a\":1,}", "01", "1.", ".5", "+1", "1e", "--1", "tru", "nul", "\"abc", "\"a\nb\"",
        "\"\\x\"", "\"\\ud800\"", "\"\\udc00x\"", "[1] [2]", "{a:1}", "'x'", "NaN", "Infinity", "\"\\u12G4\"",
    ])
    func rejectsInvalidJSON(text: String) {
        #expect(throws: PrefsError.self) { try JSONValue(parsing: text) }
        do {
            _ = try JSONValue(parsing: text)
        } catch let error as PrefsError {
            #expect(error.kind == .invalidValue)
            #expect(error.message.hasPrefix("invalid JSON"))
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test func deepNestingIsAnErrorNotACrash() throws {
        let ok = String(repeating: "[", count: JSONParser.maximumDepth) + String(repeating: "]", count: JSONParser.maximumDepth)
        #expect(throws: Never.self) { try JSONValue(parsing: ok) }
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: PrefsError(.invalidValue, "invalid JSON at byte 513: nested deeper than 512 levels", reason: .invalidJSON)) {
            try JSONValue(parsing: deep)
        }
        let deepObjects = String(repeating: "{\"a\":", count: 100_000)
        #expect(throws: PrefsError.self) { try JSONValue(parsing: deepObjects) }
    }

    @Test func invalidUTF8IsRejected() throws {
        #expect(throws: PrefsError.self) { try JSONValue(parsingUTF8: [0x22, 0xFF, 0x22]) }
        #expect(throws: PrefsError.self) { try JSONValue(parsingUTF8: [0x22, 0xED, 0xA0, 0x80, 0x22]) }
        #expect(try JSONValue(parsingUTF8: Array("\"ü\"".utf8)) == .string("ü"))
    }

    @Test func prettyText() throws {
        let value = try JSONValue(parsing: "{\"a\":[1,{}],\"b\":{\"c\":null}}")
        #expect(value.prettyText == "{\n  \"a\": [\n    1,\n    {}\n  ],\n  \"b\": {\n    \"c\": null\n  }\n}")
        #expect(try JSONValue(parsing: value.prettyText) == value)
    }
}

@Suite("value typing", .timeLimit(.minutes(5)))
struct ValueTypeTests {
    @Test func autoTyping() throws {
        #expect(try ValueType.auto.value(from: "3") == .number("3"))
        #expect(try ValueType.auto.value(from: "dark") == .string("dark"))
        #expect(try ValueType.auto.value(from: "\"x\"") == .string("x"))
        #expect(try ValueType.auto.value(from: "") == .string(""))
        #expect(try ValueType.auto.value(from: "1.2.3") == .string("1.2.3"))
        #expect(throws: PrefsError.self) { try ValueType.auto.value(from: "{not json") }
        #expect(throws: PrefsError.self) { try ValueType.auto.value(from: "  [1,") }
    }

    @Test func explicitTypes() throws {
        #expect(try ValueType.string.value(from: "dark") == .string("dark"))
        #expect(throws: PrefsError.self) { try ValueType.string.value(from: "3") }
        #expect(try ValueType.boolean.value(from: "On") == .bool(true))
        #expect(try ValueType.boolean.value(from: "no") == .bool(false))
        #expect(try ValueType.integer.value(from: "-12") == .number("-12"))
        #expect(throws: PrefsError(.invalidValue, "expected an integer, got a non-integer number")) {
            try ValueType.integer.value(from: "1.5")
        }
        #expect(throws: PrefsError(.invalidValue, "expected a number, got a string")) { try ValueType.number.value(from: "\"1\"") }
        #expect(throws: PrefsError.self) { try ValueType.object.value(from: "[]") }
        #expect(throws: PrefsError.self) { try ValueType.array.value(from: "oops") }
        #expect(throws: PrefsError.self) { try ValueType.json.value(from: "oops") }
    }
}

@Suite("domains and keys", .timeLimit(.minutes(5)))
struct DomainKeyTests {
    @Test(arguments: ["user", "a", "ci-cache", "x_1", String(repeating: "a", count: 64)])
    func validDomains(name: String) throws {
        #expect(try Domain(name).name == name)
    }

    @Test(arguments: ["", "User", "1a", "-a", "a b", "a;drop", "\"user\"", "kv_user\"", String(repeating: "a", count: 65), "ü"])
    func invalidDomains(name: String) {
        #expect(throws: PrefsError.self) { try Domain(name) }
        #expect((try? Domain(name)) == nil)
    }

    // At the compact scan's limits: 32 names in one object, more than 64 names open at once
    // across nesting, the deepest nesting allowed.
    static let thirtyTwoNames = "{ " + (0..<32).map { "\"k\($0)\" : \($0)" }.joined(separator: ", ") + " }"
    static let ninetyOpenNames: String = {
        let outer = (0..<30).map { "\"a\($0)\":\($0)," }.joined()
        let middle = (0..<30).map { "\"b\($0)\":\($0)," }.joined()
        let inner = (0..<30).map { "\"c\($0)\": \($0)" }.joined(separator: ",")
        return "{" + outer + "\"x\":{" + middle + "\"y\":{" + inner + "}}}"
    }()
    static let deepest = String(repeating: "[", count: 512) + " 1 " + String(repeating: "]", count: 512)

    /// Compact text read straight from the input is exactly the parsed value's compact text.
    @Test(arguments: [
        "3", " -0.5e3 ", "\"x\"", "true", "null", "[]", " { \"a\" : [ 1 , 2.50 , \"x y\" ] ,\n\t\"b\" : { } } ",
        #"{"a":"\u00e9\n","b":"é"}"#, "{\"del\":\"a\u{7F}\"}", #"{"a":1,"b":2,"a":3}"#, #"{"o":{"x":1,"x":[2]},"p":[{"y":1,"y":2}]}"#,
        "{" + (0..<34).map { "\"k\($0)\":\($0)" }.joined(separator: ",") + "}", "[[[[ ]]]]", #"{"q":"a\"b","s":"a\\b"}"#,
        "[\"ü\", {\"é\" :\"ö ü\"}]", "\"a b\" ", "\"e\u{301}\"",
        thirtyTwoNames, ninetyOpenNames, deepest,
    ])
    func compactJSONMatchesTheParsedValue(text: String) throws {
        let compact = try CompactJSON(parsing: text)
        #expect(compact == CompactJSON(try JSONValue(parsing: text)))
        #expect(Array(compact.text.utf8) == Array((try JSONValue(parsing: text)).compactText.utf8))
        #expect(try compact.value() == JSONValue(parsing: text))
    }

    @Test func compactJSONComparesBytes() throws {
        let decomposed = try CompactJSON(parsing: "\"e\u{301}\"")
        let precomposed = try CompactJSON(parsing: "\"\u{E9}\"")
        #expect(decomposed != precomposed, "canonically equivalent, but different bytes in the store")
        #expect(Set([decomposed, precomposed, decomposed]).count == 2)
    }

    @Test(arguments: [
        "", " ", "{", "[1,]", "{\"a\":1,}", "01", "tru", "\"abc", "1 2", "{\"a\" 1}", "\"\u{1}\"", "[\"a\",,]", "{\"a\":\"\\x\"}",
        String(repeating: "[", count: 513) + String(repeating: "]", count: 513),
    ])
    func compactJSONRefusesWhatTheParserRefuses(text: String) throws {
        let refusal = #expect(throws: PrefsError.self) { try JSONValue(parsing: text) }
        #expect(throws: try #require(refusal)) { try CompactJSON(parsing: text) }
    }

    /// `batch` types values with `compactJSON(from:)`, `set` with `value(from:)`: same result,
    /// same refusals.
    @Test(arguments: ["3", "dark", " hello world ", "{ \"a\": 1 }", "[1, 2]", "\"3\"", "yes", "-0", "1e5", "01", "{bad", "[1,", "é", ""])
    func compactTypingMatchesTyping(text: String) {
        func outcome(_ body: () throws -> CompactJSON) -> String {
            do { return "value " + (try body()).text } catch { return "error \(error)" }
        }
        for type in ValueType.allCases {
            let typed = outcome { CompactJSON(try type.value(from: text)) }
            #expect(typed == outcome { try type.compactJSON(from: text) }, "\(type) \(text.debugDescription)")
        }
    }

    @Test func batchLinesFromBytes() throws {
        func parse(_ bytes: [UInt8]) throws -> BatchLine? {
            try bytes.withUnsafeBufferPointer { try BatchLine.parse(utf8: $0) }
        }
        #expect(try parse(Array(" \tset user k {\"a\": 1}".utf8)) == .set(.user, "k", CompactJSON(try JSONValue(parsing: "{\"a\":1}"))))
        #expect(try parse(Array("set user k héllo wörld".utf8)) == .set(.user, "k", CompactJSON(.string("héllo wörld"))))
        #expect(try parse(Array("  # comment".utf8)) == nil)
        #expect(try parse([]) == nil)
        #expect(try parse(Array(#"{"op":"rm","domain":"user","key":"k"}"#.utf8)) == .remove(.user, "k"))
        #expect(try parse(Array("incr user n -3".utf8)) == .increment(.user, "n", -3))
        #expect(throws: PrefsError(.invalidValue, "not valid UTF-8")) { try parse(Array("set user k ".utf8) + [0xC3]) }
        #expect(throws: PrefsError(.invalidValue, "not valid UTF-8")) { try parse([0xED, 0xA0, 0x80]) }
        #expect(throws: PrefsError.self) { try parse(Array("set User k 1".utf8)) }
    }

    @Test func keys() throws {
        try KeyName.validate("onboarding.shown")
        try KeyName.validate("ui/theme")
        try KeyName.validate(String(repeating: "é", count: 512))
        #expect(throws: PrefsError.self) { try KeyName.validate("") }
        #expect(throws: PrefsError.self) { try KeyName.validate(String(repeating: "é", count: 513)) }
        #expect(throws: PrefsError.self) { try KeyName.validate("a\u{0}b") }
        #expect(throws: PrefsError.self) { try KeyName.validate("a\u{85}b") }
        #expect(throws: PrefsError.self) { try KeyName.validate("a\u{7F}") }
        #expect(throws: PrefsError.self) { try KeyName.validate("\u{9F}") }
        #expect(throws: PrefsError.self) { try KeyName.validate("x\u{1F}") }
        try KeyName.validate("\u{A0}\u{100}\u{7E}")
    }
}
