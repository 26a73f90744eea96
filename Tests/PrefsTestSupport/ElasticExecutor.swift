import Foundation

/// A task executor that runs each job on a thread of its own: an idle one if there is one,
/// else a new one (idle threads wait for the next job and are kept for the life of the process).
/// A test that blocks its thread while a child process runs, or sleeps, holds one of these
/// rather than one of the cooperative pool's threads, of which there is one per core: on two
/// cores, two such tests used to stop every other test of the run. Child tasks inherit the
/// preference, so tasks a test starts that wait for each other still each get a thread.
public final class ElasticExecutor: TaskExecutor, @unchecked Sendable {
    /// The executor the test suites share.
    public static let shared = ElasticExecutor()

    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var idle = 0
    private var running: Set<pthread_t> = []

    /// An executor with no thread yet.
    public init() {}

    /// Whether the calling thread is one of this executor's (`Thread.current.name` does not
    /// tell on Linux: it names a dispatch thread).
    public var isCurrent: Bool {
        condition.lock()
        defer { condition.unlock() }
        return running.contains(pthread_self())
    }

    /// Runs `job` on an idle thread of this executor, or on a new one when none is idle.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        let start = idle < jobs.count
        if !start { condition.signal() }
        condition.unlock()
        if start {
            let thread = Thread { [self] in run() }
            thread.stackSize = 8 << 20  // as a main thread's: some tests recurse deeply
            thread.start()
        }
    }

    private func run() {
        condition.lock()
        running.insert(pthread_self())
        while true {
            while jobs.isEmpty {
                idle += 1
                condition.wait()
                idle -= 1
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
            condition.lock()
        }
    }
}
