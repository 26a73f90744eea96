import Foundation
import PrefsCore
import Testing

/// The wake-up mechanism of watchers: inotify, not a timer. Each test asks for inotify only
/// (`PREFS_WATCH=inotify`), so a monitor that polled would wake while nothing changes.
@Suite("store change monitor", .timeLimit(.minutes(5)))
struct StoreChangeMonitorTests {
    static let inotifyOnly = ["PREFS_WATCH": "inotify"]

    /// Waits until the monitor's wake-ups after its start (or its last event) are over.
    static func settle(_ monitor: StoreChangeMonitor, sourceLocation: SourceLocation = #_sourceLocation) {
        for _ in 0..<50 where monitor.wait(timeout: .milliseconds(1500)) == .timedOut { return }
        Issue.record("the monitor kept waking while nothing changed", sourceLocation: sourceLocation)
    }

    static func writer(_ store: TemporaryStore) throws -> KeyValueStack {
        try KeyValueStack(path: store.path, options: .init(environment: ["XDG_RUNTIME_DIR": store.directory], actor: "writer"))
    }

    @Test func aCommitOfAnotherConnectionWakesItAndNothingElseDoes() throws {
        let store = try TemporaryStore()
        let first = try Self.writer(store)
        try first.set(.number("1"), in: .user, forKey: "k")
        try first.flushSynchronously()
        let monitor = try StoreChangeMonitor(storePath: store.path, environment: Self.inotifyOnly)
        #expect(monitor.mechanism == .inotify)
        Self.settle(monitor)
        #expect(monitor.wait(timeout: .milliseconds(300)) == .timedOut, "no wake-up while nothing changes")
        // A file next to the store is not the store.
        #expect(FileManager.default.createFile(atPath: store.directory + "/other.txt", contents: Data("x".utf8)))
        #expect(monitor.wait(timeout: .milliseconds(300)) == .timedOut, "another file in the directory is ignored")
        try first.set(.number("2"), in: .user, forKey: "k")
        try first.flushSynchronously()
        #expect(monitor.wait(timeout: .seconds(10)) == .changed)
        Self.settle(monitor)
        #expect(monitor.wait(timeout: .milliseconds(300)) == .timedOut)
    }

    /// The last connection's close checkpoints the WAL and deletes `-wal`; a checkpoint with
    /// TRUNCATE empties it; the next writer makes a new one. Every commit still wakes.
    @Test func commitsWakeItAcrossCheckpointsAndANewWAL() throws {
        let store = try TemporaryStore()
        var writer = try Self.writer(store)
        try writer.set(.number("1"), in: .user, forKey: "k")
        try writer.flushSynchronously()
        let monitor = try StoreChangeMonitor(storePath: store.path, environment: Self.inotifyOnly)
        try writer.close()
        #expect(!FileManager.default.fileExists(atPath: store.path + "-wal"), "closing the last connection removes -wal")
        Self.settle(monitor)
        writer = try Self.writer(store)
        try writer.set(.number("2"), in: .user, forKey: "k")
        try writer.flushSynchronously()
        #expect(monitor.wait(timeout: .seconds(10)) == .changed, "a commit into a new -wal")
        Self.settle(monitor)
        let raw = try DatabaseQueue(path: store.path)
        _ = try raw.writeWithoutTransaction { db in try Row.fetchAll(db, sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        Self.settle(monitor)
        try writer.set(.number("3"), in: .user, forKey: "k")
        try writer.flushSynchronously()
        #expect(monitor.wait(timeout: .seconds(10)) == .changed, "a commit after a truncating checkpoint")
        try raw.close()
        try writer.close()
    }

    /// A store whose directory does not exist yet: the first write makes it, and is seen.
    @Test func aStoreMadeAfterTheMonitorStartedWakesIt() throws {
        let store = try TemporaryStore()
        let path = store.directory + "/later/prefs.db"
        let monitor = try StoreChangeMonitor(storePath: path, environment: Self.inotifyOnly)
        let writer = try KeyValueStack(path: path, options: .init(environment: ["XDG_RUNTIME_DIR": store.directory]))
        try writer.set(.number("1"), in: .user, forKey: "k")
        try writer.flushSynchronously()
        #expect(monitor.wait(timeout: .seconds(10)) == .changed)
        Self.settle(monitor)
        #expect(monitor.wait(timeout: .milliseconds(300)) == .timedOut, "watching the new directory, not polling it")
        try writer.set(.number("2"), in: .user, forKey: "k")
        try writer.flushSynchronously()
        #expect(monitor.wait(timeout: .seconds(10)) == .changed)
    }

    @Test func pollingWakesEveryIntervalAndBadSettingsAreRefused() throws {
        let store = try TemporaryStore()
        let monitor = try StoreChangeMonitor(storePath: store.path, pollInterval: .milliseconds(20), environment: ["PREFS_WATCH": "poll"])
        #expect(monitor.mechanism == .polling)
        #expect(monitor.wait(timeout: .seconds(10)) == .changed)
        #expect(throws: PrefsError.self) { try StoreChangeMonitor(storePath: store.path, environment: ["PREFS_WATCH": "fast"]) }
    }

    @Test func cancellingTheWaitingTaskEndsTheWait() async throws {
        let store = try TemporaryStore()
        let monitor = try StoreChangeMonitor(storePath: store.path, environment: Self.inotifyOnly)
        Self.settle(monitor)
        let task = Task { await monitor.next() }
        try await Task.sleep(for: .milliseconds(50))
        task.cancel()
        #expect(await task.value == .cancelled)
        #expect(await monitor.next(timeout: .milliseconds(1)) != .cancelled, "the cancellation is used up")
    }
}
