import Foundation

/// A task executor with one thread of its own. Work run with it as the preferred executor
/// (`withTaskExecutorPreference`, `Task(executorPreference:)`, inherited by child tasks and
/// default actors such as `ServiceGroup`) never waits for the cooperative pool, whose threads
/// the tests that run a prefs process block while it runs.
final class ThreadExecutor: TaskExecutor, @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []

    /// Starts the thread (it runs for the life of the process).
    init(name: String) {
        let thread = Thread { [self] in run() }
        thread.name = name
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    private func run() {
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
