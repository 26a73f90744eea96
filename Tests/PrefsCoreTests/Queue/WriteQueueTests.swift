import Foundation
import PrefsCore
import Synchronization
import Testing

/// Collects flush reports from the flushing thread.
final class FlushLog: Sendable {
    private let reports = Mutex<[FlushReport]>([])
    func record(_ report: FlushReport) { reports.withLock { $0.append(report) } }
    var all: [FlushReport] { reports.withLock { $0 } }
}

@Suite("write queue", .timeLimit(.minutes(5)))
struct WriteQueueTests {
    func open(_ store: TemporaryStore, window: Duration = .seconds(60), busyTimeout: TimeInterval = 5, log: FlushLog? = nil) throws
        -> KeyValueStack
    {
        var options = KeyValueStack.Options(busyTimeout: busyTimeout, window: window, environment: ["XDG_RUNTIME_DIR": store.directory])
        if let log {
            options.onFlush = { report in log.record(report) }
        }
        return try KeyValueStack(path: store.path, options: options)
    }

    /// What another process would see: the committed rows only.
    func committed(_ store: TemporaryStore, _ key: String) throws -> (json: String, version: Int64)? {
        guard FileManager.default.fileExists(atPath: store.path) else { return nil }
        return try DatabaseQueue(path: store.path).read { db in
            try Row.fetchOne(db, sql: "SELECT value, version FROM kv_user WHERE key = ?", arguments: [key]).map { (try $0[0], try $0[1]) }
        }
    }

    @Test func coalescesWritesToOneKeyIntoOneRowWrite() throws {
        let store = try TemporaryStore()
        let log = FlushLog()
        let stack = try open(store, log: log)
        for i in 1...10_000 { try stack.set(.number(String(i)), in: .user, forKey: "k") }
        #expect(stack.pendingCount == 1)
        let report = try stack.flushSynchronously()
        #expect(report.changes == 1)
        let row = try committed(store, "k")
        #expect(row?.json == "10000")
        let writes = try DatabaseQueue(path: store.path).read { try Int.fetchOne($0, sql: "SELECT count(*) FROM changelog") }
        #expect(writes == 1, "one row write, not 10,000")
        #expect(log.all.map(\.changes) == [1])
    }

