import PrefsBase

extension PrefsError {
    /// The domain of the key involved, when there is one.
    public var domain: Domain? { domainName.flatMap { try? Domain($0) } }

    /// Creates an error about a key of a domain.
    ///
    /// ```swift
    /// throw PrefsError(.preconditionFailed, "user/step already exists", reason: .alreadyExists, domain: .user, key: "step")
    /// ```
    public init(_ kind: Kind, _ message: String, reason: Reason? = nil, domain: Domain?, key: String?) {
        self.init(kind, message, reason: reason, domainName: domain?.name, key: key)
    }

    /// The same error naming `domain` and `key` (when it names no key yet).
    package func naming(_ domain: Domain, _ key: String) -> PrefsError {
        guard self.key == nil else { return self }
        var copy = self
        copy.domainName = domain.name
        copy.key = key
        return copy
    }
}
