import Foundation
import PrefsCore
import Testing

@Suite("schema and defaults in the library", .timeLimit(.minutes(5)))
struct SchemaLibraryTests {
    struct Window: Codable, Equatable {
        var width: Int
    }

    @Test func registeredDefaultsAnswerTypedReads() throws {
        let store = try TemporaryStore()
        let stack = try store.open()
        stack.registerDefaults([.user: ["theme": .string("light"), "window": try JSONValue(parsing: "{\"width\":640}")]])
        #expect(try stack.value(String.self, in: .user, forKey: "theme") == "light")
        #expect(try stack.value(Window.self, in: .user, forKey: "window") == Window(width: 640))
        #expect(try stack.resolve(in: .user, forKey: "theme")?.origin == .default)
        try stack.set("dark", in: .user, forKey: "theme")
        #expect(try stack.resolve(in: .user, forKey: "theme")?.origin == .store)
        try stack.reset(in: .user, keys: ["theme"])
        #expect(try stack.value(String.self, in: .user, forKey: "theme") == "light")
        #expect(try stack.entries(in: .user).isEmpty)
    }

    /// A default registered in code answers `default`, one only the schema gives `schema`
    /// (code wins a key both name), for `resolve` and the effective listing alike.
    @Test func registeredAndSchemaDefaultsHaveTheirOwnOrigins() throws {
        let store = try TemporaryStore()
        let stack = try store.open()
        _ = try stack.loadSchema(
            try JSONValue(
                parsing: #"{"user":{"theme":{"type":"string","default":"schema-light"},"mode":{"type":"string","default":"schema-auto"}}}"#)
        )
        stack.registerDefaults([.user: ["theme": .string("code-light")]])
        #expect(try stack.resolve(in: .user, forKey: "theme")?.value == .string("code-light"))
        #expect(try stack.resolve(in: .user, forKey: "theme")?.origin == .default)
        #expect(try stack.resolve(in: .user, forKey: "mode")?.origin == .schema)
        var origins: [String: ValueOrigin] = [:]
        try stack.forEachEffectiveEntry(in: .user) { entry, origin in origins[entry.key] = origin }
        #expect(origins == ["theme": .default, "mode": .schema])
        try stack.set("dark", in: .user, forKey: "mode")
        #expect(try stack.resolve(in: .user, forKey: "mode")?.origin == .store)
    }

    @Test func overridesWinAndAreNotWritten() throws {
        let store = try TemporaryStore()
        var options = KeyValueStack.Options(environment: ["XDG_RUNTIME_DIR": store.directory])
        options.overrides = [.switch: ["beta": .bool(true)]]
        let stack = try KeyValueStack(path: store.path, options: options)
        try stack.set(.bool(false), in: .switch, forKey: "beta")
        try stack.flushSynchronously()
        #expect(try stack.value(in: .switch, forKey: "beta") == .bool(true))
        #expect(try stack.storedValue(in: .switch, forKey: "beta") == .bool(false))
    }

    @Test func compactValuesAreCheckedAgainstTheSchema() throws {
        let store = try TemporaryStore()
        let stack = try store.open()
        _ = try stack.loadSchema(try JSONValue(parsing: "{\"user\":{\"limit\":{\"type\":\"integer\",\"maximum\":10}}}"))
        #expect(
            throws: PrefsError(
                .invalidValue, "user/limit: maximum: 11 is greater than 10", reason: .schemaViolation(.maximum), domain: .user, key: "limit"
            )
        ) {
            try stack.set(try CompactJSON(parsing: "11"), in: .user, forKey: "limit")
        }
        #expect(
            throws: PrefsError(
                .invalidValue, "user/limit: type: expected integer, got a string", reason: .schemaViolation(.type), domain: .user,
                key: "limit")
        ) {
            try stack.set(CompactJSON(.string("7")), in: .user, forKey: "limit")
        }
        try stack.set(try CompactJSON(parsing: " 7 "), in: .user, forKey: "limit")
        try stack.set(try CompactJSON(parsing: "{ \"free\" : [1, \"é\"] }"), in: .user, forKey: "other")
        #expect(try stack.value(in: .user, forKey: "limit") == .number("7"), "queued writes read back")
        try stack.flushSynchronously()
        #expect(try stack.entries(in: .user).map(\.json) == ["7", "{\"free\":[1,\"é\"]}"])
    }

    @Test func schemaValidationAndLoading() throws {
        let store = try TemporaryStore()
        let stack = try store.open()
        try stack.set(.number("50"), in: .switch, forKey: "limit")
        let violations = try stack.loadSchema(
            try JSONValue(parsing: "{\"switch\":{\"limit\":{\"type\":\"integer\",\"maximum\":10,\"default\":5}}}"))
        #expect(violations == ["switch/limit: maximum: 50 is greater than 10"])
        #expect(
            throws: PrefsError(
                .invalidValue, "switch/limit: maximum: 11 is greater than 10", reason: .schemaViolation(.maximum), domain: .switch,
                key: "limit")
        ) {
            try stack.set(.number("11"), in: .switch, forKey: "limit")
        }
        #expect(throws: PrefsError.self) { try stack.increment(in: .switch, forKey: "limit", by: 100) }
        #expect(throws: PrefsError.self) { try stack.loadSchema(try JSONValue(parsing: "{\"switch\":{\"limit\":{}}}")) }
        #expect(try stack.schema().spec(in: .switch, forKey: "limit")?.maximum == "10", "a refused file leaves the schema")
        let reopened = try store.open()
        #expect(try reopened.schema().spec(in: .switch, forKey: "limit")?.defaultValue == .number("5"), "stored in the store")
    }

    /// Patterns are matched scalar by scalar (PatternTests has the table): `$` is the end of the text only
    /// (as in ECMA-262; NSRegularExpression also matched before a final newline).
    @Test func patternsMatchAsECMAScriptDoes() throws {
        let schema = try Schema(
            parsing: try JSONValue(
                parsing:
                    #"{"user":{"code":{"type":"string","pattern":"^[a-z]+$"},"one":{"type":"string","pattern":"^.$"},"d":{"type":"string","pattern":"\\d"}}}"#
            ))
        func accepts(_ key: String, _ text: String) -> Bool {
            (try? schema.validate(.string(text), in: .user, forKey: key)) != nil
        }
        #expect(accepts("code", "abc"))
        #expect(!accepts("code", "abc\n"), "no match before a trailing newline")
        #expect(!accepts("code", "ABC"))
        #expect(accepts("one", "é"))
        #expect(!accepts("one", "e\u{301}"), "a combining mark is a scalar of its own")
        #expect(accepts("one", "🎉"))
        #expect(accepts("d", "x7"), "unanchored: matches anywhere")
        #expect(
            throws: PrefsError(
                .invalidValue, "user/code: pattern: \"abc\\n\" does not match \"^[a-z]+$\"", reason: .schemaViolation(.pattern),
                domain: .user,
                key: "code")
        ) {
            try schema.validate(.string("abc\n"), in: .user, forKey: "code")
        }
        #expect(throws: PrefsError.self) { try Schema(parsing: try JSONValue(parsing: #"{"user":{"k":{"type":"string","pattern":"("}}}"#)) }
    }

    /// A long-lived stack (an app, `prefs serve`) follows a schema loaded by another process
    /// after it read the store's schema: its defaults answer reads, its constraints refuse
    /// writes, and a schema replaced again is followed again.
    @Test func aLongLivedStackFollowsASchemaLoadedElsewhere() throws {
        let store = try TemporaryStore()
        let app = try store.open()
        try app.set("blue", in: .user, forKey: "theme")
        try app.flushSynchronously()
        #expect(try app.value(in: .user, forKey: "size") == nil)
        let other = try store.open()  // another connection, as another process
        try other.loadSchema(
            try JSONValue(parsing: #"{"user":{"size":{"type":"integer","default":12},"theme":{"type":"string","enum":["light","dark"]}}}"#))
        #expect(try app.value(in: .user, forKey: "size") == .number("12"))
        #expect(try app.resolve(in: .user, forKey: "size")?.origin == .schema)
        #expect(throws: PrefsError.self) { try app.set("green", in: .user, forKey: "theme") }
        try other.loadSchema(try JSONValue(parsing: #"{"user":{"size":{"type":"integer","default":14}}}"#))
        #expect(try app.value(in: .user, forKey: "size") == .number("14"))
        try app.set("green", in: .user, forKey: "theme")
        try app.flushSynchronously()
        #expect(try other.value(in: .user, forKey: "theme") == .string("green"))
    }
}
