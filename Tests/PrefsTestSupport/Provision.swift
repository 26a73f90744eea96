import Foundation
import Synchronization

/// Slow set-up work (a venv filled by pip from PyPI, minutes on a fresh machine) done once, on
/// a thread of its own rather than on Swift's cooperative pool.
///
/// The pool has one thread per core. A `static let` that runs pip blocks the thread that first
/// reads it, and every other reader blocks on the same initializer: on two cores, two such
/// readers stopped the whole test run for 217 seconds, and tests with awaits that had started
/// ran out their time limits waiting for a thread. Here a test's condition trait awaits
/// ``value()`` while the work runs elsewhere, and the pool stays free for the other tests.
public final class Provision<Value: Sendable>: Sendable {
    private enum State {
        case idle
        case running([CheckedContinuation<Value, Never>])
        case done(Value)
    }

    private enum Step {
        case start, wait
        case ready(Value)
    }

    private let work: @Sendable () -> Value
    private let state = Mutex(State.idle)

    public init(_ work: @escaping @Sendable () -> Value) {
        self.work = work
    }

    /// The work's result: started on first call, on a thread of its own; later callers wait for
    /// the same run.
    public func value() async -> Value {
        return await withCheckedContinuation { continuation in
            let step: Step = state.withLock { state in
                switch state {
                case .idle:
                    state = .running([continuation])
                    return .start
                case .running(let waiting):
                    state = .running(waiting + [continuation])
                    return .wait
                case .done(let value):
                    return .ready(value)
                }
            }
            switch step {
            case .start:
                Thread { [self] in
                    let value = work()
                    let waiting = state.withLock { state in
                        defer { state = .done(value) }
                        if case .running(let waiting) = state { return waiting }
                        return []
                    }
                    for continuation in waiting { continuation.resume(returning: value) }
                }.start()
            case .wait:
                break
            case .ready(let value):
                continuation.resume(returning: value)
            }
        }
    }

    /// The result for a synchronous test body whose condition trait already awaited
    /// ``value()``; `nil` when the work has not finished.
    public var finished: Value? {
        state.withLock { state in
            if case .done(let value) = state { return value }
            return nil
        }
    }
}
