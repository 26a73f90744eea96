import PrefsBase

/// A JSON value held as its compact text, the form the store keeps, without its tree.
///
/// Writing values straight through (`prefs batch`, bulk loads) skips building and
/// re-serializing a ``JSONValue``; the tree is parsed only when something needs it, such as
/// a schema check. Two values are equal when their texts are byte for byte, which is when
/// the ``JSONValue``s are.
///
/// ```swift
/// let json = try CompactJSON(parsing: #"{ "a": [1, 2.50] }"#)
/// print(json.text)  // {"a":[1,2.50]}
/// try stack.set(json, in: .user, forKey: "k")
/// ```
public struct CompactJSON: Sendable, Hashable, CustomStringConvertible {
    /// The value's ``JSONValue/compactText``.
    public let text: String

    /// The compact text of a value.
    public init(_ value: JSONValue) {
        text = value.compactText
    }

    /// Parses JSON text (one value, any whitespace) and keeps its compact form.
    ///
    /// - Throws: ``PrefsError`` of kind ``PrefsError/Kind/invalidValue`` when the text is
    ///   not one valid JSON value, as ``JSONValue/init(parsing:)`` reports it.
    public init(parsing text: String) throws {
        var text = text
        // Text that is already compact (a value as most input gives it) is kept: no copy.
        if text.withUTF8(JSONParser.isCompact) {
            self.text = text
            return
        }
        self.text = try text.withUTF8 { try JSONParser.compactText($0, validUTF8: true) }
    }

    /// The value as a tree.
    ///
    /// - Throws: ``PrefsError`` of kind ``PrefsError/Kind/invalidValue`` only if the text
    ///   were not valid JSON, which the initializers rule out.
    public func value() throws -> JSONValue {
        try JSONValue(parsing: text)
    }

    public var description: String { text }

    public static func == (lhs: CompactJSON, rhs: CompactJSON) -> Bool {
        BytewiseString.equal(lhs.text, rhs.text)
    }

    public func hash(into hasher: inout Hasher) {
        BytewiseString.hashBytes(text, into: &hasher)
    }
}
