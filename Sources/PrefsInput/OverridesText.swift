import PrefsBase
import PrefsJSON

/// `PREFS_OVERRIDES`, `{"domain":{"key":value}}`: the overrides every program of the package
/// reads the same way (`prefs`, and `prefs-serve`, to which `prefs serve` hands its
/// `--override` options through the variable).
package enum OverridesText {
    /// The overrides `text` names; empty for nil or empty text.
    /// - Throws: ``PrefsError`` of kind `invalidValue` naming the variable.
    package static func parse(_ text: String?) throws -> [Domain: [String: JSONValue]] {
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
            guard let domain = try? Domain(member.key), let keys = member.value.objectMembers else {
                throw PrefsError(
                    .invalidValue, "PREFS_OVERRIDES: \(JSONValue.string(member.key).compactText) is not a domain with an object of keys")
            }
            for entry in keys {
                do {
                    try KeyName.validate(entry.key)
                } catch let error as PrefsError {
                    throw PrefsError(.invalidValue, "PREFS_OVERRIDES: \(error.message)")
                }
                result[domain, default: [:]][entry.key] = entry.value
            }
        }
        return result
    }
}
