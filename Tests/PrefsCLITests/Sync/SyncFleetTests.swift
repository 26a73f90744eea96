import Foundation
import PrefsSync
import PrefsTestSupport
import Testing

/// Sync at fleet scale (issue 22): libpq connection strings (unix socket, service file,
/// several hosts), the snapshot, the bounded log, the watch that listens. Part of
/// ``SyncTests`` (the watch across a server restart is in ``SyncOutageTests``).
extension SyncTests {
    /// An empty file for a watcher's standard output, opened for writing.
    static func emptyFile(_ path: String) throws -> FileHandle {
        try #require(FileManager.default.createFile(atPath: path, contents: nil), "cannot create \(path)")
        return try FileHandle(forWritingTo: URL(fileURLWithPath: path))
    }

    /// How many reports (one line a sync) a `sync --watch` wrote to `path`.
    static func reports(_ path: String) throws -> Int {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").count
    }

    /// Waits until `sync --watch` wrote `count` reports to `path`: a watcher prints one after
    /// each sync, and syncs first once it listens, so its first report says it is connected.
    static func waitForReports(
        _ path: String, count: Int, within seconds: Double = 20, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while try reports(path) < count && Date() < deadline { usleep(20_000) }
        let written = try reports(path)
        try #require(written >= count, "\(written) of \(count) reports after \(seconds) s", sourceLocation: sourceLocation)
    }

    // MARK: - libpq connection strings

    @Test func aUnixSocketAServiceFileAndASecondHostAllReachTheServer() throws {
        let a = try Sandbox(inProcess: true)
        // The socket directory of the suite's server; libpq takes a host that starts with /.
        try a.runOK(["remote", "set", "postgresql://postgres@/\(database)?host=\(server.root)&port=\(server.port)"])
        try a.runOK(["set", "default", "via", "socket"])
        #expect(try sync(a).stdout == "pulled 0 (applied 0), pushed 1, pending 0\n")

        let b = try Sandbox(inProcess: true)
        let services = b.root + "/pg_service.conf"
        let service = """
            [prefs-test]
            host=127.0.0.1
            port=\(server.port)
            user=postgres
            dbname=\(database)
            """
        try service.write(toFile: services, atomically: true, encoding: .utf8)
        try b.runOK(["remote", "set", "service=prefs-test"])
        #expect(try b.runOK(["remote", "show"]).stdout == "service=prefs-test\n")
        // Without the service file libpq does not know the service.
        let unknown = try b.runFailing(["sync"], status: 7)
        expectFailure(unknown, 7, contains: "prefs-test")
        let viaService = try b.runOK(["sync"], environment: ["PGSERVICEFILE": services])
        #expect(viaService.status == 0 && viaService.stdout == "pulled 1 (applied 1), pushed 0, pending 0\n", "\(viaService)")
        #expect(try b.runOK(["get", "default", "via"]).stdout == "socket\n")

        // PGSERVICE with an empty URI: the whole set-up comes from the environment.
        let c = try Sandbox(inProcess: true)
        try c.runOK(["remote", "set", "postgresql://"])
        try c.runOK(["set", "default", "from", "env"])
        let viaEnvironment = try c.runOK(["sync"], environment: ["PGSERVICEFILE": services, "PGSERVICE": "prefs-test"])
        #expect(viaEnvironment.status == 0 && viaEnvironment.stdout.hasSuffix("pushed 1, pending 0\n"), "\(viaEnvironment)")

        // Two hosts: the first refuses, libpq goes on to the second (a writable one).
        let d = try Sandbox(inProcess: true)
        try d.runOK([
            "remote", "set", "postgres://postgres@127.0.0.1:1,127.0.0.1:\(server.port)/\(database)?target_session_attrs=read-write",
        ])
        let failover = try d.runOK(["sync"])
        #expect(failover.status == 0 && failover.stdout == "pulled 2 (applied 2), pushed 0, pending 0\n", "\(failover)")
        #expect(try d.runOK(["get", "default", "from"]).stdout == "env\n")
    }

    // MARK: - Snapshot, horizon, compaction

    /// The log's horizon as the server sees it: make every operation so far older than 1 s.
    func ageTheLog() throws {
        try server.psql("UPDATE prefs_ops SET at = at - interval '1 minute'", database: database)
    }

