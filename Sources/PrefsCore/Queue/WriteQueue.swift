import Dispatch
import FoundationEssentials
import Glibc
import Synchronization

/// A domain and key, compared byte for byte (Swift's `String` equality would merge
/// canonically equivalent keys, which SQLite keeps apart).
struct PendingKey: Hashable, Sendable {
    let domain: Domain
    let key: String

    static func == (lhs: PendingKey, rhs: PendingKey) -> Bool {
        BytewiseString.equal(lhs.key, rhs.key) && lhs.domain.name == rhs.domain.name
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(domain)
        BytewiseString.hashBytes(key, into: &hasher)
    }

    static func precedes(_ lhs: PendingKey, _ rhs: PendingKey) -> Bool {
        if lhs.domain != rhs.domain { return lhs.domain < rhs.domain }
        return BytewiseString.precedes(lhs.key, rhs.key)
    }
}

/// A change waiting to be written. Later changes of one key replace or absorb earlier ones.
enum PendingChange: Sendable, Equatable {
    /// Store this compact JSON, expiring at the given time (milliseconds since 1970) if any.
    case set(String, expiresAt: Int64?)
    /// Remove the key.
    case remove
    /// Add `delta` to the stored integer (a missing key counts as 0). `visible` is the value
    /// readers see until the flush, computed when the increment was queued.
    case increment(delta: Int64, visible: String)

    /// This (newer) change on top of `older`.
    func composed(onto older: PendingChange?) -> PendingChange {
        guard case .increment(let delta, let visible) = self, let older else { return self }
        switch older {
        case .set, .remove: return .set(visible, expiresAt: nil)
        case .increment(let olderDelta, _):
            let (sum, overflow) = olderDelta.addingReportingOverflow(delta)
            return overflow ? .set(visible, expiresAt: nil) : .increment(delta: sum, visible: visible)
        }
    }

    /// The JSON readers see at `now`, or nil when the key reads as removed or expired.
    func visibleJSON(at now: Int64) -> String? {
        switch self {
        case .set(let json, let expiresAt): (expiresAt.map { $0 > now } ?? true) ? json : nil
        case .remove: nil
        case .increment(_, let visible): visible
        }
    }

    var expiresAt: Int64? {
        if case .set(_, let expiresAt) = self { return expiresAt }
        return nil
    }
}

/// Queued changes, one per key, in the order their keys were first written: a list for the
/// flush to write as it is and an index for lookups, so neither needs the other's work. While
/// keys arrive in the flush's order (a batch file, an import), the list is sorted and is its
/// own index (a binary search): no key is hashed until one arrives out of order.
struct PendingChanges: Sendable {
    private(set) var entries: [(PendingKey, PendingChange)] = []
    /// Every key's position once the keys are no longer in order; empty while they are.
    private var positions: [PendingKey: Int] = [:]
    /// Whether the keys were first written in the flush's order (domain, then key bytes), as
    /// a batch file or an import usually is: then the flush need not sort them.
    private(set) var inOrder = true

    init(minimumCapacity: Int = 0) {
        entries.reserveCapacity(minimumCapacity)
    }

    var count: Int { entries.count }
    var isEmpty: Bool { entries.isEmpty }

    subscript(key: PendingKey) -> PendingChange? {
        guard inOrder else { return positions[key].map { entries[$0].1 } }
        return sortedPosition(of: key).map { entries[$0].1 }
    }

    /// The position of `key` in the sorted list (while ``inOrder``), if it is there.
    private func sortedPosition(of key: PendingKey) -> Int? {
        var low = 0
        var high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if PendingKey.precedes(entries[middle].0, key) { low = middle + 1 } else { high = middle }
        }
        return low < entries.count && entries[low].0 == key ? low : nil
    }

    /// Adds a change on top of the key's queued one (see ``PendingChange/composed(onto:)``).
    mutating func add(_ key: PendingKey, _ change: PendingChange) {
        if inOrder {
            if let last = entries.last, !PendingKey.precedes(last.0, key) {
                if let position = sortedPosition(of: key) {
                    entries[position].1 = change.composed(onto: entries[position].1)
                    return
                }
                // The first key out of order: from now on the index answers.
                inOrder = false
                positions.reserveCapacity(Swift.max(entries.capacity, entries.count + 1))
                for (position, entry) in entries.enumerated() { positions[entry.0] = position }
            } else {
                entries.append((key, change))
                return
            }
        }
        let next = entries.count
        // One hash lookup: the key's position, inserted when it is new.
        let position = Self.value(&positions[key, default: next])
        if position == next {
            entries.append((key, change))
        } else {
            entries[position].1 = change.composed(onto: entries[position].1)
        }
    }

    private static func value(_ position: inout Int) -> Int { position }

    mutating func reserveCapacity(_ capacity: Int) {
        entries.reserveCapacity(capacity)
        if !inOrder { positions.reserveCapacity(capacity) }
    }
}

