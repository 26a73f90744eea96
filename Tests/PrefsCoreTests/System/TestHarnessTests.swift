import Foundation
import PrefsTestSupport
import Synchronization
import Testing

/// The test process's own set-up (Tests/PrefsTestHarness, Tests/PrefsTestSupport/Provision.swift).
@Suite("test process set-up", .timeLimit(.minutes(1)))
struct TestHarnessTests {
    /// Set by the harness's constructor before Swift Testing started, unless the caller chose.
    @Test func parallelTestsAreLimited() throws {
        let width = try #require(ProcessInfo.processInfo.environment["SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH"])
        #expect((Int(width) ?? 0) >= 1, "\(width)")
    }

    /// Every caller gets the one run's result, and the run does not hold a thread of the pool:
    /// with all threads but one blocked until a task releases them, that task still runs.
    @Test func provisionRunsOnceOffThePool() async {
        final class Shared: Sendable {
            let runs = Mutex(0)
            let released = Mutex(false)
        }
        let shared = Shared()
        let provision = Provision<Int> {
            shared.runs.withLock { $0 += 1 }
            // Blocks until a task on the pool says so: with the work on a pool thread and a
            // thread per core all waiting here, that task would never run.
            while !shared.released.withLock({ $0 }) { usleep(1000) }
            return 42
        }
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let values = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<(cores * 4) { group.addTask { await provision.value() } }
            for _ in 0..<(cores - 1) {
                group.addTask {
                    while !shared.released.withLock({ $0 }) { usleep(1000) }
                    return 42
                }
            }
            group.addTask {
                try? await Task.sleep(for: .milliseconds(50))
                shared.released.withLock { $0 = true }
                return await provision.value()
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(values.count == cores * 5 && values.allSatisfy { $0 == 42 })
        #expect(shared.runs.withLock { $0 } == 1)
        #expect(provision.finished == 42)
    }
}