    @Test func aNewStoreLoadsTheSnapshotNotTheLog() throws {
        let a = try syncedStore()
        let operations = (0..<200).map { #"{"op":"set","domain":"default","key":"k\#($0 % 20)","value":\#($0)}"# }
        try a.runOK(["apply", "-"], stdin: "[" + operations.joined(separator: ",") + "]")
        try a.syncInProcess()
        #expect(try server.psql("SELECT count(*) FROM prefs_ops", database: database) == "200\n")
        for round in 0..<5 {
            try a.runOK(["set", "default", "k1", String(round)])
            try a.syncInProcess()
        }
        let b = try syncedStore()
        let loaded = try b.syncInProcess()
        #expect(loaded.pulled == 20 && loaded.applied == 20 && loaded.snapshot, "\(loaded)")
        #expect(try export(a) == export(b))
        // Afterwards it follows the log.
        try a.runOK(["set", "default", "k2", "later"])
        try a.syncInProcess()
        let next = try b.syncInProcess()
        #expect(next.pulled == 1 && next.applied == 1 && !next.snapshot, "\(next)")
    }

    @Test func aStoreOfflinePastTheHorizonReloadsAndKeepsItsPendingWrites() throws {
        let a = try syncedStore()
        let b = try syncedStore()
        try a.runOK(["set", "default", "shared", "1"])
        try a.runOK(["set", "default", "gone", "1"])
        try a.syncInProcess()
        try b.syncInProcess()
        #expect(try b.runOK(["get", "default", "gone"]).stdout == "1\n")
        // b goes offline and writes; a changes, deletes, and the log passes the horizon.
        try b.runOK(["set", "default", "offline", "written"])
        try b.runOK(["set", "default", "shared", "from-b"])
        try a.runOK(["set", "default", "shared", "2"])  // after b's write: a's wins
        try a.runOK(["rm", "default", "gone"])
        try a.runOK(["set", "default", "new", "1"])
        try a.syncInProcess()
        try ageTheLog()
        let compacted = try a.compactRemote(horizonSeconds: 30)
        #expect(
            compacted.operations == 5 && compacted.tombstones == 1 && compacted.horizonSeconds == 30 && compacted.remaining == 0,
            "\(compacted)")
        #expect(try server.psql("SELECT count(*) FROM prefs_ops", database: database) == "0\n")
        #expect(try server.psql("SELECT count(*) FROM prefs_state WHERE key = 'gone'", database: database) == "0\n")
        // b comes back: its cursor is below the compaction point, so it loads the snapshot.
        let back = try b.syncInProcess()
        #expect(back.snapshot && back.pushed == 2, "\(back)")
        expectFailure(try b.runFailing(["get", "default", "gone"], status: 1), 1)  // the delete is not lost with its tombstone
        #expect(try b.runOK(["get", "default", "new"]).stdout == "1\n")
        #expect(try b.runOK(["get", "default", "offline"]).stdout == "written\n")
        try a.syncInProcess()
        #expect(try a.runOK(["get", "default", "offline"]).stdout == "written\n")
        // shared: both wrote it; the later write (a's) wins everywhere.
        #expect(try a.runOK(["get", "default", "shared"]).stdout == "2\n")
        #expect(try b.runOK(["get", "default", "shared"]).stdout == "2\n")
        #expect(try export(a) == export(b))
    }

    @Test func aDeleteOlderThanTheHorizonIsNotResurrected() throws {
        let a = try syncedStore()
        let b = try syncedStore()
        try a.runOK(["set", "default", "k", "v"])
        try a.runOK(["set", "default", "keep", "v"])
        try a.syncInProcess()
        try b.syncInProcess()
        try a.runOK(["rm", "default", "k"])
        try a.syncInProcess()
        try ageTheLog()
        try a.compactRemote(horizonSeconds: 30)
        // Neither b (which still has k), nor a new store, nor a brings it back.
        let c = try syncedStore()
        try c.syncInProcess()
        try b.syncInProcess()
        try a.syncInProcess()
        try b.syncInProcess()
        for box in [a, b, c] {
            expectFailure(try box.runFailing(["get", "default", "k"], status: 1), 1)
            #expect(try box.runOK(["get", "default", "keep"]).stdout == "v\n")
        }
        #expect(try server.psql("SELECT count(*) FROM prefs_state WHERE key = 'k'", database: database) == "0\n")
    }

    @Test func theAutomaticHorizonBoundsTheLog() throws {
        let a = try syncedStore()
        try a.runOK(["set", "default", "k", "0"])
        try a.syncInProcess()
        try a.compactRemote(horizonSeconds: 2)  // stored as the remote's horizon
        for round in 1...3 {
            try a.runOK(["set", "default", "k", String(round)])
            try a.syncInProcess()
        }
        #expect(try server.psql("SELECT horizon_seconds FROM prefs_meta", database: database) == "2\n")
        try ageTheLog()
        try server.psql("UPDATE prefs_meta SET compacted_at = now() - interval '1 hour'", database: database)
        try a.runOK(["set", "default", "k", "last"])
        try a.syncInProcess()  // a push that finds a compaction due runs it
        #expect(try server.psql("SELECT count(*) FROM prefs_ops", database: database) == "1\n")
        let b = try syncedStore()
        try b.syncInProcess()
        #expect(try b.runOK(["get", "default", "k"]).stdout == "last\n")
    }