/// What one flush did.
public struct FlushReport: Sendable, Equatable {
    /// How many keys the flush wrote (after coalescing).
    public var changes: Int
    /// The caller's progress marker as it was when the flush took its batch (see
    /// ``KeyValueStack/setProgressMarker(_:)``): every write queued before it is durable.
    public var marker: Int
    /// The failure, when the flush failed; its changes stay pending.
    public var error: PrefsError?
    /// Queued increments the flush could not apply because another process had meanwhile
    /// stored a value that is not an integer (or the sum overflowed); the rest committed.
    public var rejected: [String] = []
}

/// The debounce queue: writes land in an in-memory overlay at once and are written together,
/// in one transaction per database, one window after the first of them.
final class WriteQueue: Sendable {
    private struct State {
        var pending = PendingChanges()
        /// The batch being written.
        var inFlight = PendingChanges()
        var timerArmed = false
        /// Bumped by every flush, so a timer armed before it does nothing when it fires.
        var timerGeneration: UInt64 = 0
        var earlyFlushScheduled = false
        var marker = 0
        var lastError: PrefsError?
    }

    /// The debounce window; nil: no timer, the owner flushes (a one-shot command).
    let window: Duration?
    private let state = Mutex(State())
    /// Serializes flushes: one batch at a time, in order.
    private let flushLock = Mutex(())
    private let apply: @Sendable ([(PendingKey, PendingChange)]) throws -> [String]
    private let onFlush: (@Sendable (FlushReport) -> Void)?

    /// When this many keys are pending, a flush starts at once instead of at the end of the
    /// window: it bounds memory, and a writer thread works while the caller keeps queueing.
    let maximumPending: Int

    init(
        window: Duration?, maximumPending: Int = 10_000, apply: @escaping @Sendable ([(PendingKey, PendingChange)]) throws -> [String],
        onFlush: (@Sendable (FlushReport) -> Void)?
    ) {
        self.window = window
        self.maximumPending = max(maximumPending, 1)
        self.apply = apply
        self.onFlush = onFlush
    }

    /// Queues a change, composing it with what is pending for the key; starts the timer.
    ///
    /// A change is composed only with the *pending* change of its key, never with the one
    /// being written: that one commits on its own, and composing would apply an increment
    /// twice. Readers still see the sum, because `visible` was computed from the overlay.
    func enqueue(_ key: PendingKey, _ change: PendingChange) {
        let (arm, early, full) = state.withLock { state -> (UInt64?, Bool, Bool) in
            state.pending.add(key, change)
            // A bulk is under way: room for a whole batch at once instead of growing by doubling.
            if state.pending.count == 1_024 { state.pending.reserveCapacity(maximumPending) }
            var early = false
            // After a failed flush, retries wait for the timer instead of running per write.
            if state.pending.count >= maximumPending && !state.earlyFlushScheduled && state.lastError == nil {
                state.earlyFlushScheduled = true
                early = true
            }
            let full = state.pending.count + state.inFlight.count >= 4 * maximumPending && state.lastError == nil
            if state.timerArmed || window == nil { return (nil, early, full) }
            state.timerArmed = true
            return (state.timerGeneration, early, full)
        }
        if let generation = arm { armTimer(generation) }
        if full {
            // Back-pressure: a producer faster than the disk waits for a flush here, so the
            // queue holds a few batches at most (a failure reaches onFlush and stays pending).
            _ = try? flush()
        } else if early {
            DispatchQueue.global(qos: .userInitiated).async { _ = try? self.flush() }
        }
    }

