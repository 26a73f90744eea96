import FoundationEssentials
import Glibc

/// One record of the change log: a committed change of one key.
///
/// ```swift
/// for record in try stack.history(LogFilter(domain: .switch), limit: 20) {
///     print(record.seq, record.op, record.key, record.actor)
/// }
/// ```
public struct LogRecord: Sendable, Equatable {
    /// The record's position in the log; increases with every change, in commit order.
    public var seq: Int64
    /// When the change was made, in milliseconds since 1970.
    public var at: Int64
    /// The domain.
    public var domain: Domain
    /// The key.
    public var key: String
    /// What happened: `set`, `rm`, `expire`, `refresh`, `import` or `reset`.
    public var op: String
    /// The value before, as compact JSON; nil when the key did not exist.
    public var old: String?
    /// The value after, as compact JSON; nil when the key was removed.
    public var new: String?
    /// Who made the change (`--actor`, `PREFS_ACTOR` or `USER@HOST`).
    public var actor: String

    /// The record as one compact JSON object (a line of `prefs log --json`). `old` is left
    /// out when the key did not exist before the change, `new` when it does not exist after
    /// it, so a removal is never confused with a JSON `null`.
    public var json: String {
        var members: [JSONValue.Member] = [
            .init("seq", .number(String(seq))), .init("time", .string(ISOTime.format(milliseconds: at))),
            .init("domain", .string(domain.name)), .init("key", .string(key)), .init("op", .string(op)),
        ]
        if let old { members.append(.init("old", (try? JSONValue(parsing: old)) ?? .null)) }
        if let new { members.append(.init("new", (try? JSONValue(parsing: new)) ?? .null)) }
        members.append(.init("actor", .string(actor)))
        return JSONValue.object(members).compactText
    }
}

/// A filter for the change log.
public struct LogFilter: Sendable, Equatable {
    /// Only this domain.
    public var domain: Domain?
    /// Only this key (needs ``domain``).
    public var key: String?
    /// Only keys starting with this text.
    public var prefix: String?

    /// Creates a filter; all parts optional.
    public init(domain: Domain? = nil, key: String? = nil, prefix: String? = nil) {
        self.domain = domain
        self.key = key
        self.prefix = prefix
    }

    func matches(_ record: LogRecord) -> Bool {
        if let domain, record.domain != domain { return false }
        if let key, !BytewiseString.equal(record.key, key) { return false }
        if let prefix, !record.key.utf8.starts(with: prefix.utf8) { return false }
        return true
    }
}

extension KeyValueStack {
    /// The change log of the store file, newest first.
    ///
    /// ```swift
    /// let last = try stack.history(LogFilter(domain: .user, key: "theme"), limit: 10)
    /// ```
    /// - Parameters:
    ///   - filter: which records.
    ///   - limit: at most this many (nil: all that are kept).
    ///   - since: only records at or after this time (milliseconds since 1970).
    /// - Throws: `PrefsError` of kind `storeUnreadable` when the store cannot be read.
    public func history(_ filter: LogFilter = LogFilter(), limit: Int? = nil, since: Int64? = nil) throws -> [LogRecord] {
        // Records beyond retention waiting for the next batch prune are not shown.
        var conditions = ["seq > \(ChangeLog.firstKeptSQL)"]
        var arguments: StatementArguments = []
        if let domain = filter.domain {
            conditions.append("domain = ?")
            arguments.append(contentsOf: [domain.name])
        }
        if let key = filter.key {
            conditions.append("key = ?")
            arguments.append(contentsOf: [key])
        }
        if let since {
            conditions.append("at >= ?")
            arguments.append(contentsOf: [since])
        }
        let whereClause = "WHERE " + conditions.joined(separator: " AND ")
        let sql = "SELECT seq, at, domain, key, op, old, new, actor FROM changelog \(whereClause) ORDER BY seq DESC"
        return try main.read { db in
            var records: [LogRecord] = []
            let cursor = try Row.fetchCursor(db, sql: sql, arguments: arguments)
            while let row = try cursor.next() {
                guard let record = try Self.record(row), filter.matches(record) else { continue }
                records.append(record)
                if let limit, records.count >= limit { break }
            }
            return records
        } ?? []
    }

    /// A page of the log after a sequence number (see ``records(after:filter:)``).
    public struct LogPage: Sendable {
        /// Every record read, oldest first (advance past the last one).
        public var all: [LogRecord]
        /// The ones the filter accepts.
        public var matching: [LogRecord]
        /// The range of records pruned before they could be read, e.g. `"5...9"`, if any.
        public var gap: String?
    }

    /// Up to 1,000 records after `seq`, oldest first, for a polling watcher.
    ///
    /// - Throws: `PrefsError` of kind `storeUnreadable` when the store cannot be read.
    public func records(after seq: Int64, filter: LogFilter) throws -> LogPage {
        let all = try records(after: seq)
        var gap: String?
        if let first = all.first, first.seq != seq + 1 { gap = "\(seq + 1)...\(first.seq - 1)" }
        return LogPage(all: all, matching: all.filter(filter.matches), gap: gap)
    }

    /// Records after `seq`, oldest first (at most `limit`).
    func records(after seq: Int64, limit: Int = LogPoller.pageSize) throws -> [LogRecord] {
        try main.read { db in
            try Row.fetchAll(
                db, sql: "SELECT seq, at, domain, key, op, old, new, actor FROM changelog WHERE seq > ? ORDER BY seq LIMIT ?",
                arguments: [seq, limit]
            ).compactMap(Self.record)
        } ?? []
    }