    @Test func readsSeeQueuedWritesBeforeTheyCommit() throws {
        let store = try TemporaryStore()
        let stack = try open(store)
        try stack.set(.string("dark"), in: .user, forKey: "theme")
        try stack.set(.string("x"), in: Domain("fresh"), forKey: "b")
        try stack.set(.string("ram"), in: .memory, forKey: "m")
        #expect(try stack.value(in: .user, forKey: "theme") == .string("dark"))
        #expect(
            try stack.entries().map { "\($0.domain)/\($0.key)=\($0.json)" } == ["fresh/b=\"x\"", "memory/m=\"ram\"", "user/theme=\"dark\""])
        #expect(try stack.domains().contains(Domain("fresh")))
        #expect(try stack.exportJSON([.user]) == "{\"user\":{\"theme\":\"dark\"}}")
        #expect(try committed(store, "theme") == nil, "not committed before the window ends")
        try stack.remove(in: .user, keys: ["theme"])
        #expect(try stack.value(in: .user, forKey: "theme") == nil)
        try stack.set(.string("light"), in: .user, forKey: "theme")
        try stack.flushSynchronously()
        #expect(try committed(store, "theme")?.json == "\"light\"")
    }

    @Test func listingMergesQueuedAndCommittedInKeyOrder() throws {
        let store = try TemporaryStore()
        let stack = try open(store)
        for key in ["a", "c", "e"] { try stack.set(.number("1"), in: .user, forKey: key) }
        try stack.flushSynchronously()
        try stack.set(.number("2"), in: .user, forKey: "b")
        try stack.set(.number("2"), in: .user, forKey: "c")
        try stack.remove(in: .user, keys: ["e"])
        try stack.set(.number("2"), in: .user, forKey: "f")
        let listed = try stack.entries(in: .user).map { "\($0.key)=\($0.json)" }
        #expect(listed == ["a=1", "b=2", "c=2", "f=2"])
        #expect(try stack.entries(in: .user, prefix: "c").map(\.key) == ["c"])
    }

    @Test func theTimerFlushesOneWindowAfterTheFirstWrite() async throws {
        let store = try TemporaryStore()
        let log = FlushLog()
        let stack = try open(store, window: .milliseconds(30), log: log)
        for i in 0..<50 { try stack.set(.number(String(i)), in: .user, forKey: "k\(i % 5)") }
        let deadline = Date().addingTimeInterval(5)
        while try committed(store, "k4") == nil && Date() < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(try committed(store, "k4")?.json == "49")
        #expect(log.all.first?.changes == 5, "one flush wrote the five coalesced keys")
        #expect(stack.pendingCount == 0)
    }

    @Test func observersSeeEventsOnlyAfterCommit() async throws {
        let store = try TemporaryStore()
        let log = FlushLog()
        let stack = try open(store, window: .seconds(3600), log: log)
        try stack.set(.number("1"), in: .user, forKey: "existing")
        try stack.flushSynchronously()
        let events = stack.changes(in: .user)
        let received = Mutex<[ChangeEvent]>([])
        let task = Task {
            for await event in events { received.withLock { $0.append(event) } }
        }
        try stack.set(.number("2"), in: .user, forKey: "existing")
        try stack.set(.number("3"), in: .user, forKey: "new")
        try stack.set(.number("4"), in: .switch, forKey: "other")
        try await Task.sleep(for: .milliseconds(100))
        #expect(received.withLock { $0.isEmpty }, "nothing is delivered before the commit (flushes so far: \(log.all))")
        try await stack.flush()
        try stack.remove(in: .user, keys: ["existing"])
        try await stack.flush()
        let deadline = Date().addingTimeInterval(5)
        while received.withLock({ $0.count < 3 }) && Date() < deadline { try await Task.sleep(for: .milliseconds(10)) }
        let kinds = received.withLock { $0.map { "\($0.kind.rawValue) \($0.key) \($0.json ?? "-") \($0.oldJSON ?? "-")" } }
        #expect(kinds == ["update existing 2 1", "insert new 3 -", "delete existing - 2"])
        try stack.close()
        _ = await task.value
    }

    @Test func aFailedFlushKeepsItsChangesAndSucceedsLater() throws {
        let store = try TemporaryStore()
        let log = FlushLog()
        let stack = try open(store, busyTimeout: 0.05, log: log)
        try stack.set(.string("before"), in: .user, forKey: "k")
        try stack.flushSynchronously()
        let blocker = try DatabaseQueue(path: store.path)
        try blocker.writeWithoutTransaction { db in
            try db.execute(sql: "BEGIN IMMEDIATE")
            try stack.set(.string("after"), in: .user, forKey: "k")
            try stack.increment(in: .user, forKey: "n", by: 5)
            #expect(throws: PrefsError.self) { try stack.flushSynchronously() }
            #expect(stack.lastFlushError?.kind == .cannotWrite)
            #expect(stack.pendingCount == 2, "the failed batch stays pending")
            try stack.increment(in: .user, forKey: "n", by: 2)
            #expect(try stack.value(in: .user, forKey: "k") == .string("after"))
            #expect(try stack.value(in: .user, forKey: "n") == .number("7"))
            try db.execute(sql: "ROLLBACK")
        }
        try stack.flushSynchronously()
        #expect(try committed(store, "k")?.json == "\"after\"")
        #expect(try committed(store, "n")?.json == "7", "the retried increment is applied once")
        #expect(stack.lastFlushError == nil)
        #expect(log.all.contains { $0.error != nil })
    }

    @Test func incrementsFromTwoStacksAddUp() throws {
        let store = try TemporaryStore()
        let first = try open(store)
        let second = try open(store)
        for _ in 0..<10 { try first.increment(in: .user, forKey: "n") }
        for _ in 0..<5 { try second.increment(in: .user, forKey: "n", by: 2) }
        try first.flushSynchronously()
        try second.flushSynchronously()
        #expect(try committed(store, "n")?.json == "20")
        try first.set(.string("text"), in: .user, forKey: "s")
        #expect(throws: PrefsError.self) { try first.increment(in: .user, forKey: "s") }
    }

    @Test func closeAndReleaseDrainTheQueue() throws {
        let store = try TemporaryStore()
        let stack = try open(store)
        try stack.set(.bool(true), in: .user, forKey: "closed")
        try stack.close()
        #expect(try committed(store, "closed")?.json == "true")
        do {
            let released = try open(store)
            try released.set(.bool(true), in: .user, forKey: "released")
        }
        #expect(try committed(store, "released")?.json == "true")
    }

    @Test func manyPendingKeysStartAFlushBeforeTheWindowEnds() async throws {
        let store = try TemporaryStore()
        let log = FlushLog()
        var options = KeyValueStack.Options(window: .seconds(3600), maximumPending: 100, environment: ["XDG_RUNTIME_DIR": store.directory])
        options.onFlush = { report in log.record(report) }
        let stack = try KeyValueStack(path: store.path, options: options)
        for i in 0..<250 { try stack.set(.number(String(i)), in: .user, forKey: "k\(i)") }
        let deadline = Date().addingTimeInterval(5)
        // Each time 100 are pending a flush starts; the one the last 100 started may still be
        // under way when the first has been logged: wait for both, not the first alone.
        while (log.all.reduce(0, { $0 + $1.changes }) < 100 || stack.pendingCount >= 100) && Date() < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(log.all.reduce(0) { $0 + $1.changes } >= 100, "flushes started by size, not by the one-hour window")
        #expect(log.all.allSatisfy { $0.error == nil })
        #expect(try committed(store, "k0")?.json == "0")
        #expect(stack.pendingCount < 100)
    }

    @Test func incrementsQueuedDuringFlushesAreAppliedOnce() throws {
        let store = try TemporaryStore()
        let stack = try open(store, window: .milliseconds(1))
        for _ in 0..<20_000 { try stack.increment(in: .user, forKey: "n") }
        #expect(try stack.value(in: .user, forKey: "n") == .number("20000"))
        try stack.flushSynchronously()
        #expect(try committed(store, "n")?.json == "20000")
    }

    @Test func discardedWritesAreNeverWritten() throws {
        let store = try TemporaryStore()
        let stack = try open(store)
        try stack.set(.string("x"), in: .user, forKey: "dropped")
        #expect(stack.discardPendingWrites() == 1)
        try stack.close()
        #expect(try committed(store, "dropped") == nil)
    }

    @Test func conditionalWritesFlushFirst() throws {
        let store = try TemporaryStore()
        let stack = try open(store)
        try stack.set(.number("1"), in: .user, forKey: "k")
        #expect(try stack.set(.number("2"), in: .user, forKey: "k", if: .value(.number("1"))) > 0)
        #expect(try committed(store, "k")?.json == "2")
    }
}
