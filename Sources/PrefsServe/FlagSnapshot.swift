import PrefsCore

/// The `switch` domain as last read: compiled flags, a digest of what they were built from
/// (for ETags), and the change log's newest sequence number (for live updates).
public struct FlagSnapshot: Sendable {
    /// The compiled flags.
    public var flags: FlagSet
    /// FNV-1a over the effective `switch` entries and the fractional hashing version.
    public var digest: UInt64
    /// The change log's newest sequence number when read.
    public var logSequence: Int64

    /// Reads `switch` and the change log's position from a store.
    ///
    /// - Throws: ``PrefsError`` when the store cannot be read.
    public static func read(_ stack: KeyValueStack, previous: FlagSnapshot? = nil) throws -> FlagSnapshot {
        let sequence = try stack.latestLogSequence()
        let version = try stack.flags.fractionalVersionSetting() ?? .default
        var hasher = FNV1a()
        hasher.add(String(version.rawValue))
        var texts: [(key: String, json: String)] = []
        // The flags by the one rule (stored or overridden; a default is not a flag).
        try stack.flags.forEachEntry { entry, _ in
            texts.append((entry.key, entry.json))
            hasher.add(entry.key)
            hasher.add(entry.json)
        }
        if let previous, previous.digest == hasher.value {
            var same = previous
            same.logSequence = sequence
            return same
        }
        var entries: [(key: String, value: JSONValue)] = []
        for text in texts {
            // A stored value that does not parse is left out, as `flag list` skips it.
            guard let value = try? JSONValue(parsing: text.json) else { continue }
            entries.append((text.key, value))
        }
        return FlagSnapshot(flags: FlagSet(entries: entries, fractionalVersion: version), digest: hasher.value, logSequence: sequence)
    }

    /// The flag keys in byte order (the `$evaluators` and `$metadata` entries are not flags).
    public var keys: [String] { flags.flags.keys.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) } }
}
