import Foundation
import PrefsCore
import PrefsTestSupport
import Testing

/// Sync while the server goes away: stopped, stopped in the middle of a push, frozen
/// (SIGSTOP), restarted under a watcher. These tests stop or freeze their server, so they
/// have one of their own (``TestPostgres/outages``) and run one at a time, while the other
/// sync tests run in parallel on the shared one.
@Suite(
    .serialized, .tags(.postgres),
    .enabled(if: TestPostgres.isAvailable, "PostgreSQL is not installed (initdb, pg_ctl and psql; apt-get install postgresql)"),
    .timeLimit(.minutes(10)), .ownThreads)
struct SyncOutageTests: SyncFixture {
    let server: TestPostgres
    let database: String
    let url: String

    init() throws {
        server = try TestPostgres.outages.get()
        (database, url) = try server.createDatabase()
    }

    @Test func serverDownThenUpLosesNothing() throws {
        let a = try syncedStore()
        let b = try syncedStore()
        try a.syncInProcess()
        try a.runOK(["set", "default", "one", "1"])
        try a.runOK(["set", "default", "two", "2"])
        try server.stop()
        defer { try? server.start() }
        let failed = try a.syncFailure()
        #expect(failed.exitCode == 7 && failed.message.hasSuffix("2 operations pending, local data kept"), "\(failed)")
        #expect(failed.message.contains("Connection refused"), "\(failed)")  // libpq's words, as psql prints them
        // Every other command works offline and keeps recording.
        #expect(try a.runOK(["get", "default", "one"]).stdout == "1\n")
        try a.runOK(["set", "default", "three", "3"])
        #expect(try a.runOK(["list", "default"]).stdout == "one\t1\nthree\t3\ntwo\t2\n")
        let status = try a.syncStatus()
        #expect(status.stdout.contains("pending\t3\n") && status.stdout.contains("Connection refused"), "\(status)")
        let again = try a.syncFailure(timeout: .seconds(2))
        #expect(again.exitCode == 7 && again.message.contains("3 operations pending"), "\(again)")
        try server.start()
        #expect(try a.syncInProcess().counts == SyncCounts(pulled: 0, applied: 0, pushed: 3, pending: 0))
        #expect(try b.syncInProcess().counts == SyncCounts(pulled: 3, applied: 3, pushed: 0, pending: 0))
        #expect(try export(a) == export(b))
        #expect(!(try a.syncStatus().stdout.contains("Connection refused")))
    }

