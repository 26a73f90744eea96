import Foundation
import GRDB
import Synchronization

/// A string compared and hashed byte for byte (UTF-8), as SQLite compares keys.
struct BytewiseString: Hashable, Sendable {
    let value: String

    init(_ value: String) {
        self.value = value
    }

    static func == (lhs: BytewiseString, rhs: BytewiseString) -> Bool {
        lhs.value.utf8.elementsEqual(rhs.value.utf8)
    }

    func hash(into hasher: inout Hasher) {
        for byte in value.utf8 { hasher.combine(byte) }
        hasher.combine(0xFF as UInt8)
    }
}

/// A domain and key, compared byte for byte (Swift's `String` equality would merge
/// canonically equivalent keys, which SQLite keeps apart).
struct PendingKey: Hashable, Sendable {
    let domain: Domain
    let key: String

    static func == (lhs: PendingKey, rhs: PendingKey) -> Bool {
        lhs.domain == rhs.domain && lhs.key.utf8.elementsEqual(rhs.key.utf8)
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(domain)
        for byte in key.utf8 { hasher.combine(byte) }
    }

    static func precedes(_ lhs: PendingKey, _ rhs: PendingKey) -> Bool {
        if lhs.domain != rhs.domain { return lhs.domain < rhs.domain }
        return lhs.key.utf8.lexicographicallyPrecedes(rhs.key.utf8)
    }
}

/// A change waiting to be written. Later changes of one key replace or absorb earlier ones.
enum PendingChange: Sendable, Equatable {
    /// Store this compact JSON.
    case set(String)
    /// Remove the key.
    case remove
    /// Add `delta` to the stored integer (a missing key counts as 0). `visible` is the value
    /// readers see until the flush, computed when the increment was queued.
    case increment(delta: Int64, visible: String)

    /// This (newer) change on top of `older`.
    func composed(onto older: PendingChange?) -> PendingChange {
        guard case .increment(let delta, let visible) = self, let older else { return self }
        switch older {
        case .set, .remove: return .set(visible)
        case .increment(let olderDelta, _):
            let (sum, overflow) = olderDelta.addingReportingOverflow(delta)
            return overflow ? .set(visible) : .increment(delta: sum, visible: visible)
        }
    }

    /// The JSON readers see, or nil when the key reads as removed.
    var visibleJSON: String? {
        switch self {
        case .set(let json): json
        case .remove: nil
        case .increment(_, let visible): visible
        }
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
}

/// The debounce queue: writes land in an in-memory overlay at once and are written together,
/// in one transaction per database, one window after the first of them.
final class WriteQueue: Sendable {
    private struct State {
        var pending: [PendingKey: PendingChange] = [:]
        var inFlight: [PendingKey: PendingChange] = [:]
        var timerArmed = false
        var marker = 0
        var lastError: PrefsError?
    }

    let window: Duration
    private let state = Mutex(State())
    /// Serializes flushes: one batch at a time, in order.
    private let flushLock = Mutex(())
    private let apply: @Sendable ([(PendingKey, PendingChange)]) throws -> Void
    private let onFlush: (@Sendable (FlushReport) -> Void)?

    init(
        window: Duration, apply: @escaping @Sendable ([(PendingKey, PendingChange)]) throws -> Void,
        onFlush: (@Sendable (FlushReport) -> Void)?
    ) {
        self.window = window
        self.apply = apply
        self.onFlush = onFlush
    }

    /// Queues a change, composing it with what is pending for the key; starts the timer.
    func enqueue(_ key: PendingKey, _ change: PendingChange) {
        let arm = state.withLock { state -> Bool in
            state.pending[key] = change.composed(onto: state.pending[key] ?? state.inFlight[key])
            if state.timerArmed { return false }
            state.timerArmed = true
            return true
        }
        if arm { armTimer() }
    }

    /// The queued change for a key (pending, else being written), if any.
    func overlay(_ key: PendingKey) -> PendingChange? {
        state.withLock { $0.pending[key] ?? $0.inFlight[key] }
    }

    /// Every queued change of one domain (or all), pending over in-flight.
    func overlay(domain: Domain?) -> [PendingKey: PendingChange] {
        state.withLock { state in
            var result: [PendingKey: PendingChange] = [:]
            for (key, change) in state.inFlight where domain == nil || key.domain == domain { result[key] = change }
            for (key, change) in state.pending where domain == nil || key.domain == domain { result[key] = change }
            return result
        }
    }

    var pendingCount: Int { state.withLock { $0.pending.count + $0.inFlight.count } }

    var lastError: PrefsError? { state.withLock { $0.lastError } }

    func setMarker(_ marker: Int) {
        state.withLock { $0.marker = marker }
    }

    private func armTimer() {
        let nanoseconds = max(window.components.seconds * 1_000_000_000 + window.components.attoseconds / 1_000_000_000, 1_000_000)
        DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + .nanoseconds(Int(nanoseconds))) {
            _ = try? self.flush()
        }
    }

    /// Writes everything pending now, in one transaction per database, and returns when it is
    /// committed. Writes queued meanwhile go into the next batch. On failure the batch is put
    /// back under newer writes and retried one window later.
    @discardableResult
    func flush() throws -> FlushReport {
        try flushLock.withLock { _ in
            let (batch, marker) = state.withLock { state -> ([PendingKey: PendingChange], Int) in
                state.timerArmed = false
                state.inFlight = state.pending
                state.pending = [:]
                return (state.inFlight, state.marker)
            }
            if batch.isEmpty {
                let report = FlushReport(changes: 0, marker: marker, error: nil)
                return report
            }
            do {
                try apply(batch.sorted { PendingKey.precedes($0.key, $1.key) }.map { ($0.key, $0.value) })
            } catch {
                var committed = Set<PendingKey>()
                var failure = (error as? PrefsError) ?? PrefsError(.cannotWrite, "\(error)")
                if let partial = error as? KeyValueStack.PartialFlushFailure {
                    committed = partial.committed
                    failure = partial.error
                }
                let rearm = state.withLock { state -> Bool in
                    var merged = state.inFlight.filter { !committed.contains($0.key) }
                    for (key, newer) in state.pending { merged[key] = newer.composed(onto: merged[key]) }
                    state.pending = merged
                    state.inFlight = [:]
                    state.lastError = failure
                    if state.timerArmed { return false }
                    state.timerArmed = true
                    return true
                }
                if rearm { armTimer() }
                onFlush?(FlushReport(changes: 0, marker: marker, error: failure))
                throw failure
            }
            state.withLock { state in
                state.inFlight = [:]
                state.lastError = nil
            }
            let report = FlushReport(changes: batch.count, marker: marker, error: nil)
            onFlush?(report)
            return report
        }
    }
}
