import PrefsInput
import PrefsJSON

extension Schema {
    /// A value given as text (`prefs set`'s VALUE, a short `batch` line's value, the JSON
    /// text of an `apply` value), read the way the key's schema type says.
    ///
    /// Text is JSON when it is valid JSON, otherwise a string; a key whose schema type is
    /// `boolean` also reads `yes`, `no`, `on`, `off`, … as booleans, and a key whose type is
    /// `string` reads any text as that string (`12345` is `"12345"`, `"x"` is `x`). Text the
    /// type cannot read is read as usual, and the schema's check names the problem.
    ///
    /// ```swift
    /// let schema = try Schema(parsing: JSONValue(parsing: #"{"user":{"dark":{"type":"boolean"},"zip":{"type":"string"}}}"#))
    /// let dark = try schema.value(fromText: "yes", in: .user, forKey: "dark")  // .bool(true)
    /// let zip = try schema.value(fromText: "01234", in: .user, forKey: "zip")  // .string("01234")
    /// ```
    /// - Throws: `PrefsError` of kind `invalidValue` for text starting with `{` or `[` that
    ///   is not valid JSON.
    public func value(fromText text: String, in domain: Domain, forKey key: String) throws -> JSONValue {
        switch spec(in: domain, forKey: key)?.type {
        case .boolean?: return try (try? ValueType.boolean.value(from: text)) ?? ValueType.auto.value(from: text)
        case .string?: return (try? ValueType.auto.value(from: text))?.stringValue.map(JSONValue.string) ?? .string(text)
        default: return try ValueType.auto.value(from: text)
        }
    }
}