    @Test func compactionConcurrentWithPushesLosesNothing() throws {
        let stores = try (0..<3).map { _ in try syncedStore() }
        let compactor = try syncedStore()
        try compactor.syncInProcess()
        let failures = LockedList()
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) {
            for _ in 0..<15 {
                do {
                    try self.ageTheLog()
                    try compactor.compactRemote(horizonSeconds: 30)
                } catch {
                    failures.append("\(error)")
                }
            }
        }
        for (index, store) in stores.enumerated() {
            DispatchQueue.global().async(group: group) {
                for round in 0..<6 {
                    do {
                        let operations = (0..<20).map {
                            #"{"op":"set","domain":"default","key":"s\#(index)-\#(round)-\#($0)","value":\#($0)}"#
                        }
                        _ = try store.runOK(["apply", "-"], stdin: "[" + operations.joined(separator: ",") + "]")
                        try store.syncInProcess()
                    } catch {
                        failures.append("\(error)")
                    }
                }
            }
        }
        group.wait()
        #expect(failures.items.isEmpty, "\(failures.items)")
        for store in stores + [compactor] { try store.syncInProcess() }
        for store in stores { try store.syncInProcess() }
        let expected = try export(compactor)
        for store in stores { #expect(try export(store) == expected) }
        #expect(try compactor.runOK(["list", "default", "--keys-only"]).stdout.split(separator: "\n").count == 3 * 6 * 20)
        #expect(try server.psql("SELECT count(*) FROM prefs_state", database: database) == "360\n")
    }

    @Test func aVersion1RemoteSchemaIsMigrated() throws {
        // The tables as prefs 0.x (schema version 1) left them, with one key.
        try server.psql(
            """
            CREATE TABLE prefs_meta (id int PRIMARY KEY CHECK (id = 1), version int NOT NULL);
            CREATE TABLE prefs_ops (seq bigserial PRIMARY KEY, op_id uuid NOT NULL UNIQUE, domain text COLLATE "C" NOT NULL,
                key text COLLATE "C" NOT NULL, value text, expires_at bigint, hlc bigint NOT NULL, node text COLLATE "C" NOT NULL,
                actor text NOT NULL, at timestamptz NOT NULL DEFAULT now());
            CREATE TABLE prefs_state (domain text COLLATE "C" NOT NULL, key text COLLATE "C" NOT NULL, value text, expires_at bigint,
                hlc bigint NOT NULL, node text COLLATE "C" NOT NULL, PRIMARY KEY (domain, key));
            INSERT INTO prefs_meta VALUES (1, 1);
            INSERT INTO prefs_ops (op_id, domain, key, value, hlc, node, actor)
                VALUES (gen_random_uuid(), 'default', 'old', '"v1"', 1000, 'old-node', 'someone');
            INSERT INTO prefs_state (domain, key, value, hlc, node) VALUES ('default', 'old', '"v1"', 1000, 'old-node');
            """, database: database)
        let a = try syncedStore()
        #expect(try a.syncInProcess().counts == SyncCounts(pulled: 1, applied: 1, pushed: 0, pending: 0))
        #expect(try a.runOK(["get", "default", "old"]).stdout == "v1\n")
        #expect(try server.psql("SELECT version FROM prefs_meta", database: database) == "2\n")
        #expect(try server.psql("SELECT seq > 0, actor FROM prefs_state", database: database) == "t|someone\n")
    }

    // MARK: - Watch

