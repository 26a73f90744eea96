/// What a change-log record says happened (its `op` column): the name the write in progress
/// gives its changes through `log_context`, which the change-log triggers read.
public enum LogOperation: String, Sendable, CaseIterable, CustomStringConvertible {
    /// A value stored (set, increment, apply, batch).
    case set
    /// A key removed.
    case rm
    /// An expired key purged at the next write to its domain.
    case expire
    /// A server-fed domain replaced by `prefs refresh`.
    case refresh
    /// `prefs import`.
    case `import`
    /// `prefs reset`.
    case reset
    /// A change pulled from the sync remote.
    case sync
    /// Setting or forgetting the sync remote (no key changes).
    case remote
    /// A placeholder for records of a bulk write that were never written (retention would
    /// have pruned them at commit).
    case skipped
    /// A placeholder after `prefs restore`, so the log never goes back.
    case restore

    /// The name in the log, e.g. `set`.
    public var description: String { rawValue }
}
