import Foundation
import PrefsCore
import Testing

/// SQLite's "How To Corrupt An SQLite Database File", walked for what can apply to prefs:
/// each item either cannot happen through prefs or is refused with a clear error.
/// (Locks cancelled by a close of another descriptor: `LifecycleTests`; files another user
/// can write: `LocalUserTests`; a rogue overwrite of pages: `TortureTests`.)
/// The commands run in process; a `batch` in a process of its own where another process
/// writing at the same time is the point.
@Suite("how to corrupt a store", .timeLimit(.minutes(5)), .ownThreads)
struct CorruptionGuideTests {
    /// 2.4 Multiple links to the same file: SQLite names the WAL after the path, so two hard
    /// links would each get a WAL of their own.
    @Test func aStoreWithTwoHardLinksIsRefused() throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["set", "user", "k", "v"])
        let link = box.root + "/link.db"
        #expect(Glibc.link(box.store, link) == 0)
        let before = try box.storeSnapshot()
        for arguments in [["get", "user", "k"], ["set", "user", "k", "w"]] {
            expectFailure(try box.runFailing(arguments, status: 3), 3, contains: "it has 2 hard links")
            expectFailure(try box.runFailing(["--store", link] + arguments, status: 3, store: false), 3, contains: "it has 2 hard links")
        }
        #expect(try box.storeSnapshot() == before)
        #expect(unlink(link) == 0)
        #expect(try box.runOK(["get", "user", "k"]).stdout == "v\n")
    }

    /// A symbolic link is fine: SQLite resolves it, so both names share one WAL.
    @Test func aStoreReachedThroughASymbolicLinkAndItsPathSharesOneWal() throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["set", "user", "seed", "0"])
        let link = box.root + "/link.db"
        #expect(symlink(box.store, link) == 0)
        let batch = try Running(["--store", link, "batch", "--window", "5ms"], environment: box.environment())
        for index in 0..<20 {
            batch.write("set user viaLink\(index) \(index)\n")
            let direct = try box.runOK(["set", "user", "direct\(index)", "\(index)"])
            #expect(direct.status == 0, "\(direct)")
        }
        #expect(batch.waitForLines(1))
        // While the batch holds the store open: one WAL, named after the real file.
        #expect(FileManager.default.fileExists(atPath: box.store + "-wal"))
        #expect(!FileManager.default.fileExists(atPath: link + "-wal"), "no second WAL named after the link")
        let finished = batch.finish()
        #expect(finished.status == 0, "\(finished)")
        let listed = try box.runOK(["--store", link, "list", "user", "--keys-only"], store: false)
        #expect(listed.stdout.split(separator: "\n").count == 41, "\(listed)")
    }

    /// 1.3/1.4 A WAL separated from its database, a live store copied without its WAL: the
    /// store is the file and its `-wal` together (prefs exits without a checkpoint, which would
    /// cost every `set` another fsync). The file alone is still a consistent, readable store
    /// holding an older state; `prefs backup` copies everything acknowledged.
    @Test func theFileAloneIsConsistentAndABackupIsComplete() throws {
        let box = try Sandbox(inProcess: true)
        for index in 0..<30 {
            try box.runOK(["set", "user", "k\(index)", "\(index)"])
        }
        // Another connection keeps the store open (as a running writer does), so recent
        // commits are only in the -wal when it is copied.
        let holder = try DatabaseQueue(path: box.store)
        let batch = try box.runOK(
            ["batch", "--window", "5ms"], stdin: (30..<60).map { "set user k\($0) \($0)" }.joined(separator: "\n") + "\n")
        #expect(batch.stdout.contains(#""through":30"#), "\(batch)")
        let copy = box.root + "/copy.db"
        try FileManager.default.copyItem(atPath: box.store, toPath: copy)
        try holder.close()
        #expect(chmod(copy, 0o600) == 0)
        let listed = try box.runOK(["--store", copy, "list", "user", "--keys-only"], store: false)
        #expect(listed.status == 0 && listed.stdout.split(separator: "\n").count <= 60, "\(listed)")
        let integrity = try DatabaseQueue(path: copy).read { try String.fetchAll($0, sql: "PRAGMA integrity_check") }
        #expect(integrity == ["ok"])
        let backup = box.root + "/backup.db"
        try box.runOK(["backup", backup])
        let restored = try box.runOK(["--store", backup, "list", "user", "--keys-only"], store: false)
        #expect(restored.stdout.split(separator: "\n").count == 60, "\(restored)")
    }

    /// A `-wal` left behind by a deleted store is not replayed into a new store of that name.
    @Test func aWalWithoutItsStoreIsRefused() throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["set", "user", "k", "v"])
        // Keep a WAL with content: another connection holds the store open (as a writer in the
        // middle of a batch does) when the store goes away.
        let holder = try DatabaseQueue(path: box.store)
        try box.runOK(["set", "user", "other", "1"])
        let savedWal = box.root + "/saved-wal"
        #expect(try FileManager.default.copyItem(atPath: box.store + "-wal", toPath: savedWal) == ())
        let saved = (try FileManager.default.attributesOfItem(atPath: savedWal)[.size] as? Int) ?? 0
        #expect(saved > 32, "the -wal holds a commit: \(saved) bytes")
        try holder.close()
        #expect(unlink(box.store) == 0)
        unlink(box.store + "-wal")
        unlink(box.store + "-shm")
        try FileManager.default.copyItem(atPath: savedWal, toPath: box.store + "-wal")
        let result = try box.runFailing(["set", "user", "fresh", "1"], status: 3)
        expectFailure(result, 3, contains: "-wal exists without its store")
        #expect(!FileManager.default.fileExists(atPath: box.store), "no store was created over the stray WAL")
    }

    /// 1.2 Backup while transactions are active: `prefs backup` copies a consistent snapshot
    /// holding every write acknowledged before it started, while a writer goes on.
    @Test func aBackupDuringWritesHoldsEverythingAcknowledged() throws {
        let box = try Sandbox(inProcess: true)
        let batch = try Running(["--store", box.store, "batch", "--window", "5ms"], environment: box.environment())
        for index in 0..<200 { batch.write("set user k\(index) \(index)\n") }
        #expect(batch.waitForLines(1))
        let through = batch.lines.count
        _ = through
        // Wait until all 200 lines are acknowledged, then back up while more arrive.
        var acknowledged = 0
        let deadline = Date().addingTimeInterval(20)
        while acknowledged < 200 && Date() < deadline {
            usleep(10_000)
            acknowledged = batch.lastThrough()
        }
        #expect(acknowledged == 200)
        for index in 200..<400 { batch.write("set user k\(index) \(index)\n") }
        let backup = box.root + "/backup.db"
        let result = try box.runOK(["backup", backup])
        #expect(result.status == 0, "\(result)")
        #expect(batch.finish().status == 0)
        let integrity = try DatabaseQueue(path: backup).read { try String.fetchAll($0, sql: "PRAGMA integrity_check") }
        #expect(integrity == ["ok"])
        let count = try DatabaseQueue(path: backup).read { try Int.fetchOne($0, sql: "SELECT count(*) FROM kv_user") ?? 0 }
        #expect(count >= 200, "every line acknowledged before the backup is in it (\(count))")
    }
}

extension Running {
    /// The highest `"through":N` a `batch` printed so far.
    func lastThrough() -> Int {
        lines.snapshot().compactMap { line -> Int? in
            guard let range = line.range(of: "\"through\":") else { return nil }
            return Int(line[range.upperBound...].prefix { $0.isNumber })
        }.max() ?? 0
    }
}
