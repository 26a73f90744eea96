import PrefsBase
import PrefsJSON

/// One command line of `prefs batch`: JSON Lines or the short form.
///
/// ```swift
/// let set = try BatchLine.parse("set user greeting hello world")  // .set(.user, "greeting", CompactJSON(.string("hello world")))
/// let increment = try BatchLine.parse(#"{"op":"incr","domain":"user","key":"n","by":2}"#)  // .increment(.user, "n", 2)
/// ```
/// Pure parsing, kept apart from the store so it can be fuzzed on its own.
package enum BatchLine: Sendable, Equatable {
    /// Set KEY in DOMAIN to a value (kept as compact text: a batch writes it as it is).
    case set(Domain, String, CompactJSON)
    /// Remove KEY from DOMAIN.
    case remove(Domain, String)
    /// Add an amount to an integer KEY in DOMAIN.
    case increment(Domain, String, Int64)

    /// Parses a line; nil for blank lines and comments.
    ///
    /// - Throws: ``PrefsError`` of kind ``PrefsError/Kind/invalidValue`` for a malformed
    ///   line, ``PrefsError/Kind/usage`` for a bad domain or key.
    package static func parse(_ line: String) throws -> BatchLine? {
        var line = line
        return try line.withUTF8 { try parse(validUTF8: $0) }
    }

    /// Parses a line given as UTF-8 bytes (without its newline); nil for blank lines and
    /// comments.
    ///
    /// - Throws: ``PrefsError`` of kind ``PrefsError/Kind/invalidValue`` for bytes that are
    ///   not valid UTF-8 and for a malformed line, ``PrefsError/Kind/usage`` for a bad domain
    ///   or key.
    /// - Parameter shortValue: reads the VALUE text of a short `set` line for its domain and
    ///   key (`prefs batch` types it by the schema, as `prefs set` does); nil, or a nil
    ///   answer, reads it as JSON when it is valid JSON, otherwise as a string.
    package static func parse(
        utf8 bytes: UnsafeBufferPointer<UInt8>, shortValue: ((Domain, String, String) throws -> CompactJSON?)? = nil
    ) throws -> BatchLine? {
        // ASCII is valid UTF-8; anything else takes the full check.
        guard !bytes.contains(where: { $0 >= 0x80 }) || String(validating: bytes, as: UTF8.self) != nil else {
            throw PrefsError(.invalidValue, "not valid UTF-8")
        }
        return try parse(validUTF8: bytes, shortValue: shortValue)
    }

    /// Tokenizes on UTF-8 bytes: spaces, tabs, `#` and `{` are ASCII, so byte positions
    /// around them are valid string boundaries.
    private static func parse(
        validUTF8 bytes: UnsafeBufferPointer<UInt8>, shortValue: ((Domain, String, String) throws -> CompactJSON?)? = nil
    ) throws -> BatchLine? {
        var start = 0
        while start < bytes.count && isBlank(bytes[start]) { start += 1 }
        guard start < bytes.count, bytes[start] != UInt8(ascii: "#") else { return nil }
        let rest = UnsafeBufferPointer(rebasing: bytes[start...])
        if bytes[start] == UInt8(ascii: "{") { return try parseJSON(String(decoding: rest, as: UTF8.self)) }
        return try parseShort(rest, shortValue: shortValue)
    }

    private static func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }

    /// The verbs of the short form.
    private static let verbs = ["set", "rm", "incr"]

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
        try KeyName.validate(key)
        switch op {
        case "set":
            guard let value = object["value"] else { throw PrefsError(.invalidValue, "missing \"value\"") }
            return .set(domain, key, CompactJSON(value))
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

    private static func parseShort(
        _ bytes: UnsafeBufferPointer<UInt8>, shortValue: ((Domain, String, String) throws -> CompactJSON?)?
    ) throws -> BatchLine {
        var position = 0
        func span() -> UnsafeBufferPointer<UInt8>? {
            while position < bytes.count && isBlank(bytes[position]) { position += 1 }
            guard position < bytes.count else { return nil }
            let start = position
            while position < bytes.count && !isBlank(bytes[position]) { position += 1 }
            return UnsafeBufferPointer(rebasing: bytes[start..<position])
        }
        func word() -> String? { span().map { String(decoding: $0, as: UTF8.self) } }
        guard let verbBytes = span() else { throw PrefsError(.invalidValue, "empty command") }
        // The verb is compared as bytes: no string is made for it.
        guard let verb = verbs.first(where: { verbBytes.elementsEqual($0.utf8) }) else {
            let text = String(decoding: verbBytes, as: UTF8.self)
            throw PrefsError(.invalidValue, "unknown command \(JSONValue.string(text).compactText) (set, rm, incr or a JSON object)")
        }
        guard let domainName = word(), let key = word() else { throw PrefsError(.invalidValue, "\(verb) needs DOMAIN and KEY") }
        let domain = try Domain(domainName)
        try KeyName.validate(key)
        switch verb {
        case "set":
            guard position < bytes.count else { throw PrefsError(.invalidValue, "set needs a VALUE") }
            let value = String(decoding: UnsafeBufferPointer(rebasing: bytes[(position + 1)...]), as: UTF8.self)
            if let typed = try shortValue?(domain, key, value) { return .set(domain, key, typed) }
            return .set(domain, key, try ValueType.auto.compactJSON(from: value))
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