    /// The queued change for a key (pending, else being written), if any.
    func overlay(_ key: PendingKey) -> PendingChange? {
        state.withLock { state in
            guard let pending = state.pending[key] else { return state.inFlight[key] }
            // An increment queued during a flush shows the total through its `visible`.
            return pending
        }
    }

    /// Every queued change of one domain (or all), pending over in-flight.
    func overlay(domain: Domain?) -> [PendingKey: PendingChange] {
        state.withLock { state in
            var result: [PendingKey: PendingChange] = [:]
            for (key, change) in state.inFlight.entries where domain == nil || key.domain == domain { result[key] = change }
            for (key, change) in state.pending.entries where domain == nil || key.domain == domain { result[key] = change }
            return result
        }
    }

    var pendingCount: Int { state.withLock { $0.pending.count + $0.inFlight.count } }

    var lastError: PrefsError? { state.withLock { $0.lastError } }

    func setMarker(_ marker: Int) {
        state.withLock { $0.marker = marker }
    }

    /// Drops every pending change (a failed one-shot command must not write after it has
    /// reported failure); returns how many keys were dropped.
    func discardPending() -> Int {
        flushLock.withLock { _ in
            state.withLock { state in
                let count = state.pending.count
                state.pending = PendingChanges()
                state.timerGeneration &+= 1
                state.timerArmed = false
                return count
            }
        }
    }

    private func armTimer(_ generation: UInt64) {
        guard let window else { return }
        let parts = window.components
        let nanoseconds = min(parts.seconds, 86_400) * 1_000_000_000 + parts.attoseconds / 1_000_000_000
        DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + .nanoseconds(Int(max(nanoseconds, 1_000_000)))) {
            let current = self.state.withLock { $0.timerGeneration == generation }
            if current { _ = try? self.flush() }
        }
    }

    /// The batch grouped by domain (in name order), keys in bytewise order within a domain
    /// so SQLite's B-tree fills in order. Writes usually arrive in order already (a batch
    /// file, an import); otherwise they are sorted.
    static func ordered(_ batch: PendingChanges) -> [(PendingKey, PendingChange)] {
        batch.inOrder ? batch.entries : batch.entries.sorted { PendingKey.precedes($0.0, $1.0) }
    }

    /// Writes everything pending now, in one transaction per database, and returns when it is
    /// committed. Writes queued meanwhile go into the next batch. On failure the batch is put
    /// back under newer writes and retried one window later.
    @discardableResult
    func flush() throws -> FlushReport {
        try flushLock.withLock { _ in
            let (batch, marker) = state.withLock { state -> (PendingChanges, Int) in
                state.timerArmed = false
                state.timerGeneration &+= 1
                state.earlyFlushScheduled = false
                state.inFlight = state.pending
                state.pending = PendingChanges()
                return (state.inFlight, state.marker)
            }
            if batch.isEmpty {
                let report = FlushReport(changes: 0, marker: marker, error: nil)
                return report
            }
            let rejected: [String]
            do {
                rejected = try apply(Self.ordered(batch))
            } catch {
                var committed = Set<PendingKey>()
                var failure = (error as? PrefsError) ?? PrefsError(.cannotWrite, "\(error)")
                if let partial = error as? KeyValueStack.PartialFlushFailure {
                    committed = partial.committed
                    failure = partial.error
                }
                let rearm = state.withLock { state -> UInt64? in
                    var merged = PendingChanges(minimumCapacity: state.inFlight.count + state.pending.count)
                    for (key, change) in state.inFlight.entries where !committed.contains(key) { merged.add(key, change) }
                    for (key, newer) in state.pending.entries { merged.add(key, newer) }
                    state.pending = merged
                    state.inFlight = PendingChanges()
                    state.lastError = failure
                    if state.timerArmed { return nil }
                    state.timerArmed = true
                    return state.timerGeneration
                }
                if let generation = rearm { armTimer(generation) }
                onFlush?(FlushReport(changes: 0, marker: marker, error: failure))
                throw failure
            }
            state.withLock { state in
                state.inFlight = PendingChanges()
                state.lastError = nil
            }
            let report = FlushReport(changes: batch.count, marker: marker, error: nil, rejected: rejected)
            onFlush?(report)
            return report
        }
    }
}
