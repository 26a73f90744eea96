/// Reads the change log forward, page by page, for a polling watcher (``KeyValueStack/watch(_:interval:)``
/// and `prefs watch`): every record committed after the starting point, in commit order,
/// without gaps or repeats.
///
/// ```swift
/// var poller = try LogPoller(stack, filter: LogFilter(domain: .switch))
/// while true {
///     let page = try poller.poll()
///     for record in page.records { print(record.key) }
///     if page.caughtUp { usleep(100_000) }
/// }
/// ```
public struct LogPoller: Sendable {
    /// The most records one ``poll()`` reads.
    public static let pageSize = 1000

    private let stack: KeyValueStack
    /// Which records ``poll()`` returns.
    public let filter: LogFilter
    /// The sequence number of the last record read (every record up to it has been seen).
    public private(set) var position: Int64
    /// The stack's file when the poller started (``KeyValueStack/storeGeneration``).
    private let generation: Int

    /// Starts after the newest record committed now, so a write made right after this call
    /// is seen.
    ///
    /// - Throws: `PrefsError` of kind `storeUnreadable`.
    public init(_ stack: KeyValueStack, filter: LogFilter = LogFilter()) throws {
        self.stack = stack
        self.filter = filter
        self.generation = stack.storeGeneration
        self.position = try stack.latestLogSequence()
    }

    /// The next page: the records after ``position`` that the filter accepts, and whether
    /// the log has no more for now (wait before polling again).
    ///
    /// The store file replaced under the poller (by a rename over it, say) ends it: the
    /// poller reads the file it opened, which nobody writes any more, and the new file's log
    /// numbers its records independently, so following it could skip or repeat changes. The
    /// records the old file holds are returned first; then `poll()` throws. When another
    /// reader of the same stack has already moved it to the file now at the path
    /// (``KeyValueStack/readings(of:)`` does), the old file cannot be read any more and
    /// `poll()` throws at once.
    ///
    /// - Throws: `PrefsError` of kind `storeUnreadable` when the store cannot be read, when
    ///   records were pruned by retention before they could be read (a watcher too far
    ///   behind), or when the store file was replaced, moved or removed.
    public mutating func poll() throws -> (records: [LogRecord], caughtUp: Bool) {
        let replacedError = PrefsError(
            .storeUnreadable,
            "\(stack.path) was replaced, moved or removed while it was watched (by a rename over it, say); changes to the file now at that path are not followed: watch it again"
        )
        // Another reader of the same stack already moved it to the file now at the path: the
        // old file cannot be read any more, and the new one's log numbers its own records.
        if stack.storeGeneration != generation { throw replacedError }
        // Looked at before reading: what was committed to the old file before it went is read.
        let replaced = stack.storeFileWasReplaced()
        let page = try stack.records(after: position, filter: filter)
        if let gap = page.gap {
            throw PrefsError(.storeUnreadable, "change log records \(gap) were pruned before they were read")
        }
        if stack.storeGeneration != generation || (replaced && page.all.isEmpty) { throw replacedError }
        if let newest = page.all.last { position = newest.seq }
        // Not caught up while the file is replaced: the next poll ends it without waiting.
        return (page.matching, !replaced && page.all.count < Self.pageSize)
    }
}
