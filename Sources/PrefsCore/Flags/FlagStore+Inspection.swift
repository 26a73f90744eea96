extension FlagStore {
    /// The keys of `switch` whose change log shows a definition with state ENABLED, before or
    /// after a change (`flag lint @store` reports a DISABLED flag not among them).
    ///
    /// - Throws: `PrefsError` of kind `storeUnreadable`.
    public func everEnabled() throws -> Set<String> {
        var keys: Set<String> = []
        for record in try stack.history(LogFilter(domain: .switch)) where !keys.contains(record.key) {
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
