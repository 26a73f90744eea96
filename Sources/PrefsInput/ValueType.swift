import PrefsBase
import PrefsJSON

/// How text typed by a user becomes a stored JSON value (`prefs set` and friends).
///
/// ```swift
/// let three = try ValueType.auto.value(from: "3")      // .number("3")
/// let dark = try ValueType.auto.value(from: "dark")    // .string("dark")
/// let yes = try ValueType.boolean.value(from: "yes")  // .bool(true)
/// ```
public enum ValueType: String, Sendable, CaseIterable {
    /// JSON when the text is valid JSON, else the text as a string; text starting with `{`
    /// or `[` must be valid JSON.
    case auto
    /// A JSON string: the text parsed as in ``auto`` must give a string (`dark`, `"3"`).
    case string
    /// A JSON number.
    case number
    /// A JSON number without fraction or exponent.
    case integer
    /// `true`/`false`, also `yes`/`no`/`on`/`off` (any case).
    case boolean
    /// A JSON object.
    case object
    /// A JSON array.
    case array
    /// Any valid JSON value.
    case json

    /// Converts user text to a value of this type.
    ///
    /// - Throws: ``PrefsError`` of kind ``PrefsError/Kind/invalidValue`` when the text is not
    ///   valid JSON where JSON is required, or the value is not of this type.
    public func value(from text: String) throws -> JSONValue {
        switch self {
        case .string:
            let value = try ValueType.auto.value(from: text)
            try check(value)
            return value
        case .auto:
            if let value = try? JSONValue(parsing: text) { return value }
            let first = text.utf8.first { $0 != 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }
            if first == UInt8(ascii: "{") || first == UInt8(ascii: "[") {
                // Report the parser's reason.
                _ = try JSONValue(parsing: text)
            }
            return .string(text)
        case .boolean:
            switch text.lowercased() {
            case "true", "yes", "on": return .bool(true)
            case "false", "no", "off": return .bool(false)
            default: throw PrefsError(.invalidValue, "expected a boolean (true/false, yes/no, on/off), got \(Domain.quoted(text))")
            }
        case .json:
            return try JSONValue(parsing: text)
        case .number, .integer, .object, .array:
            let value: JSONValue
            do {
                value = try JSONValue(parsing: text)
            } catch let error as PrefsError {
                throw PrefsError(.invalidValue, "expected \(article) \(rawValue): \(error.message)")
            }
            try check(value)
            return value
        }
    }

    /// Converts user text to the compact JSON of a value of this type: what
    /// ``value(from:)`` gives, without building its tree for ``auto`` and ``json`` (`prefs
    /// batch` types every `set` line this way).
    ///
    /// ```swift
    /// let text = try ValueType.auto.compactJSON(from: #"{ "a": 1 }"#).text  // {"a":1}
    /// ```
    /// - Throws: ``PrefsError`` of kind ``PrefsError/Kind/invalidValue``, as ``value(from:)``.
    public func compactJSON(from text: String) throws -> CompactJSON {
        switch self {
        case .auto:
            if let json = try? CompactJSON(parsing: text) { return json }
            return CompactJSON(try value(from: text))
        case .json:
            return try CompactJSON(parsing: text)
        default:
            return CompactJSON(try value(from: text))
        }
    }

    /// Checks that a parsed value is of this type.
    ///
    /// - Throws: ``PrefsError`` of kind ``PrefsError/Kind/invalidValue`` on a mismatch.
    public func check(_ value: JSONValue) throws {
        let ok: Bool
        switch (self, value) {
        case (.auto, _), (.json, _): ok = true
        case (.string, .string), (.boolean, .bool), (.number, .number), (.object, .object), (.array, .array): ok = true
        case (.integer, .number): ok = value.isIntegerNumber
        default: ok = false
        }
        if !ok {
            let got = (self == .integer && value.typeName == "number") ? "non-integer number" : value.typeName
            throw PrefsError(.invalidValue, "expected \(article) \(rawValue), got \(got == "object" || got == "array" ? "an" : "a") \(got)")
        }
    }

    private var article: String {
        switch self {
        case .integer, .object, .array, .auto: "an"
        default: "a"
        }
    }
}
