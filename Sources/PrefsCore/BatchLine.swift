/// One command line of `prefs batch`: JSON Lines or the short form.
///
/// ```swift
/// try BatchLine.parse("set user greeting hello world")  // .set(.user, "greeting", .string("hello world"))
/// try BatchLine.parse(#"{"op":"incr","domain":"user","key":"n","by":2}"#)  // .increment(.user, "n", 2)
/// ```
/// Pure parsing, kept apart from the store so it can be fuzzed on its own.
public enum BatchLine: Sendable, Equatable {
    /// Set KEY in DOMAIN to a value.
    case set(Domain, String, JSONValue)
    /// Remove KEY from DOMAIN.
    case remove(Domain, String)
    /// Add an amount to an integer KEY in DOMAIN.
    case increment(Domain, String, Int64)

    /// Parses a line; nil for blank lines and comments.
    ///
    /// - Throws: ``PrefsError`` of kind ``PrefsError/Kind/invalidValue`` for a malformed
    ///   line, ``PrefsError/Kind/usage`` for a bad domain or key.
    public static func parse(_ line: String) throws -> BatchLine? {
        let trimmed = line.drop { $0 == " " || $0 == "\t" }
        if trimmed.isEmpty || trimmed.hasPrefix("#") { return nil }
        if trimmed.hasPrefix("{") { return try parseJSON(String(trimmed)) }
        return try parseShort(String(trimmed))
    }

    private static func parseJSON(_ text: String) throws -> BatchLine {
        let object = try JSONValue(parsing: text, wrappingLevels: 1)
        guard let members = object.objectMembers else { throw PrefsError(.invalidValue, "expected a JSON object") }
        let allowed: [String: Set<String>] = [
            "set": ["op", "domain", "key", "value"], "rm": ["op", "domain", "key"], "incr": ["op", "domain", "key", "by"],
        ]
        guard let op = object["op"]?.stringValue else { throw PrefsError(.invalidValue, "missing \"op\" (set, rm or incr)") }
        guard let fields = allowed[op] else { throw PrefsError(.invalidValue, "unknown op \(JSONValue.string(op).compactText)") }
        if let unknown = members.first(where: { !fields.contains($0.key) }) {
            throw PrefsError(.invalidValue, "unknown field \(JSONValue.string(unknown.key).compactText) for op \(op)")
        }
        guard let domainName = object["domain"]?.stringValue else { throw PrefsError(.invalidValue, "missing string \"domain\"") }
        guard let key = object["key"]?.stringValue else { throw PrefsError(.invalidValue, "missing string \"key\"") }
        let domain = try Domain(domainName)
        try Key.validate(key)
        switch op {
        case "set":
            guard let value = object["value"] else { throw PrefsError(.invalidValue, "missing \"value\"") }
            return .set(domain, key, value)
        case "rm":
            return .remove(domain, key)
        default:
            guard let by = object["by"] else { return .increment(domain, key, 1) }
            guard case .number(let text) = by, let delta = Int64(text) else {
                throw PrefsError(.invalidValue, "\"by\" must be an integer")
            }
            return .increment(domain, key, delta)
        }
    }

    private static func parseShort(_ text: String) throws -> BatchLine {
        // Tokenize on UTF-8 bytes: spaces and tabs are ASCII, so byte positions are valid
        // string boundaries, and this avoids grapheme-by-grapheme scanning.
        var text = text
        let bytes = text.withUTF8 { Array($0) }
        var position = 0
        func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }
        func word() -> String? {
            while position < bytes.count && isBlank(bytes[position]) { position += 1 }
            guard position < bytes.count else { return nil }
            let start = position
            while position < bytes.count && !isBlank(bytes[position]) { position += 1 }
            return String(decoding: bytes[start..<position], as: UTF8.self)
        }
        guard let verb = word() else { throw PrefsError(.invalidValue, "empty command") }
        guard ["set", "rm", "incr"].contains(verb) else {
            throw PrefsError(.invalidValue, "unknown command \(JSONValue.string(verb).compactText) (set, rm, incr or a JSON object)")
        }
        guard let domainName = word(), let key = word() else { throw PrefsError(.invalidValue, "\(verb) needs DOMAIN and KEY") }
        let domain = try Domain(domainName)
        try Key.validate(key)
        switch verb {
        case "set":
            guard position < bytes.count else { throw PrefsError(.invalidValue, "set needs a VALUE") }
            return .set(domain, key, try ValueType.auto.value(from: String(decoding: bytes[(position + 1)...], as: UTF8.self)))
        case "rm":
            if let extra = word() {
                throw PrefsError(.invalidValue, "unexpected \(JSONValue.string(extra).compactText) after rm DOMAIN KEY")
            }
            return .remove(domain, key)
        default:
            guard let amount = word() else { return .increment(domain, key, 1) }
            guard let delta = Int64(amount), word() == nil else { throw PrefsError(.invalidValue, "incr takes an integer amount") }
            return .increment(domain, key, delta)
        }
    }
}
