import Glibc
import NIOPosix
import Synchronization

/// Threads of prefs-serve's own for the serving core's long work (evaluations over
/// ``quickSteps`` steps, the inspector's reads of the store), off Swift's cooperative pool and
/// NIO's event loops: while long evaluations run there, connections are still accepted, read
/// and answered, and quick evaluations are answered where they were read. The threads run at
/// a lower priority (nice 10): the kernel gives the cores to accepting, reading and quick
/// answers first. Each request's evaluation is bounded by its step budget (`--max-steps`); at
/// most ``maximumWaiting`` requests may be queued or running at once, more are refused (nil:
/// the server answers 503).
final class EvaluationPool: Sendable {
    /// The evaluation steps a request may take on the thread that read it; one that needs
    /// more is evaluated again on the pool.
    static let quickSteps = 10_000
    /// The threads.
    static let threads = 16
    /// The most requests queued or running at once.
    static let maximumWaiting = 256

    private let pool: NIOThreadPool
    private let waiting = Atomic<Int>(0)

    init() {
        pool = NIOThreadPool(numberOfThreads: Self.threads)
        pool.start()
    }

    // Its threads end with it (a server made in a test; prefs-serve keeps its one).
    deinit { pool.shutdownGracefully { _ in } }

    /// Runs `body` on a thread of the pool; nil when ``maximumWaiting`` requests are queued or
    /// running already, or the request was cancelled (its client went away) before it ran.
    func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T? {
        let count = waiting.wrappingAdd(1, ordering: .relaxed).newValue
        defer { waiting.wrappingSubtract(1, ordering: .relaxed) }
        guard count <= Self.maximumWaiting else { return nil }
        return try? await pool.runIfActive {
            // On Linux the nice value is a thread's own: 0 is this thread (the same value every time).
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)
            return body()
        }
    }
}
