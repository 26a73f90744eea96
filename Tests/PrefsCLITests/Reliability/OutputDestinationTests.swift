import Foundation
import Testing

/// Where output goes when it is not a plain file or a terminal: output that could not be
/// written is exit 4, never a success with part of it missing; `-o` writes through a device or
/// a FIFO (as a shell's `>` does) instead of replacing it with a file.
@Suite(.timeLimit(.minutes(5)), .ownThreads) struct OutputDestinationTests {
    static let isRoot = getuid() == 0

    /// A store whose export is about 200 KB: more than a pipe holds.
    private func bigStore() throws -> Sandbox {
        let box = try Sandbox(inProcess: true)
        let members = (0..<3000).map { #""key\#($0)":"\#(String(repeating: "v", count: 50))""# }.joined(separator: ",")
        let document = box.root + "/big.json"
        try #"{"user":{\#(members)}}"#.write(toFile: document, atomically: false, encoding: .utf8)
        try box.runOK(["import", document])
        return box
    }

    /// Runs `prefs --store STORE ARGS` through bash with `redirect` after it (the binary).
    private func shell(_ box: Sandbox, _ arguments: String, _ tail: String) throws -> RunResult {
        try Sandbox.exec(
            "/bin/bash", ["-c", "\"$0\" --store \"$1\" \(arguments) \(tail)", Sandbox.binary, box.store], stdin: nil,
            environment: box.environment(["PREFS_PROJECT_FILE": ""]))
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/dev/full"), "needs /dev/full"))
    func outputThatCannotBeWrittenIsExit4() throws {
        let box = try bigStore()
        try box.runOK(["set", "user", "theme", "dark"])
        // A full disk: the whole export, a one-value get (the start-up path), a list.
        for arguments in ["export", "get user theme", "list user", "export --format env user"] {
            let full = try shell(box, arguments, "> /dev/full")
            #expect(full.status == 4, "\(arguments): \(full)")
            #expect(full.stderr == "prefs: cannot write standard output: No space left on device\n", "\(arguments): \(full)")
        }
        // Standard output closed.
        let closed = try shell(box, "export", ">&-")
        #expect(closed.status == 4 && closed.stderr == "prefs: cannot write standard output: Bad file descriptor\n", "\(closed)")
        // A reader that leaves early: SIGPIPE ends prefs as it ends any tool (bash's 141)...
        let pipe = try shell(box, "export", "| head -c 10 >/dev/null; exit ${PIPESTATUS[0]}")
        #expect(pipe.status == 141 && pipe.stderr.isEmpty, "\(pipe)")
        // ...and while SIGPIPE is ignored, the write's EPIPE is exit 4, not a success.
        let ignored = try Sandbox.exec(
            "/bin/bash",
            ["-c", "trap '' PIPE; \"$0\" --store \"$1\" export | head -c 10 >/dev/null; exit ${PIPESTATUS[0]}", Sandbox.binary, box.store],
            stdin: nil, environment: box.environment(["PREFS_PROJECT_FILE": ""]))
        #expect(ignored.status == 4 && ignored.stderr == "prefs: cannot write standard output: Broken pipe\n", "\(ignored)")
        // batch: the lines reach the store, the progress lines do not: exit 4 saying so.
        let batch = try shell(box, "batch", "<<< 'set user a 1' > /dev/full")
        #expect(batch.status == 4, "\(batch)")
        #expect(
            batch.stderr
                == "prefs: cannot write standard output: No space left on device (the lines through 1 were written to the store)\n",
            "\(batch)")
        #expect(try box.runOK(["get", "user", "a"]).stdout == "1\n")
        // watch: a watcher whose output goes nowhere ends (exit 4) instead of running on.
        let ready = box.root + "/watch-ready"
        let watch = try Sandbox.exec(
            "/bin/bash",
            [
                "-c",
                """
                "$0" --store "$1" watch user k --once >&- & pid=$!
                for i in $(seq 200); do [ -s "$2" ] && break; sleep 0.05; done
                "$0" --store "$1" set user k 1 || exit 90
                wait $pid; echo "watch=$?"
                """,
                Sandbox.binary, box.store, ready,
            ], stdin: nil, environment: box.environment(["PREFS_PROJECT_FILE": "", "PREFS_TEST_WATCH_READY": ready]))
        #expect(watch.stdout == "watch=4\n", "\(watch)")
        #expect(watch.stderr.contains("prefs: cannot write standard output: Bad file descriptor"), "\(watch)")
        // Output that was written is still a success.
        #expect(try shell(box, "get user theme", "> /dev/null").status == 0)
    }

    /// Whether a small tmpfs can be mounted in a private mount namespace (root, `unshare`).
    static let canMountTmpfs: Bool = {
        guard isRoot, FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") else { return false }
        let probe = try? Sandbox.exec(
            "/usr/bin/unshare",
            ["-m", "--propagation", "private", "sh", "-c", "d=$(mktemp -d) && mount -t tmpfs -o size=64k tmpfs \"$d\""],
            stdin: nil, environment: ProcessInfo.processInfo.environment)
        return probe?.status == 0
    }()

    /// On a full file system even a read cannot make the store's `-shm`: SQLite says "disk I/O
    /// error". That is exit 4 (disk full), not exit 3 (damaged), and `doctor` does not call the
    /// store damaged; once there is room again everything reads.
    @Test(.enabled(if: canMountTmpfs, "needs root and unshare to mount a small tmpfs"))
    func aFullFileSystemIsDiskFullNotDamage() throws {
        let box = try Sandbox(inProcess: false)
        let script = """
            set -u
            d=$(mktemp -d) && mount -t tmpfs -o size=1600k tmpfs "$d" || exit 99
            export PREFS_STORE="$d/s.db"
            "$0" set user a 1 || exit 98
            dd if=/dev/zero of="$d/fill" bs=1k count=4000 2>/dev/null
            "$0" get user a; echo "get=$?"
            "$0" set user b 2; echo "set=$?"
            "$0" doctor; echo "doctor=$?"
            rm "$d/fill"
            "$0" get user a; echo "after=$?"
            """
        var env = box.environment(["PREFS_PROJECT_FILE": ""])
        env.removeValue(forKey: "PREFS_STORE")
        let result = try Sandbox.exec(
            "/usr/bin/unshare", ["-m", "--propagation", "private", "sh", "-c", script, Sandbox.binary], stdin: nil, environment: env)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains("get=4") && lines.contains("set=4") && lines.contains("doctor=4"), "\(result)")
        #expect(lines.suffix(2) == ["1", "after=0"], "\(result)")
        #expect(!result.stderr.contains("damaged") && !result.stderr.contains("corrupt"), "\(result)")
        #expect(result.stderr.contains("disk full"), "\(result)")
    }

    @Test func exportWritesThroughTheUsersFIFOAndRefusesASymlink() throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["set", "user", "theme", "dark"])
        let expected = try box.runOK(["export"]).stdout
        // A FIFO: read by another thread while export writes into it; still a FIFO afterwards.
        let fifo = box.root + "/fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        let reader = Thread.detachNewThreadWithResult { () -> String in
            // open(2) waits for the writer; read to the end.
            let fd = open(fifo, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { return "<cannot open>" }
            defer { close(fd) }
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if n <= 0 { break }
                bytes += chunk[0..<n]
            }
            return String(decoding: bytes, as: UTF8.self)
        }
        // In process on a thread of its own, waited for at most 30 s: a writer blocked in
        // open(2) by mistake fails the test instead of hanging it.
        let arguments = ["--store", box.store, "export", "-o", fifo]
        let environment = box.environment()
        let exporting = Thread.detachNewThreadWithResult { Sandbox.runInProcess(arguments, stdin: nil, environment: environment) }
        let written = exporting.wait(timeout: 30)
        #expect(
            written?.status == 0 && written?.stdout.isEmpty == true && written?.stderr.isEmpty == true,
            "\(written.map { "\($0)" } ?? "export -o FIFO still running after 30 s")")
        if written?.status != 0 {
            // Release whichever side still waits in open(2) (O_RDWR opens a FIFO at once and
            // counts as both): the test fails, it does not hang.
            let both = open(fifo, O_RDWR | O_NONBLOCK)
            if both >= 0 { close(both) }
        }
        var info = stat()
        let stillFIFO = lstat(fifo, &info) == 0 && (info.st_mode & S_IFMT) == S_IFIFO
        #expect(stillFIFO, "export -o replaced the FIFO with a file")
        // (Replaced, the FIFO the reader waits on has no name left to release it by.)
        if stillFIFO { #expect(reader.wait() == expected) }
        // A symbolic link is refused (a rename would replace the link; following it would let
        // whoever owns a link on the way redirect the data); its target is left alone.
        let target = box.root + "/target.json"
        try "old\n".write(toFile: target, atomically: false, encoding: .utf8)
        let link = box.root + "/link.json"
        #expect(symlink("target.json", link) == 0)
        let linked = try box.runFailing(["export", "-o", link], status: 4)
        #expect(linked.stderr == "prefs: cannot write export \(link): a symbolic link; name the file itself\n", "\(linked)")
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "old\n")
        #expect(lstat(link, &info) == 0 && (info.st_mode & S_IFMT) == S_IFLNK)
        // The names of standard output are standard output (a shell's `>> log` is not replaced).
        for name in ["/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"] {
            #expect(try box.runOK(["export", "-o", name]).stdout == expected, "\(name)")
        }
        // A backup is never renamed over a FIFO.
        let refused = try box.runFailing(["backup", "--force", fifo], status: 4)
        #expect(refused.stderr == "prefs: cannot write backup \(fifo): not a regular file\n", "\(refused)")
        #expect(lstat(fifo, &info) == 0 && (info.st_mode & S_IFMT) == S_IFIFO)
    }

    @Test(.enabled(if: isRoot, "needs root to make a device node and give a FIFO to another user"))
    func exportWritesThroughADeviceAndRefusesAnotherUsersFIFO() throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["set", "user", "theme", "dark"])
        // A character device (the null device: major 1, minor 3, as glibc encodes small numbers):
        // written through, not replaced.
        let device = box.root + "/null"
        #expect(mknod(device, S_IFCHR | 0o666, dev_t(1 << 8 | 3)) == 0)
        try box.runOK(["export", "-o", device])
        var info = stat()
        #expect(lstat(device, &info) == 0 && (info.st_mode & S_IFMT) == S_IFCHR)
        // Another user's FIFO (as planted in a shared directory such as /tmp) would read the
        // store's data: refused, and never opened.
        let planted = box.root + "/planted"
        #expect(mkfifo(planted, 0o666) == 0 && chown(planted, 65534, 65534) == 0)
        let refused = try box.runFailing(["export", "-o", planted], status: 4)
        #expect(refused.stderr == "prefs: cannot write export \(planted): a FIFO of uid 65534, not yours\n", "\(refused)")
        #expect(lstat(planted, &info) == 0 && (info.st_mode & S_IFMT) == S_IFIFO)
    }
}

extension Thread {
    /// Runs `body` on a new thread; `wait()` returns its result.
    fileprivate static func detachNewThreadWithResult<T: Sendable>(_ body: @escaping @Sendable () -> T) -> ThreadResult<T> {
        let result = ThreadResult<T>()
        Thread.detachNewThread { result.finish(body()) }
        return result
    }
}

/// A value another thread delivers once.
private final class ThreadResult<T: Sendable>: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var value: T?

    func finish(_ value: T) {
        self.value = value
        done.signal()
    }

    func wait() -> T {
        done.wait()
        return value!
    }

    /// The result, or nil when it has not come within `timeout` seconds.
    func wait(timeout: Double) -> T? {
        guard done.wait(timeout: .now() + timeout) == .success else { return nil }
        return value
    }
}