    /// Whether the store file this stack has open is no longer the one at ``path``: it was
    /// removed, renamed away or replaced (another file renamed over it, its directory
    /// moved) since it was opened. False while the store has not been opened.
    package func storeFileWasReplaced() -> Bool {
        main.fileWasReplaced()
    }

    /// Reads the file now at ``path`` from the next access on when ``storeFileWasReplaced()``
    /// (for a long-running reader such as `prefs serve`); whether it was replaced.
    package func reopenStoreIfReplaced() -> Bool {
        main.reopenIfReplaced()
    }

    /// Counts the times ``reopenStoreIfReplaced()`` moved this stack to another file.
    package var storeGeneration: Int { main.generation }

    /// The newest sequence number in the log (0 when empty or no store).
    public func latestLogSequence() throws -> Int64 {
        try main.read(ChangeLog.latestSequence) ?? 0
    }

    private static func record(_ row: Row) throws -> LogRecord? {
        guard let domain = try? Domain(row[2] as String) else { return nil }
        return try LogRecord(seq: row[0], at: row[1], domain: domain, key: row[3], op: row[4], old: row[5], new: row[6], actor: row[7])
    }

    /// Keeps only the newest `count` records of the change log from now on, and prunes now.
    ///
    /// - Throws: `PrefsError`: `usage` for a count below 1; `cannotWrite`.
    public func setLogRetention(_ count: Int) throws {
        guard count >= 1 else { throw PrefsError(.usage, "--retain must be at least 1") }
        try main.write { try ChangeLog.setRetention($0, count) }
    }

    /// A ``StoreChangeMonitor`` of this stack's store file: wakes its waiter when another
    /// process may have committed, or when an entry of the directories of its layer files
    /// changed (``reloadLayers()`` then reads them again) — inotify; a timer every
    /// `pollInterval` where inotify is unavailable or `PREFS_WATCH=poll` in `environment`.
    ///
    /// - Throws: `PrefsError`: `usage` for a bad `PREFS_WATCH`; `storeUnreadable` when the
    ///   store cannot be watched.
    public func changeMonitor(pollInterval: Duration = .milliseconds(100), environment: [String: String] = ProcessEnvironment.current())
        throws -> StoreChangeMonitor
    {
        let layerDirectories =
            layerState.environment.map { environment in
                Layers.watchedDirectories(variable: { environment[$0] }, from: Layers.currentDirectory() ?? "")
            } ?? []
        return try StoreChangeMonitor(
            storePath: path, pollInterval: pollInterval, environment: environment, alsoWatching: layerDirectories)
    }

    /// Every change committed to the store file by any process from now on, in commit
    /// order, without gaps or repeats, read when the store's ``StoreChangeMonitor`` wakes
    /// (within milliseconds of a commit; every `interval` where inotify is unavailable).
    ///
    /// ```swift
    /// for try await record in stack.watch(LogFilter(domain: .switch)) { print(record.key, record.new ?? "-") }
    /// ```
    /// The stream ends with an error when the store becomes unreadable, when records were
    /// pruned by retention before they could be read (a watcher too far behind), or when the
    /// store file is replaced (a file renamed over it), moved or removed: a `storeUnreadable`
    /// `PrefsError` naming the path, once the old file's last records are delivered.
    public func watch(_ filter: LogFilter = LogFilter(), interval: Duration = .milliseconds(100)) -> AsyncThrowingStream<
        LogRecord, any Error
    > {
        // The starting point is taken now, so a write made right after this call is seen.
        let start = Result { () throws -> (StoreChangeMonitor, LogPoller) in
            let monitor = try changeMonitor(pollInterval: interval)
            return (monitor, try LogPoller(self, filter: filter))
        }
        return AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    let (monitor, first) = try start.get()
                    var poller = first
                    while !Task.isCancelled {
                        let page = try poller.poll()
                        for record in page.records { continuation.yield(record) }
                        if page.caughtUp, await monitor.next() == .cancelled { break }
                    }
                    continuation.finish()
                } catch is CancellationError {
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}

/// ISO 8601 times in UTC with milliseconds, e.g. `2026-11-22T02:10:00.123Z`.
package enum ISOTime {
    /// Formats milliseconds since 1970.
    package static func format(milliseconds: Int64) -> String {
        var seconds = time_t(milliseconds / 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int32, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
            + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2)).\(pad(Int32(milliseconds % 1000), 3))Z"
    }

    /// With fractional seconds, without, and a date alone.
    private static let parseStyles: [Date.ISO8601FormatStyle] = [
        Date.ISO8601FormatStyle(includingFractionalSeconds: true), Date.ISO8601FormatStyle(),
        Date.ISO8601FormatStyle().year().month().day(),
    ]

    /// Parses `2026-11-22T02:10:00Z`, `2026-11-22T02:10:00.5Z`, `2026-11-22T02:10:00+02:00`
    /// or `2026-11-22`; nil when malformed.
    package static func parse(_ text: String) -> Int64? {
        // The format styles roll fields over (hour 25 is 01:00 the next day): check ranges.
        guard fieldsInRange(Array(text.utf8)) else { return nil }
        for style in parseStyles {
            if let date = try? style.parse(text) { return Int64((date.timeIntervalSince1970 * 1000).rounded()) }
        }
        return nil
    }

    /// Whether the date (and the time, when there is one) of `text` names a real day and time:
    /// month 1–12, a day of that month, hour 0–23, minute 0–59, second 0–60.
    private static func fieldsInRange(_ bytes: [UInt8]) -> Bool {
        func number(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[range] {
                guard (48...57).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), (1...12).contains(month) else {
            return false
        }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
        guard (1...days).contains(day) else { return false }
        guard bytes.count > 10 else { return true }
        guard let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19) else { return false }
        return hour <= 23 && minute <= 59 && second <= 60
    }
}