    /// A watcher with nothing to do sleeps: the file system wakes it for a local write (and the
    /// server's socket for a push), no timer does. The local write is then pushed.
    @Test func anIdleSyncWatchSleepsAndALocalWriteWakesIt() throws {
        let a = try syncedStore()
        let b = try syncedStore()
        try a.syncInProcess()
        let reports = a.root + "/watch.stdout"
        let watcher = a.process(["sync", "--watch", "3600", "--json"], environment: ["PREFS_WATCH": "inotify"])
        watcher.standardOutput = try Self.emptyFile(reports)
        watcher.standardError = FileHandle.nullDevice
        try watcher.run()
        defer { if watcher.isRunning { watcher.terminate() } }
        try Self.waitForReports(reports, count: 1)  // connected and synced
        usleep(500_000)  // the wake-ups its own sync's commit caused are over
        let pid = watcher.processIdentifier
        let before = WatchWakeupTests.wakeUps(pid)
        usleep(2_000_000)
        let idle = WatchWakeupTests.wakeUps(pid) - before
        // A watcher looking every 200 ms wakes about 10 times in 2 s.
        #expect(idle <= 3, "\(idle) wake-ups in 2 s with nothing to do")
        try a.runOK(["set", "default", "local", "1"])
        var seen = false
        let deadline = Date().addingTimeInterval(10)
        while !seen && Date() < deadline {
            try b.syncInProcess()
            seen = try b.runOK(["get", "default", "local", "--default", "none"]).stdout == "1\n"
            if !seen { usleep(100_000) }
        }
        #expect(seen, "the local write was pushed")
        watcher.terminate()
        watcher.waitUntilExit()
        #expect(watcher.terminationStatus == 0)
    }

