/// What ``StoreMaintenance/restore(from:overwrite:withSources:report:)`` takes from a backup and
/// what it leaves behind, known before the store changes.
public struct RestoreReport: Sendable, Equatable {
    /// The backup file.
    public var source: String
    /// The domains restored (each with its table; empty ones included).
    public var domains = 0
    /// The keys restored.
    public var keys = 0
    /// The change-log records restored (0 when the backup's log was left behind).
    public var logRecords = 0
    /// What else is restored, one line each (refresh sources and the sync remote with
    /// `withSources`).
    public var restored: [String] = []
    /// What is left behind, one line each: objects prefs did not make, a change log that
    /// did not pass the checks, refresh sources and the sync remote without `withSources`.
    public var dropped: [String] = []

    /// Creates an empty report for `source`.
    public init(source: String) {
        self.source = source
    }

    /// The report as lines for a person: what is restored, then what is not.
    ///
    /// ```swift
    /// try stack.maintenance.restore(from: "b.db", overwrite: true) { report in
    ///     for line in report.lines { print(line) }
    /// }
    /// ```
    public var lines: [String] {
        ["restoring \(domains) domain(s), \(keys) key(s) and \(logRecords) change-log record(s) from \(source)"]
            + restored.map { "restoring " + $0 } + dropped.map { "not restoring " + $0 }
    }
}