    @Test func aServerThatDoesNotAnswerTimesOut() throws {
        let a = try syncedStore()
        try a.runOK(["set", "default", "k", "1"])
        // A stopped postmaster still accepts TCP connections (the kernel's backlog) but never answers.
        let pidText = try String(contentsOfFile: server.data + "/postmaster.pid", encoding: .utf8)
        let pid = try #require(pidText.split(separator: "\n").first.flatMap { pid_t($0) })
        kill(pid, SIGSTOP)
        let stuck = #expect(throws: PrefsError.self) { try a.syncInProcess(timeout: .seconds(1)) }
        kill(pid, SIGCONT)
        // The connect timeout or the whole sync's deadline, whichever fires first.
        #expect(
            stuck?.exitCode == 7 && stuck?.message.hasSuffix("1 operation pending, local data kept") == true, "\(String(describing: stuck))"
        )
        #expect(stuck?.message.contains("timed out") == true, "\(String(describing: stuck))")
        #expect(try a.syncInProcess().counts == SyncCounts(pulled: 0, applied: 0, pushed: 1, pending: 0))
    }

    @Test func serverStoppedMidSyncRetryCompletesWithNoDuplicateAndNoLoss() throws {
        let a = try syncedStore()
        let b = try syncedStore()
        _ = try sync(a)  // creates the remote schema
        let operations = (0..<50).map { #"{"op":"set","domain":"default","key":"k\#($0)","value":\#($0)}"# }
        try a.runOK(["apply", "-"], stdin: "[" + operations.joined(separator: ",") + "]")
        // Hold a lock that the push's state update needs: the push inserts its operations,
        // then waits inside its transaction.
        let (pushing, errors, holder, input) = try syncWaitingOnTheStateLock(a)
        defer { try? input.close() }  // the session's input stays open until the test ends
        #expect(try server.psql("SELECT count(*) FROM prefs_ops", database: database) == "0\n")  // not committed yet
        try server.stop()
        defer { try? server.start() }
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        pushing.waitUntilExit()
        holder.waitUntilExit()
        #expect(pushing.terminationStatus == 7, "\(stderr)")
        #expect(stderr.hasPrefix("prefs: sync: ") && stderr.hasSuffix("50 operations pending, local data kept\n"), "\(stderr)")
        #expect(try pending(a).count == 50)

        try server.start()
        #expect(try server.psql("SELECT count(*) FROM prefs_ops", database: database) == "0\n")  // rolled back
        // A copy of the store from before the retry: as if the retry's commit reached the
        // server but the store never heard of it.
        let copy = a.root + "/before-retry.db"
        try a.runOK(["backup", copy])
        #expect(try sync(a).stdout == "pulled 0 (applied 0), pushed 50, pending 0\n")
        try FileManager.default.removeItem(atPath: a.store)
        try FileManager.default.copyItem(atPath: copy, toPath: a.store)
        #expect(try pending(a).count == 50)
        #expect(try sync(a).stdout == "pulled 0 (applied 0), pushed 50, pending 0\n")  // pushed again: harmless
        #expect(try server.psql("SELECT count(*), count(DISTINCT op_id) FROM prefs_ops", database: database) == "50|50\n")
        #expect(try sync(b).stdout == "pulled 50 (applied 50), pushed 0, pending 0\n")
        #expect(try export(a) == export(b))
        #expect(try b.runOK(["list", "default", "--keys-only"]).stdout.split(separator: "\n").count == 50)
    }

    @Test func watchPullsWithinASecondOfAnotherStoresPushAndSurvivesARestart() throws {
        let a = try syncedStore()
        let b = try syncedStore()
        try a.syncInProcess()
        // A fallback far away: only the notification can bring the change.
        let reports = b.root + "/watch.stdout"
        let watcher = b.process(["sync", "--watch", "3600", "--json"])
        watcher.standardOutput = try SyncTests.emptyFile(reports)
        watcher.standardError = FileHandle.nullDevice
        try watcher.run()
        defer { if watcher.isRunning { watcher.terminate() } }
        try SyncTests.waitForReports(reports, count: 1)  // listening: its first sync follows the LISTEN
        func waitFor(_ value: String, seconds: Double) throws -> Double? {
            let start = Date()
            while Date().timeIntervalSince(start) < seconds {
                if try b.runOK(["get", "default", "pushed", "--default", "none"]).stdout == value + "\n" {
                    return Date().timeIntervalSince(start)
                }
                usleep(50_000)
            }
            return nil
        }
        try a.runOK(["set", "default", "pushed", "1"])
        try a.syncInProcess()
        let first = try waitFor("1", seconds: 5)
        #expect(first != nil && first ?? 99 < 2, "seen after \(String(describing: first)) s")

        // The server goes away and comes back: the watcher reconnects (backoff) and listens again.
        let before = try SyncTests.reports(reports)
        try server.stop()
        usleep(1_500_000)  // the watcher sees the connection go (no event to wait for: it only backs off)
        try server.start()
        try SyncTests.waitForReports(reports, count: before + 1, within: 40)  // reconnected: it listens, then syncs
        try a.runOK(["set", "default", "pushed", "2"])
        try a.syncInProcess()
        let second = try waitFor("2", seconds: 10)
        #expect(second != nil, "not seen after a restart")
        watcher.terminate()
        watcher.waitUntilExit()
        #expect(watcher.terminationStatus == 0)
    }
}
