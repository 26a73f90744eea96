import FoundationEssentials

extension LogRecord {
    /// ``op`` as an enum; nil for an operation this build does not know (a newer build's).
    ///
    /// ```swift
    /// for record in try stack.history(limit: 5) where record.operation == .reset { print(record.key, record.time) }
    /// ```
    public var operation: LogOperation? { LogOperation(rawValue: op) }
    /// When the change was made (``at`` as a `Date`).
    public var time: Date { Date(timeIntervalSince1970: Double(at) / 1000) }
}

extension KeyValueStack {
    /// The change log of the store file since a time, newest first (see
    /// ``history(_:limit:since:)-(_,_,Int64?)``).
    ///
    /// ```swift
    /// let lastHour = try stack.history(LogFilter(domain: .user), since: Date(timeIntervalSinceNow: -3600))
    /// ```
    /// - Parameters:
    ///   - filter: which records.
    ///   - limit: at most this many (nil: all that are kept).
    ///   - date: only records at or after this time.
    /// - Throws: `PrefsError` of kind `storeUnreadable` when the store cannot be read.
    public func history(_ filter: LogFilter = LogFilter(), limit: Int? = nil, since date: Date) throws -> [LogRecord] {
        try history(filter, limit: limit, since: Int64((date.timeIntervalSince1970 * 1000).rounded(.down)))
    }
}

extension Entry {
    /// When the value was last written (``updatedAt`` as a `Date`).
    public var updated: Date { Date(timeIntervalSince1970: Double(updatedAt) / 1000) }
    /// When the key expires (``expiresAt`` as a `Date`); nil when it does not.
    public var expires: Date? { expiresAt.map { Date(timeIntervalSince1970: Double($0) / 1000) } }
}
