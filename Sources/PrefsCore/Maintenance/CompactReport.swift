/// What ``StoreMaintenance/compact()`` did: the store file's size before and after, in bytes.
public struct CompactReport: Sendable, Equatable {
    /// The store file's size before, with its free pages.
    public var bytesBefore: Int
    /// The store's size after, its free pages given back: the file's size once the WAL is
    /// checkpointed (at once, unless another process was reading the store then).
    public var bytesAfter: Int
    /// Whether the store was switched to incremental auto-vacuum by this compaction (a store
    /// made before prefs did that for new stores).
    public var switchedToIncremental: Bool

    /// Creates a report.
    public init(bytesBefore: Int, bytesAfter: Int, switchedToIncremental: Bool) {
        self.bytesBefore = bytesBefore
        self.bytesAfter = bytesAfter
        self.switchedToIncremental = switchedToIncremental
    }
}