    /// Whether `box`, syncing every 100 ms, reads `value` for default/`key` within `seconds`.
    func seen(by box: Sandbox, _ key: String, _ value: String, within seconds: Double) throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            try box.syncInProcess()
            if try box.runOK(["get", "default", key, "--default", "none"]).stdout == value + "\n" { return true }
            usleep(100_000)
        }
        return false
    }

    /// The store file replaced by a rename under a running watcher (`cp s.db new.db;
    /// mv new.db s.db`, twice): the watcher says so once on stderr each time and syncs the
    /// file now at the path (its pending writes reach the remote), never the old one.
    @Test(arguments: ["inotify", "poll"])
    func aSyncWatchFollowsAStoreFileReplacedByRename(mechanism: String) throws {
        let a = try syncedStore()
        let b = try syncedStore()
        try a.runOK(["set", "default", "replaced", "0"])
        try a.syncInProcess()
        let errors = a.root + "/watch.stderr"
        try #require(FileManager.default.createFile(atPath: errors, contents: nil))
        let watcher = a.process(["sync", "--watch", "3600"], environment: ["PREFS_WATCH": mechanism])
        let reports = a.root + "/watch.stdout"
        watcher.standardOutput = try Self.emptyFile(reports)
        watcher.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errors))
        try watcher.run()
        defer { if watcher.isRunning { watcher.terminate() } }
        try Self.waitForReports(reports, count: 1)  // connected and synced
        for round in 1...2 {
            let copy = a.root + "/store/new.db"
            try WatchWakeupTests.copyStore(a, to: copy)
            try #require(rename(copy, a.store) == 0, "rename: \(String(cString: strerror(errno)))")
            try a.runOK(["set", "default", "replaced", "\(round)"])
            #expect(try seen(by: b, "replaced", "\(round)", within: 10), "round \(round): the write to the new file was not pushed")
        }
        #expect(watcher.isRunning)
        watcher.terminate()
        watcher.waitUntilExit()
        #expect(watcher.terminationStatus == 0)
        let stderr = try String(contentsOfFile: errors, encoding: .utf8)
        let notes = stderr.split(separator: "\n").filter { $0.contains("\(a.store) was replaced, moved or removed") }
        #expect(notes.count == 2, "\(stderr)")
    }

    /// A store path that is a symbolic link, pointed at another store file under a running
    /// watcher (`ln -sfn round1.db prefs.db`, twice): a rename over the store, so the same note
    /// on stderr each time, and the file the link names now is synced (its pending writes,
    /// made through the link, reach the remote).
    @Test(arguments: ["inotify", "poll"])
    func aSyncWatchFollowsAStoreLinkPointedElsewhere(mechanism: String) throws {
        let a = try syncedStore()
        let b = try syncedStore()
        try a.runOK(["set", "default", "linked", "0"])
        try a.syncInProcess()
        let first = a.root + "/store/first.db"
        try WatchWakeupTests.copyStore(a, to: first)
        try #require(unlink(a.store) == 0 && symlink("first.db", a.store) == 0, "link: \(String(cString: strerror(errno)))")
        let errors = a.root + "/watch.stderr"
        try #require(FileManager.default.createFile(atPath: errors, contents: nil))
        let watcher = a.process(["sync", "--watch", "3600"], environment: ["PREFS_WATCH": mechanism])
        let reports = a.root + "/watch.stdout"
        watcher.standardOutput = try Self.emptyFile(reports)
        watcher.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errors))
        try watcher.run()
        defer { if watcher.isRunning { watcher.terminate() } }
        try Self.waitForReports(reports, count: 1)  // connected and synced
        for round in 1...2 {
            // A copy of the file the link names now, then the link pointed at it.
            try WatchWakeupTests.copyStore(a, to: a.root + "/store/round\(round).db")
            let retargeted = try Sandbox.exec("/bin/ln", ["-sfn", "round\(round).db", a.store], stdin: nil, environment: a.environment())
            try #require(retargeted.status == 0, "\(retargeted)")
            try a.runOK(["set", "default", "linked", "\(round)"])
            #expect(try seen(by: b, "linked", "\(round)", within: 10), "round \(round): the write through the link was not pushed")
        }
        #expect(watcher.isRunning)
        watcher.terminate()
        watcher.waitUntilExit()
        #expect(watcher.terminationStatus == 0)
        let stderr = try String(contentsOfFile: errors, encoding: .utf8)
        let notes = stderr.split(separator: "\n").filter {
            $0.contains("\(a.store) was replaced, moved or removed; syncing the file now at that path")
        }
        #expect(notes.count == 2, "\(stderr)")
    }

    /// The store file replaced by a rename while a sync waits on the server (after it read
    /// the file, before it writes what it pushed): it writes nothing more to the old file and
    /// ends with exit 3 and the reason; the new file's pending write is pushed by the next sync.
    @Test func aStoreFileReplacedDuringASyncIsNotWrittenAfterwards() throws {
        let a = try syncedStore()
        try a.runOK(["set", "default", "during", "0"])
        _ = try sync(a)
        try a.runOK(["set", "default", "during", "1"])
        // Hold a lock that the push's state update needs: the sync waits inside its push.
        let (syncing, errors, holder, input) = try syncWaitingOnTheStateLock(a)
        defer { try? input.close() }  // the session's input stays open until the test ends
        defer { if holder.isRunning { holder.terminate() } }
        let copy = a.root + "/store/new.db"
        try WatchWakeupTests.copyStore(a, to: copy)
        try #require(rename(copy, a.store) == 0, "rename: \(String(cString: strerror(errno)))")
        let ended = try server.psql(
            """
            SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE query LIKE '%pg_sleep(3600)%' AND datname = '\(database)' \
            AND pid <> pg_backend_pid()
            """, database: "postgres")
        #expect(ended == "1\n")
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        syncing.waitUntilExit()
        #expect(syncing.terminationStatus == 3, "\(stderr)")
        let expected =
            "prefs: sync: \(a.store) was replaced, moved or removed during the sync; nothing more was written to it: sync again\n"
        #expect(stderr == expected)
        let again = try sync(a)
        #expect(again.stdout.hasSuffix("pending 0\n"), "\(again)")
        #expect(try server.psql("SELECT value FROM prefs_state WHERE key = 'during'", database: database).contains("1"))
    }

    /// The store file removed (with its -wal and -shm) under a running watcher: nothing is at
    /// the path to follow, so the watch ends with exit 3 and the reason, and creates no
    /// empty store there.
    @Test func aSyncWatchEndsWhenItsStoreFileIsRemoved() throws {
        let a = try syncedStore()
        try a.runOK(["set", "default", "removed", "0"])
        try a.syncInProcess()
        let errors = a.root + "/watch.stderr"
        try #require(FileManager.default.createFile(atPath: errors, contents: nil))
        let watcher = a.process(["sync", "--watch", "3600"], environment: ["PREFS_WATCH": "inotify"])
        let reports = a.root + "/watch.stdout"
        watcher.standardOutput = try Self.emptyFile(reports)
        watcher.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errors))
        try watcher.run()
        defer { if watcher.isRunning { watcher.terminate() } }
        try Self.waitForReports(reports, count: 1)  // connected and synced
        for suffix in ["", "-wal", "-shm"] {
            try #require(unlink(a.store + suffix) == 0 || errno == ENOENT, "unlink\(suffix): \(String(cString: strerror(errno)))")
        }
        let deadline = Date().addingTimeInterval(10)
        while watcher.isRunning && Date() < deadline { usleep(20_000) }
        #expect(!watcher.isRunning, "the watch went on without its store file")
        if watcher.isRunning { watcher.terminate() }
        watcher.waitUntilExit()
        #expect(watcher.terminationStatus == 3)
        let stderr = try String(contentsOfFile: errors, encoding: .utf8)
        let expected = "prefs: sync: \(a.store) was moved or removed while it was synced, and nothing is at that path now\n"
        #expect(stderr == expected, "\(stderr)")
        #expect(!FileManager.default.fileExists(atPath: a.store))
    }
}

/// A list appended to from several threads.
final class LockedList: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [String] = []

    func append(_ item: String) { lock.withLock { list.append(item) } }

    var items: [String] { lock.withLock { list } }
}
