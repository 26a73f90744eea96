import Foundation

/// A task executor that runs each job on a thread of its own: an idle one if there is one,
/// else a new one (idle threads wait for the next job and are kept for the life of the process).
/// A test that blocks its thread while a child process runs, or sleeps, holds one of these
/// rather than one of the cooperative pool's threads, of which there is one per core: on two
/// cores, two such tests used to stop every other test of the run. Child tasks inherit the
/// preference, so tasks a test starts that wait for each other still each get a thread.
public final class ElasticExecutor: TaskExecutor, @unchecked Sendable {
    /// The executor the test suites share.
    public static let shared = ElasticExecutor(name: "prefs-test")

    private let name: String
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var idle = 0
    private var threads = 0

    /// An executor whose threads are called `name`.
    public init(name: String) {
        self.name = name
    }

    /// How many threads it has started so far (they are never ended).
    public var threadCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return threads
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        let start = idle < jobs.count
        if start { threads += 1 } else { condition.signal() }
        condition.unlock()
        if start {
            let thread = Thread { [self] in run() }
            thread.name = name
            thread.stackSize = 8 << 20  // as a main thread's: some tests recurse deeply
            thread.start()
        }
    }

    private func run() {
        condition.lock()
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
