import PrefsCore

/// PREFS_OVERRIDES, `{"domain":{"key":value}}`, as `prefs serve` hands over its `--override`
/// options and the variable (read as `prefs` reads it).
enum Overrides {
    static func parse(_ text: String?) throws -> [Domain: [String: JSONValue]] {
        guard let text, !text.isEmpty else { return [:] }
        let document: JSONValue
        do {
            document = try JSONValue(parsing: text, wrappingLevels: 2)
        } catch let error as PrefsError {
            throw PrefsError(.invalidValue, "PREFS_OVERRIDES: \(error.message)")
        }
        guard let domains = document.objectMembers else {
            throw PrefsError(.invalidValue, "PREFS_OVERRIDES: expected a JSON object {\"domain\":{\"key\":value}}")
        }
        var result: [Domain: [String: JSONValue]] = [:]
        for member in domains {
            let domain = try Domain(member.key)
            guard let keys = member.value.objectMembers else {
                throw PrefsError(.invalidValue, "PREFS_OVERRIDES: \(member.key) must be an object of keys")
            }
            for key in keys {
                try Key.validate(key.key)
                result[domain, default: [:]][key.key] = key.value
            }
        }
        return result
    }
}
