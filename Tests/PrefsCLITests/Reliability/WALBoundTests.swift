import Foundation
import PrefsTestSupport
import Testing

/// The store's `-wal` stays bounded however many one-shot commands write to it (issue 29).
@Suite("bounded WAL", .timeLimit(.minutes(20)), .ownThreads)
struct WALBoundTests {
    /// Size of a file in bytes, or nil when it does not exist.
    static func size(_ path: String) -> Int? {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_size) : nil
    }

    /// The bound the guide promises: `PRAGMA journal_size_limit`, 4 MiB.
    static let bound = 4 << 20

    /// A directory for a store that thousands of one-shot commands write in a row: in
    /// `/dev/shm` (Linux's tmpfs) where it is writable, so each command's commit and checkpoint
    /// do not wait for the disk (a third of each `set`'s time on a loaded test machine), else
    /// in `box`. What the test asserts — how large the `-wal` grows, that the last close
    /// removes it — is SQLite's WAL and checkpoint logic, the same on any file system;
    /// durability is not asserted here. The caller removes it.
    static func storeDirectory(_ box: Sandbox) throws -> String {
        guard FileManager.default.isWritableFile(atPath: "/dev/shm") else { return box.root + "/fast" }
        return try makeTemporaryDirectory(prefix: "prefs-wal", in: "/dev/shm")
    }

    /// An sqlite3 holding the store open (it reads its commands from a pipe and keeps its
    /// connection until the pipe closes), so no command's close checkpoints the WAL.
    static func holdOpen(_ box: Sandbox) throws -> Running {
        let holder = try Running([box.store], environment: box.environment(), executable: "/usr/bin/sqlite3")
        holder.write("SELECT count(*) FROM kv_user;\n")
        let deadline = Date().addingTimeInterval(20)
        while size(box.store + "-shm") == nil && Date() < deadline { usleep(5000) }
        guard size(box.store + "-shm") != nil else {
            _ = holder.finish(signal: SIGKILL)
            throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: box.store + "-shm"])
        }
        return holder
    }

    @Test(.tags(.slow), .enabled(if: SlowTests.enabled, SlowTests.reason)) func fiveThousandOneShotSetsLeaveNoWAL() throws {
        let box = try Sandbox()
        let directory = try Self.storeDirectory(box)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = directory + "/prefs.db"
        // One bash runs the 5,000 processes (a Process per set from Swift would be slower).
        let script = """
            for i in $(seq 1 5000); do
                "$PREFS" --store "$STORE" set user "k$((i % 50))" "$i" || exit 1
                if (( i % 1000 == 0 )); then
                    s=$(stat -c %s "$STORE-wal" 2>/dev/null || echo 0)
                    echo "$i $s"
                fi
            done
            """
        let result = try Sandbox.exec(
            "/bin/bash", ["-c", script], stdin: nil, environment: box.environment(["PREFS": Sandbox.binary, "STORE": store]),
            timeout: 900)  // thousands of processes in a row
        #expect(result.status == 0, "\(result)")
        let sizes = result.stdout.split(separator: "\n").map { $0.split(separator: " ") }
        #expect(sizes.count == 5, "\(result)")
        for row in sizes {
            #expect(row.count == 2 && (Int(row[1]) ?? .max) <= Self.bound, "WAL after \(row.first ?? "?") sets: \(row.last ?? "?") bytes")
        }
        // The last command's close checkpointed everything: no -wal is left at all.
        #expect(Self.size(store + "-wal") == nil)
        #expect(try box.runOK(["--store", store, "get", "user", "k0"], store: false).stdout == "5000\n")
        #expect(try box.runOK(["--store", store, "log", "user", "--limit", "1"], store: false).stdout.contains("\tset\tuser\tk0\t"))
    }

    @Test func oneShotWritesCheckpointAndRemoveTheWAL() throws {
        let box = try Sandbox()
        try box.runOK(["set", "user", "theme", "dark"])
        #expect(Self.size(box.store + "-wal") == nil, "the last connection's close checkpoints and removes -wal")
        #expect(Self.size(box.store) ?? 0 > 0)
        try box.runOK(["incr", "user", "n"])
        try box.runOK(["rm", "user", "theme"])
        #expect(Self.size(box.store + "-wal") == nil)
        // A process killed mid-command leaves its WAL; the next one-shot command folds it in.
        let sqlite = try Sandbox.exec(
            "/usr/bin/sqlite3", [box.store, "PRAGMA journal_mode"], stdin: nil, environment: box.environment())
        #expect(sqlite.status == 0 && sqlite.stdout == "wal\n", "\(sqlite)")
        #expect(try box.runOK(["get", "user", "n"]).stdout == "1\n")
    }

    /// What one write adds to the WAL while another connection keeps the store open (so no
    /// close checkpoints it): a set writes its key's page and its log record's page, nothing
    /// else (naming the `expire` op before every set used to dirty `write_context` too); a
    /// removal of a key that is not there writes nothing at all, so it syncs nothing.
    @Test func aWriteAddsOnlyThePagesItChanges() throws {
        let box = try Sandbox()
        try box.runOK(["set", "user", "a", "1"])
        let holder = try Self.holdOpen(box)
        defer { #expect(holder.finish().status == 0) }
        try box.runOK(["set", "user", "b", "2"])
        let frame = 24 + 4096
        let start = try #require(Self.size(box.store + "-wal"), "the holder keeps the WAL")
        for i in 0..<5 {
            try box.runOK(["set", "user", "k\(i)", "\(i)"])
        }
        let afterSets = try #require(Self.size(box.store + "-wal"))
        #expect((afterSets - start) / frame == 10, "five sets added \((afterSets - start) / frame) pages")
        try box.runOK(["rm", "user", "nothing"])
        #expect(Self.size(box.store + "-wal") == afterSets, "removing a missing key wrote to the WAL")
        #expect(try box.runOK(["log", "user", "--limit", "1"]).stdout.contains("\tset\tuser\tk4\t"))
    }

    /// A store used long enough to fill its change log: a set still writes two pages, because
    /// the records beyond retention go in batches (1/64 of it) rather than one per write, and
    /// `prefs log` still shows exactly the newest 10,000.
    @Test(.tags(.slow), .enabled(if: SlowTests.enabled, SlowTests.reason)) func aFullLogIsPrunedInBatches() throws {
        let box = try Sandbox()
        let keys = (0..<10_000).map { "\"k\($0)\": \($0)" }.joined(separator: ", ")
        try box.runOK(["import", "-"], stdin: "{\"user\": {\(keys)}}")
        let holder = try Self.holdOpen(box)
        defer { #expect(holder.finish().status == 0) }
        try box.runOK(["set", "user", "x", "0"])
        let frame = 24 + 4096
        let start = try #require(Self.size(box.store + "-wal"))
        for i in 1...20 {
            try box.runOK(["set", "user", "x", "\(i)"])
        }
        let after = try #require(Self.size(box.store + "-wal"))
        #expect((after - start) / frame == 40, "twenty sets on a full log added \((after - start) / frame) pages")
        // Past the batch (156 records): pruned back to 10,000, and the log shows 10,000 either way.
        let script = "for i in $(seq 21 200); do \"$PREFS\" --store \"$STORE\" set user x \"$i\" || exit 1; done"
        let loop = try Sandbox.exec(
            "/bin/bash", ["-c", script], stdin: nil, environment: box.environment(["PREFS": Sandbox.binary, "STORE": box.store]))
        #expect(loop.status == 0, "\(loop)")
        let log = try box.runOK(["log"]).stdout.split(separator: "\n")
        #expect(log.count == 10_000)
        #expect(log.first?.contains("\tset\tuser\tx\t199\t200\t") == true, "\(log.first ?? "")")
        let rows = try Sandbox.exec(
            "/usr/bin/sqlite3", [box.store, "SELECT count(*) FROM changelog"], stdin: nil, environment: box.environment())
        let count = Int(rows.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
        #expect(rows.status == 0 && count >= 10_000 && count <= 10_156, "\(rows)")
    }

    /// While a long-lived reader keeps the store open (so no command is the last to close it),
    /// checkpoints still complete and the WAL is reused and cut back to its limit.
    @Test(.tags(.slow), .enabled(if: SlowTests.enabled, SlowTests.reason)) func theWALStaysBoundedWhileAWatcherHoldsTheStoreOpen() throws {
        let box = try Sandbox()
        try box.runOK(["set", "user", "start", "1"])
        let (watcher, _) = try Running.watch(["watch", "user"], box: box)
        defer { _ = watcher.finish(signal: SIGTERM) }
        let script = """
            for i in $(seq 1 1500); do
                "$PREFS" --store "$STORE" set user "k$((i % 50))" "$i" || exit 1
            done
            stat -c %s "$STORE-wal" 2>/dev/null || echo 0
            """
        let result = try Sandbox.exec(
            "/bin/bash", ["-c", script], stdin: nil, environment: box.environment(["PREFS": Sandbox.binary, "STORE": box.store]),
            timeout: 900)  // thousands of processes in a row
        #expect(result.status == 0, "\(result)")
        let wal = Int(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? .max
        #expect(wal <= Self.bound, "WAL after 1,500 sets with a watcher: \(wal) bytes")
        #expect(try box.runOK(["get", "user", "k0"]).stdout == "1500\n")
    }

    /// A reader that never ends its read transaction keeps checkpoints from finishing: doctor
    /// says the WAL is over its limit.
    @Test func doctorWarnsAboutAnOversizedWAL() throws {
        let box = try Sandbox()
        try box.runOK(["set", "user", "start", "1"])
        let holder = try Running(
            [
                "-c",
                "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute('BEGIN'); "
                    + "c.execute('SELECT count(*) FROM sqlite_master').fetchall(); print('ready', flush=True); sys.stdin.read()",
                box.store,
            ], environment: box.environment(), executable: "/usr/bin/python3")
        #expect(holder.waitForLines(1), "the reader took its snapshot")
        try box.runOK(["set", "user", "big", "-"], stdin: String(repeating: "x", count: 5 << 20))
        let doctor = try box.runOK(["doctor"])
        #expect(doctor.stdout.contains("warning\twal\tWAL file "), "\(doctor)")
        #expect(doctor.stdout.contains("over 4 MiB"), "\(doctor)")
        #expect(holder.finish().status == 0)
        // Once the reader is gone, the next command folds the WAL in.
        try box.runOK(["set", "user", "after", "1"])
        #expect(Self.size(box.store + "-wal") == nil)
        #expect(try box.runOK(["doctor"]).stdout.contains("ok\twal\tjournal mode wal"))
    }
}
