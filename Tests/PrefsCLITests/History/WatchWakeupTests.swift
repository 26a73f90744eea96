import Foundation
import PrefsCore
import Testing

/// `prefs watch` is woken by the file system (inotify), not by a timer: it sleeps while
/// nothing changes, and another process's commit wakes it, through checkpoints, a restore
/// and doctor, without its descriptors growing.
@Suite("watch wakes on commits, not on a timer", .timeLimit(.minutes(5)), .ownThreads)
struct WatchWakeupTests {
    /// No poll fallback: a watcher that polled would wake while nothing changes.
    static let inotifyOnly = ["PREFS_WATCH": "inotify"]
    static let hasSQLite3 = FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3")

    /// Voluntary context switches of every thread of `pid`: one per wake-up from a sleep.
    static func wakeUps(_ pid: Int32) -> Int {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        var total = 0
        for task in tasks {
            guard let status = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/status", encoding: .utf8) else { continue }
            for line in status.split(separator: "\n") where line.hasPrefix("voluntary_ctxt_switches:") {
                total += Int(line.split(separator: "\t").last.map(String.init) ?? "") ?? 0
            }
        }
        return total
    }

    static func openDescriptors(_ pid: Int32) -> Int {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []).count
    }

    /// Waits until the watcher printed `line`; false after 10 s.
    static func waitFor(_ line: String, in watch: Running) -> Bool {
        let deadline = Date().addingTimeInterval(10)
        while !watch.lines.snapshot().contains(line) {
            if Date() > deadline { return false }
            usleep(2000)
        }
        return true
    }

    @Test func aWatcherSleepsWhileNothingChangesAndWakesForAnotherProcess() throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["set", "user", "ready", "0"])
        let (watch, _) = try Running.watch(["--store", box.store, "watch", "user"], box: box, environment: Self.inotifyOnly)
        let pid = watch.process.processIdentifier
        Thread.sleep(forTimeInterval: 1.5)  // the wake-ups after its start are over
        let before = Self.wakeUps(pid)
        Thread.sleep(forTimeInterval: 2)
        let idle = Self.wakeUps(pid) - before
        // A watcher polling every 100 ms wakes about 20 times in 2 s.
        #expect(idle <= 3, "\(idle) wake-ups in 2 s while nothing changed")
        try box.runOK(["set", "user", "k", "1"])
        #expect(Self.waitFor("set\tuser\tk\t1", in: watch))
        let result = watch.finish(signal: SIGTERM)
        #expect(result.status == 0 && result.stdout == "set\tuser\tk\t1\n", "\(result)")
    }

    /// The file system fallback: with PREFS_WATCH=poll the watcher reads the log on a timer
    /// (`--once`: it ends with the change it sees).
    @Test func aPollingWatcherStillSeesChanges() throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["set", "user", "ready", "0"])
        let watch = try BackgroundRun.watch(["watch", "user", "--once"], box: box, environment: ["PREFS_WATCH": "poll"])
        try box.runOK(["set", "user", "k", "1"])
        let result = watch.finish(timeout: 10)
        #expect(result.status == 0 && result.stdout == "set\tuser\tk\t1\n", "\(result)")
    }

    @Test func aBadWatchSettingIsAUsageError() throws {
        let box = try Sandbox(inProcess: true)
        // (Within 10 s: a watch that ignored the setting would run for ever.)
        let result = try BackgroundRun.start(["watch"], box: box, environment: ["PREFS_WATCH": "fast"]).finish(timeout: 10)
        expectFailure(result, 2, contains: "PREFS_WATCH")
    }

    /// A checkpoint that truncates the WAL and doctor under a watcher: the changes after each
    /// still reach it, and it opens no more descriptors as they go on. A restore and a change
    /// after it wake it too: the restored log's gap ends it with exit 3, as documented.
    @Test(.enabled(if: hasSQLite3, "needs the sqlite3 shell to checkpoint the store"))
    func changesAfterACheckpointAndDoctorStillArriveAndARestoreEndsTheWatch() throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["set", "user", "a", "0"])
        let backup = box.root + "/backup.db"
        try box.runOK(["backup", backup])
        let (watch, _) = try Running.watch(["--store", box.store, "watch", "user"], box: box, environment: Self.inotifyOnly)
        let pid = watch.process.processIdentifier
        try box.runOK(["set", "user", "a", "1"])
        #expect(Self.waitFor("set\tuser\ta\t1", in: watch))
        let descriptors = Self.openDescriptors(pid)

        // The watcher reads the change log for a moment after each commit (its confirming
        // wake-ups); a TRUNCATE checkpoint then answers busy ("1|…"): try again, as a
        // maintenance job would.
        var checkpoint = try Sandbox.exec(
            "/usr/bin/sqlite3", [box.store, "PRAGMA wal_checkpoint(TRUNCATE)"], stdin: nil, environment: box.environment())
        for _ in 0..<100 where checkpoint.status == 0 && !checkpoint.stdout.hasPrefix("0|") {
            usleep(20_000)
            checkpoint = try Sandbox.exec(
                "/usr/bin/sqlite3", [box.store, "PRAGMA wal_checkpoint(TRUNCATE)"], stdin: nil, environment: box.environment())
        }
        #expect(checkpoint.status == 0 && checkpoint.stdout.hasPrefix("0|"), "\(checkpoint)")
        var info = stat()
        #expect(stat(box.store + "-wal", &info) == 0 && info.st_size == 0, "the checkpoint emptied the WAL")
        try box.runOK(["set", "user", "a", "2"])
        #expect(Self.waitFor("set\tuser\ta\t2", in: watch), "after a truncating checkpoint")

        try box.runOK(["doctor"])
        for value in 3...20 { try box.runOK(["set", "user", "a", "\(value)"]) }
        #expect(Self.waitFor("set\tuser\ta\t20", in: watch), "after doctor")
        #expect(Self.openDescriptors(pid) == descriptors, "the watcher's descriptors do not grow")

        try box.runOK(["restore", backup, "--force"])
        try box.runOK(["set", "user", "a", "21"])
        let deadline = Date().addingTimeInterval(10)
        while watch.process.isRunning && Date() < deadline { usleep(5000) }
        let result = watch.finish(signal: watch.process.isRunning ? SIGTERM : nil)
        #expect(result.status == 3 && result.stderr.contains("were pruned before they were read"), "\(result)")
    }

    /// Ends `watch` once it has exited by itself (or after `seconds`, with SIGTERM, which
    /// ends a watcher still running with exit 0): what it printed and its status.
    static func outcome(of watch: Running, within seconds: Double = 10) -> RunResult {
        let deadline = Date().addingTimeInterval(seconds)
        while watch.process.isRunning && Date() < deadline { usleep(5000) }
        return watch.finish(signal: watch.process.isRunning ? SIGTERM : nil)
    }

    /// Copies the store file as a sync tool or an editor would before renaming the copy
    /// over it.
    static func copyStore(_ box: Sandbox, to copy: String) throws {
        let result = try Sandbox.exec("/bin/cp", [box.store, copy], stdin: nil, environment: box.environment())
        try #require(result.status == 0, "\(result)")
    }

    /// A store replaced by rename (twice) under a watcher: the watcher's connection still
    /// reads the old file, which nobody writes any more, so the watch ends with exit 3 and
    /// says why instead of going silent.
    @Test(arguments: ["inotify", "poll"])
    func aStoreReplacedByRenameEndsTheWatch(mechanism: String) throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["set", "user", "a", "0"])
        let (watch, _) = try Running.watch(["--store", box.store, "watch", "user"], box: box, environment: ["PREFS_WATCH": mechanism])
        try box.runOK(["set", "user", "a", "1"])
        #expect(Self.waitFor("set\tuser\ta\t1", in: watch))
        for round in 2...3 {
            let copy = box.root + "/store/new.db"
            try Self.copyStore(box, to: copy)
            try #require(rename(copy, box.store) == 0, "rename: \(String(cString: strerror(errno)))")
            try box.runOK(["set", "user", "a", "\(round)"])
        }
        let result = Self.outcome(of: watch)
        #expect(result.status == 3, "\(result)")
        #expect(result.stderr.contains("\(box.store) was replaced, moved or removed while it was watched"), "\(result)")
        #expect(result.stdout.hasPrefix("set\tuser\ta\t1\n"), "\(result)")
    }

    /// A store path that is a symbolic link, pointed at another store file (`ln -sfn b.db
    /// link.db`) under a watcher: a rename over the store, so the same end (exit 3, the same
    /// message) rather than a watch of the old file that nobody writes through the link.
    @Test(arguments: ["inotify", "poll"])
    func aStoreLinkPointedElsewhereEndsTheWatch(mechanism: String) throws {
        let box = try Sandbox(inProcess: true)
        let directory = box.root + "/store"
        let link = directory + "/link.db"
        try box.runOK(["--store", directory + "/a.db", "set", "user", "a", "0"], store: false)
        try box.runOK(["--store", directory + "/b.db", "set", "user", "b", "0"], store: false)
        try #require(symlink("a.db", link) == 0, "symlink: \(String(cString: strerror(errno)))")
        let (watch, _) = try Running.watch(["--store", link, "watch", "user"], box: box, environment: ["PREFS_WATCH": mechanism])
        try box.runOK(["--store", link, "set", "user", "a", "1"], store: false)
        #expect(Self.waitFor("set\tuser\ta\t1", in: watch))
        let retargeted = try Sandbox.exec("/bin/ln", ["-sfn", "b.db", link], stdin: nil, environment: box.environment())
        try #require(retargeted.status == 0, "\(retargeted)")
        try box.runOK(["--store", link, "set", "user", "b", "1"], store: false)
        let result = Self.outcome(of: watch)
        #expect(result.status == 3, "\(result)")
        #expect(result.stderr.contains("\(link) was replaced, moved or removed while it was watched"), "\(result)")
        #expect(result.stdout == "set\tuser\ta\t1\n", "\(result)")
    }

    /// The store removed with its -wal and -shm, and the store's directory renamed, under a
    /// watcher: exit 3 with the reason, whichever wakes it.
    @Test(arguments: ["inotify", "poll"], [false, true])
    func aStoreRemovedOrItsDirectoryMovedEndsTheWatch(mechanism: String, moveDirectory: Bool) throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["set", "user", "a", "0"])
        let (watch, _) = try Running.watch(["--store", box.store, "watch", "user"], box: box, environment: ["PREFS_WATCH": mechanism])
        try box.runOK(["set", "user", "a", "1"])
        #expect(Self.waitFor("set\tuser\ta\t1", in: watch))
        if moveDirectory {
            let directory = (box.store as NSString).deletingLastPathComponent
            try #require(rename(directory, box.root + "/moved") == 0, "rename: \(String(cString: strerror(errno)))")
        } else {
            for suffix in ["", "-wal", "-shm"] {
                try #require(unlink(box.store + suffix) == 0 || errno == ENOENT, "unlink\(suffix): \(String(cString: strerror(errno)))")
            }
        }
        let result = Self.outcome(of: watch)
        #expect(result.status == 3, "\(result)")
        #expect(result.stderr.contains("\(box.store) was replaced, moved or removed while it was watched"), "\(result)")
        #expect(result.stdout == "set\tuser\ta\t1\n", "\(result)")
    }
}
