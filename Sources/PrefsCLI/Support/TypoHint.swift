import PrefsCore

/// "did you mean …?": the nearest of some names to a misspelled one.
enum TypoHint {
    /// The name among `names` nearest to `name` (``UnknownCommand/distance(_:_:)``), when it
    /// is close enough to be a typo: 1 edit for names of up to 3 characters, else 2, or a
    /// quarter of the name's length for long names.
    static func nearest(_ name: String, among names: some Sequence<String>) -> String? {
        let length = name.count
        let limit = length <= 3 ? 1 : max(2, length / 4)
        var best: (name: String, distance: Int)?
        for candidate in names where candidate != name {
            // Names whose lengths differ by more than the limit cannot be within it. A name of
            // ASCII without CR has as many characters as bytes: no need to count them.
            let bytes = candidate.utf8
            let count = bytes.allSatisfy { $0 < 0x80 && $0 != 0x0D } ? bytes.count : candidate.count
            guard abs(count - length) <= limit else { continue }
            let distance = UnknownCommand.distance(candidate, name)
            if distance <= limit && distance < (best?.distance ?? .max) { best = (candidate, distance) }
        }
        return best?.name
    }

    /// " ; did you mean 'NAME'?" for the nearest name, or "".
    static func suffix(_ name: String, among names: some Sequence<String>) -> String {
        nearest(name, among: names).map { "; did you mean '\($0)'?" } ?? ""
    }
}

extension TypoHint {
    /// How many keys of a domain a did-you-mean reads at most: past that a miss costs what
    /// reading that many names costs, and no more.
    static let keyScanLimit = 10_000

    /// What to add to "DOMAIN/KEY not found": the nearest domain when `domain` does not
    /// exist ("; there is no domain 'swtich'; did you mean 'switch'?"), else the nearest key of
    /// `domain` among its first ``keyScanLimit`` keys, or "".
    static func missingKey(_ key: String, in domain: Domain, of stack: KeyValueStack) -> String {
        guard let known = try? stack.knownDomains() else { return "" }
        if !known.contains(domain) {
            return "; there is no domain '\(domain.name)'" + suffix(domain.name, among: known.map(\.name))
        }
        struct Enough: Error {}
        var names: [String] = []
        do {
            try stack.forEachEffectiveEntry(in: domain) { entry, _ in
                names.append(entry.key)
                if names.count >= keyScanLimit { throw Enough() }
            }
        } catch {
            // A partial list still gives a hint; an unreadable domain gives none.
        }
        return suffix(key, among: names)
    }
}

extension TypoHint {
    /// Before a write that would create `domain`: when a domain of a close name exists, a
    /// warning on stderr naming it (`prefs set biuld sha abc` next to `build`), or with
    /// `PREFS_STRICT_DOMAINS=1` a refusal (exit 2) — in CI a value written under a misspelled
    /// domain lands where nobody reads it. Built-in and existing domains pass silently.
    static func checkNewDomain(_ domain: Domain, in stack: KeyValueStack) throws {
        // The common case, an existing domain, costs one lookup; only a new one reads every name.
        guard try !stack.knowsDomain(domain) else { return }
        guard let nearest = nearest(domain.name, among: try stack.knownDomains().map(\.name)) else { return }
        if ProcessEnvironment.value("PREFS_STRICT_DOMAINS") == "1" {
            throw PrefsError(
                .usage,
                "domain '\(domain.name)' does not exist and is close to '\(nearest)' (PREFS_STRICT_DOMAINS=1 refuses to create it)")
        }
        Output.error("warning: creating domain '\(domain.name)'; did you mean '\(nearest)'?")
    }
}
