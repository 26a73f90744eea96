import PrefsSync

/// The counts of a ``SyncReport`` that `prefs sync` prints
/// (`pulled N (applied N[, skipped N invalid]), pushed N, pending N`), to compare at once.
struct SyncCounts: Equatable, CustomStringConvertible {
    var pulled: Int
    var applied: Int
    var skipped = 0
    var pushed: Int
    var pending: Int

    var description: String { "pulled \(pulled), applied \(applied), skipped \(skipped), pushed \(pushed), pending \(pending)" }
}

extension SyncReport {
    /// The printed counts of this report.
    var counts: SyncCounts { SyncCounts(pulled: pulled, applied: applied, skipped: skipped, pushed: pushed, pending: pending) }
}
