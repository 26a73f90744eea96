import Foundation
import PrefsTestSupport
import Testing

/// The `.ownThreads` trait (``OwnThreadsTrait``): a test's body runs on a thread of its own, and
/// tests (or their child tasks) that block do not wait for the cooperative pool, which has one
/// thread per core.
@Suite("own threads", .timeLimit(.minutes(1)), .ownThreads)
struct OwnThreadsTests {
    @Test func aTestRunsOnAThreadOfTheElasticExecutor() {
        #expect(ElasticExecutor.shared.isCurrent)
    }

    @Test func anAsyncTestRunsOnAThreadOfTheElasticExecutor() async {
        #expect(Self.onElasticThread())
        await Task.yield()
        #expect(Self.onElasticThread(), "after a suspension too")
    }

    static func onElasticThread() -> Bool { ElasticExecutor.shared.isCurrent }

    /// More child tasks than the machine has cores each block until all of them are blocked at
    /// once: on the cooperative pool only one per core could be, and they would wait out the
    /// 20 s.
    @Test func moreBlockedTasksThanCoresRunAtOnce() async {
        let count = ProcessInfo.processInfo.activeProcessorCount + 2
        let arrivals = DispatchGroup()
        for _ in 0..<count { arrivals.enter() }
        let allMet = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<count {
                group.addTask { Self.arriveAndWait(arrivals) }
            }
            return await group.allSatisfy { $0 }
        }
        #expect(allMet, "\(count) tasks were not blocked at the same time")
    }

    /// Says this task arrived, then blocks its thread until every task did (true) or 20 s
    /// passed (false).
    static func arriveAndWait(_ arrivals: DispatchGroup) -> Bool {
        arrivals.leave()
        return arrivals.wait(timeout: .now() + 20) == .success
    }
}
