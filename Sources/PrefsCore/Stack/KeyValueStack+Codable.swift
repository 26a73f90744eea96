import FoundationEssentials

extension KeyValueStack {
    /// Decodes the value of `key` as `T` by the lookup order (override, stored, registered
    /// default); nil when none answers.
    ///
    /// ```swift
    /// struct Window: Codable { var width: Int; var height: Int }
    /// let window = try stack.value(Window.self, in: .user, forKey: "window")
    /// ```
    /// - Throws: `PrefsError`: `invalidValue` when the stored JSON does not decode as `T`;
    ///   `usage` for a bad key; `storeUnreadable` when the store cannot be read.
    public func value<T: Decodable>(_ type: T.Type, in domain: Domain, forKey key: String) throws -> T? {
        guard let json = try resolve(in: domain, forKey: key)?.value.compactText else { return nil }
        do {
            return try JSONDecoder().decode(T.self, from: Data(json.utf8))
        } catch {
            throw PrefsError(
                .invalidValue, "\(domain.name)/\(key) does not hold a \(T.self): \(json.prefix(60))",
                reason: .typeMismatch(expected: "\(T.self)"),
                domain: domain, key: key)
        }
    }

    /// Encodes `value` as JSON and queues it under `key` (see ``set(_:in:forKey:)``).
    ///
    /// A value that cannot be encoded (for example a `Double.nan`) is an error, never
    /// silently dropped.
    ///
    /// ```swift
    /// try stack.set(Window(width: 800, height: 600), in: .user, forKey: "window")
    /// ```
    /// - Throws: `PrefsError`: `invalidValue` when `value` cannot be encoded as JSON;
    ///   `usage` for a bad key; `cannotWrite` when the store cannot be written.
    public func set<T: Encodable>(_ value: T, in domain: Domain, forKey key: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        let data: Data
        do {
            data = try encoder.encode(value)
        } catch {
            throw PrefsError(.invalidValue, "cannot encode a \(T.self) as JSON for \(domain.name)/\(key): \(error)")
        }
        return try set(JSONValue(parsingUTF8: Array(data)), in: domain, forKey: key)
    }
}
