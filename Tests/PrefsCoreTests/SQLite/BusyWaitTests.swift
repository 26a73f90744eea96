import Foundation
import PrefsCore
import Synchronization
import Testing

/// How a connection waits for another's write lock (issue 41): it tries again about every
/// millisecond until its busy timeout, so a lock let go is taken within milliseconds.
/// `sqlite3_busy_timeout`'s handler slept 1, 2, 5, ... up to 100 ms between tries: a waiter
/// slept through most of the moments the lock was free, and under load one gave up at 5 s.
@Suite("busy wait", .timeLimit(.minutes(5)))
struct BusyWaitTests {
    /// What the waiting thread saw.
    final class Outcome: Sendable {
        let acquired = Mutex<ContinuousClock.Instant?>(nil)
        let failure = Mutex<String?>(nil)
    }

    /// A writer waits while another connection holds the write lock for 250 to 510 ms (a
    /// different time each round), then takes it once it is released. The old handler, by
    /// then sleeping 50 or 100 ms between tries, took it 4 to 93 ms after the release (median
    /// about 48 ms over these rounds); now the median is a millisecond or two.
    @Test func aWaitingWriterTakesTheLockWithinMillisecondsOfItsRelease() throws {
        let store = try TemporaryStore()
        let holder = try DatabaseQueue(path: store.path)
        try holder.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL; CREATE TABLE t (k INTEGER PRIMARY KEY)")
        }
        var configuration = Configuration()
        configuration.busyTimeout = 10
        let waiter = try DatabaseQueue(path: store.path, configuration: configuration)
        var latencies: [Duration] = []
        for round in 0..<8 {
            try holder.writeWithoutTransaction { try $0.execute(sql: "BEGIN IMMEDIATE") }
            let outcome = Outcome()
            let done = DispatchSemaphore(value: 0)
            let thread = Thread {
                do {
                    try waiter.write { db in
                        outcome.acquired.withLock { $0 = ContinuousClock.now }
                        try db.execute(sql: "INSERT INTO t VALUES (?)", arguments: [round])
                    }
                } catch {
                    outcome.failure.withLock { $0 = "\(error)" }
                }
                done.signal()
            }
            thread.start()
            Thread.sleep(forTimeInterval: 0.25 + Double(round) * 0.037)
            #expect(outcome.acquired.withLock { $0 } == nil, "round \(round): the lock was taken while it was held")
            let released = ContinuousClock.now
            try holder.writeWithoutTransaction { try $0.execute(sql: "COMMIT") }
            #expect(done.wait(timeout: .now() + 20) == .success, "round \(round): the waiter did not finish")
            #expect(outcome.failure.withLock { $0 } == nil, "round \(round): \(outcome.failure.withLock { $0 } ?? "")")
            if let acquired = outcome.acquired.withLock({ $0 }) { latencies.append(acquired - released) }
        }
        #expect(try holder.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM t") } == 8)
        let sorted = latencies.sorted()
        #expect(sorted.count == 8)
        let median = sorted.isEmpty ? Duration.seconds(1) : sorted[sorted.count / 2]
        #expect(median < .milliseconds(15), "latency after each release: \(latencies)")
    }
}
