/// One line of a system lock file (`/etc/prefs/locks/*`): `domain/key` pins one key,
/// `domain/prefix*` every key that starts with `prefix`. A locked key reads as the system
/// layer's value whatever the other layers hold, and every local write to it is refused.
public struct LayerLock: Sendable, Equatable {
    /// The domain the lock applies to.
    public let domain: Domain
    /// The key, or the prefix when ``isPrefix`` is true.
    public let key: String
    /// Whether the line ended with `*`.
    public let isPrefix: Bool
    /// The lock file that holds the line.
    public let file: String

    /// Whether the lock covers `domain`/`key`.
    public func covers(_ domain: Domain, _ key: String) -> Bool {
        guard domain == self.domain else { return false }
        return isPrefix ? key.utf8.starts(with: self.key.utf8) : key.utf8.elementsEqual(self.key.utf8)
    }

    /// Parses one line (already stripped of comments and blanks); nil when it is no lock.
    static func parse(_ line: Substring, file: String) -> LayerLock? {
        guard let slash = line.utf8.firstIndex(of: UInt8(ascii: "/")) else { return nil }
        let name = String(line[line.startIndex..<slash])
        var key = String(line[line.index(after: slash)...])
        let isPrefix = key.hasSuffix("*")
        if isPrefix { key.removeLast() }
        guard Domain.isValidName(name), let domain = try? Domain(name) else { return nil }
        if !isPrefix || !key.isEmpty {
            guard (try? KeyName.validate(key)) != nil else { return nil }
        }
        return LayerLock(domain: domain, key: key, isPrefix: isPrefix, file: file)
    }
}

extension LayerLock {
    /// The error of a write refused by this lock (exit 4, naming the lock file).
    func refusal(_ domain: Domain, _ key: String) -> PrefsError {
        PrefsError(.cannotWrite, "\(domain.name)/\(key) is locked by \(file)", domain: domain, key: key)
    }
}
