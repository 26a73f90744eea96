import CPrefsSystem
import Glibc
import Synchronization

/// A program started with posix_spawn (instead of Foundation's `Process`): found on `PATH`
/// unless its name has a slash, with the given environment, each standard stream inherited,
/// connected to a pipe or given a descriptor, and its end as an exit status or a signal.
///
/// ```swift
/// var child = try ChildProcess(["sh", "-c", "exit 3"])
/// child.wait()  // .exited(3)
/// ```
///
/// The parent's ends of the pipes are close-on-exec, so no other child inherits them; the
/// caller closes them (`closeStandardInput()` for the one it writes).
/// Not `Sendable`: one thread starts, feeds and waits for a child.
package struct ChildProcess {
    /// How the child gets one of its standard streams.
    package enum Stream: Sendable {
        /// The parent's own descriptor.
        case inherit
        /// A new pipe; the parent's end is in `standardInput`, `standardOutput` or
        /// `standardError`.
        case pipe
        /// This descriptor of the parent's (which keeps it open): a command line run in
        /// process gives a child the run's own streams.
        case descriptor(Int32)
    }

    /// How a child ended.
    package enum Termination: Equatable, Sendable, CustomStringConvertible {
        /// It exited with this status (0 to 255).
        case exited(Int32)
        /// A signal ended it.
        case signaled(Int32)

        /// From a `waitpid` status.
        package init(status: Int32) {
            let signal = status & 0x7F
            self = signal == 0 ? .exited((status >> 8) & 0xFF) : .signaled(signal)
        }

        /// `exited with status N` or `ended by signal N`.
        package var description: String {
            switch self {
            case .exited(let code): "exited with status \(code)"
            case .signaled(let signal): "ended by signal \(signal)"
            }
        }
    }

    /// Held from creating a child's pipes to closing the child's ends after posix_spawn.
    private static let spawning = Mutex<Void>(())

    /// Every signal (1 to 64), for `defaultSignals`: what Foundation's `Process` reset.
    package static let allSignals: [Int32] = Array(1...64)

    /// The child's process id.
    package let pid: pid_t
    /// The program run: the path found for the name given.
    package let path: String
    /// The write end of the child's standard input when it is a pipe.
    package private(set) var standardInput: Int32?
    /// The read end of the child's standard output when it is a pipe.
    package private(set) var standardOutput: Int32?
    /// The read end of the child's standard error when it is a pipe.
    package private(set) var standardError: Int32?
    /// How it ended, once `wait()` has seen it.
    package private(set) var termination: Termination?
    /// The raw `waitpid` status, once `wait()` has seen it.
    package private(set) var status: Int32?

    /// Starts `arguments[0]` with `arguments` as its argv.
    ///
    /// - Parameters:
    ///   - environment: the child's environment; nil: this process's (an in-process run's
    ///     own, ``ProcessEnvironment/override``).
    ///   - defaultSignals: signals reset to their default action in the child (ones this
    ///     process ignores, such as SIGINT while an editor runs).
    ///   - newProcessGroup: whether the child leads a process group of its own, so that a
    ///     signal sent to the group reaches whatever it starts too.
    ///   - directory: the child's working directory; nil: this process's. A name without a
    ///     slash is still found on `PATH` as from this process.
    /// - Throws: `FileIO/Failure` with `ENOENT` when the program is not found (or not
    ///   executable: `EACCES`), or the error of pipe(2) or posix_spawn (`ENOENT` too when
    ///   `directory` does not exist).
    package init(
        _ arguments: [String], environment: [String: String]? = nil, standardInput stdin: Stream = .inherit,
        standardOutput stdout: Stream = .inherit, standardError stderr: Stream = .inherit, defaultSignals: [Int32] = [],
        newProcessGroup: Bool = false, directory: String? = nil
    ) throws(FileIO.Failure) {
        guard let name = arguments.first, !name.isEmpty else { throw FileIO.Failure(ENOENT) }
        // A command line run in process passes its own environment on, not the process's.
        let environment = environment ?? ProcessEnvironment.inProcess
        let path = try Self.find(name, environment: environment)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // An empty signal mask (a thread of the Swift runtime's pools blocks signals, and a
        // child inherits its starter's mask), and the signals asked for back to default.
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in defaultSignals where signal != SIGKILL && signal != SIGSTOP { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF
        if newProcessGroup {
            posix_spawnattr_setpgroup(&attributes, 0)
            flags |= POSIX_SPAWN_SETPGROUP
        }
        posix_spawnattr_setflags(&attributes, Int16(flags))
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?]? = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer { for pointer in argv + (envp ?? []) { free(pointer) } }
        // pipe2(O_CLOEXEC) is not visible from Swift's Glibc module: pipe(2) then FD_CLOEXEC,
        // under a lock so that no other ChildProcess starts in between and inherits the pipes.
        let spawned: Result<(pid_t, [Int32?]), FileIO.Failure> = Self.spawning.withLock { _ in
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            // Each pipe: (parent's end, child's end), both close-on-exec; dup2 onto 0, 1 or 2
            // clears the flag on the child's copy.
            var pipes: [(parent: Int32, child: Int32)?] = []
            func closeAll() {
                for case let pair? in pipes {
                    FileIO.close(pair.parent)
                    FileIO.close(pair.child)
                }
            }
            for (target, stream) in [(Int32(0), stdin), (1, stdout), (2, stderr)] {
                if case .descriptor(let fd) = stream { posix_spawn_file_actions_adddup2(&actions, fd, target) }
                guard case .pipe = stream else {
                    pipes.append(nil)
                    continue
                }
                var fds: [Int32] = [-1, -1]
                guard pipe(&fds) == 0 else {
                    let code = errno
                    closeAll()
                    return .failure(FileIO.Failure(code))
                }
                for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
                let pair = target == 0 ? (parent: fds[1], child: fds[0]) : (parent: fds[0], child: fds[1])
                pipes.append(pair)
                posix_spawn_file_actions_adddup2(&actions, pair.child, target)
            }
            if let directory, prefs_spawn_chdir(&actions, directory) != 0 {
                let code = errno
                closeAll()
                return .failure(FileIO.Failure(code))
            }
            // Only 0, 1 and 2 reach the child: not what prefs inherited without close-on-exec.
            guard prefs_spawn_close_from(&actions, 3) == 0 else {
                let code = errno
                closeAll()
                return .failure(FileIO.Failure(code))
            }
            var pid: pid_t = 0
            let result =
                if let envp { posix_spawn(&pid, path, &actions, &attributes, argv, envp) } else {
                    posix_spawn(&pid, path, &actions, &attributes, argv, environ)
                }
            guard result == 0 else {
                closeAll()
                return .failure(FileIO.Failure(result))
            }
            for case let pair? in pipes { FileIO.close(pair.child) }
            return .success((pid, pipes.map { $0?.parent }))
        }
        let (pid, parents) = try spawned.get()
        self.pid = pid
        self.path = path
        standardInput = parents[0]
        standardOutput = parents[1]
        standardError = parents[2]
    }

    /// The path of the program `name`: itself when it has a slash, else the first executable
    /// file of that name in `PATH` (of `environment`, else this process's; unset:
    /// `/usr/local/bin:/usr/bin:/bin`).
    package static func find(_ name: String, environment: [String: String]? = nil) throws(FileIO.Failure) -> String {
        if name.contains("/") { return name }
        let search =
            environment.map { $0["PATH"] } ?? ProcessEnvironment.value("PATH")
        var denied = false
        for directory in (search ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":", omittingEmptySubsequences: false) {
            let candidate = (directory.isEmpty ? "." : String(directory)) + "/" + name
            var info = stat()
            guard stat(candidate, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
            if access(candidate, X_OK) == 0 { return candidate }
            denied = true
        }
        throw FileIO.Failure(denied ? EACCES : ENOENT)
    }

    /// Closes the parent's end of the child's standard input (the child then reads its end).
    package mutating func closeStandardInput() {
        if let fd = standardInput { FileIO.close(fd) }
        standardInput = nil
    }

    /// Waits for the child to end (retrying when a signal interrupts). A second call returns
    /// the first answer. The pipes' ends stay open: the caller closes what it read.
    @discardableResult
    package mutating func wait() -> Termination {
        if let termination { return termination }
        var raw: Int32 = 0
        while waitpid(pid, &raw, 0) < 0 {
            // ECHILD: reaped elsewhere (nothing else reaps prefs's children): report a kill.
            if errno != EINTR {
                raw = SIGKILL
                break
            }
        }
        let ended = Termination(status: raw)
        status = raw
        termination = ended
        return ended
    }
}
