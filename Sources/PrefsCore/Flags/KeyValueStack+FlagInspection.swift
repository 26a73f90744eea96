extension FlagDocument {
    /// A flagd document checked as an import checks it, compiled for evaluation (what
    /// `flag diff OLD NEW` compares when given files).
    ///
    /// - Throws: `PrefsError` of kind `invalidValue` with the JSON path of the first problem.
    public static func flagSet(_ document: JSONValue, fractionalVersion: FractionalVersion = .default) throws -> FlagSet {
        let members = try validate(document)
        return FlagSet(entries: members.map { ($0.key, $0.value) }, fractionalVersion: fractionalVersion)
    }

    /// Lints a document given as its text (`FlagLint`), with the validity check of an import.
    ///
    /// - Parameters:
    ///   - bytes: the document as read (for line:column of each finding).
    ///   - everEnabled: for a store, the flags its history shows ENABLED at some time
    ///     (``KeyValueStack/flagsEverEnabled()``); nil for a file.
    public static func lint(_ bytes: [UInt8], everEnabled: Set<String>? = nil) -> [FlagLintFinding] {
        FlagLint.lint(bytes, problems: { problems($0) }, everEnabled: everEnabled)
    }
}

extension KeyValueStack {
    /// The keys of `switch` whose change log shows a definition with state ENABLED, before or
    /// after a change (`flag lint @store` reports a DISABLED flag not among them).
    ///
    /// - Throws: `PrefsError` of kind `storeUnreadable`.
    public func flagsEverEnabled() throws -> Set<String> {
        var keys: Set<String> = []
        for record in try history(LogFilter(domain: .switch)) where !keys.contains(record.key) {
            for text in [record.old, record.new].compactMap({ $0 }) where text.contains("ENABLED") {
                if (try? JSONValue(parsing: text))?["state"]?.stringValue == "ENABLED" {
                    keys.insert(record.key)
                    break
                }
            }
        }
        return keys
    }
}
