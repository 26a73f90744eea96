import Foundation

/// Starts `command` (its first element found on PATH unless it holds a slash) with posix_spawn,
/// standard input from /dev/null, standard output and error to the file `output`, and no other
/// descriptor of this process: tests running in parallel have pipes open, and a server or
/// watchdog that inherited one would keep it open (its reader would never see the end). No
/// Foundation `Process`, which was seen never to reap a client whose server outlives it.
public func spawnDetached(_ command: [String], output: String) throws -> pid_t {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    posix_spawn_file_actions_adddup2(&actions, 1, 2)
    closeOtherDescriptors(&actions)
    return try spawn(command, actions: &actions)
}

/// Closes every descriptor above 2 in the child (glibc 2.34+; the symbol is not in Swift's
/// Glibc module).
func closeOtherDescriptors(_ actions: inout posix_spawn_file_actions_t) {
    typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    if let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") {
        _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
    }
}

/// posix_spawnp of `command` in a process group of its own (so a timeout can kill it with
/// everything it started), with no signal blocked and the usual ones at their defaults: a test
/// thread blocks most signals, and a tmux server that inherited that mask never exits on
/// kill-server (its shells ignore ^C).
func spawn(_ command: [String], actions: inout posix_spawn_file_actions_t, environment: [String: String]? = nil) throws -> pid_t {
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var none = sigset_t()
    sigemptyset(&none)
    posix_spawnattr_setsigmask(&attributes, &none)
    var defaults = sigset_t()
    sigemptyset(&defaults)
    for signal in [SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGPIPE, SIGCHLD, SIGALRM, SIGUSR1, SIGUSR2, SIGWINCH, SIGTSTP, SIGTTIN, SIGTTOU] {
        sigaddset(&defaults, signal)
    }
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    posix_spawnattr_setpgroup(&attributes, 0)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))
    var argv: [UnsafeMutablePointer<CChar>?] = command.map { strdup($0) }
    argv.append(nil)
    defer { for pointer in argv { free(pointer) } }
    var envp: [UnsafeMutablePointer<CChar>?] = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] } ?? []
    defer { for pointer in envp { free(pointer) } }
    var pid = pid_t()
    let code =
        environment == nil
        ? posix_spawnp(&pid, command[0], &actions, &attributes, argv, environ)
        : posix_spawnp(&pid, command[0], &actions, &attributes, argv, &envp)
    guard code == 0 else { throw SpawnError(description: "cannot run \(command[0]): \(String(cString: strerror(code)))") }
    return pid
}

/// How long a test waits for one child process before it kills the child's process group:
/// `PREFS_TEST_TIMEOUT` seconds, else 60.
public let defaultChildTimeout: Double = {
    if let text = ProcessInfo.processInfo.environment["PREFS_TEST_TIMEOUT"], let seconds = Double(text), seconds > 0 { return seconds }
    return 60
}()

/// What ``runChild(_:stdin:environment:timeout:)`` saw.
public struct ChildResult: Sendable {
    public var stdout: [UInt8]
    public var stderr: [UInt8]
    /// The exit code, or the signal's number when a signal ended the child (as Foundation's
    /// `Process.terminationStatus`).
    public var status: Int32
    /// True when the child (or a process of its group holding its pipes) was still running
    /// after the timeout and its process group was killed.
    public var timedOut: Bool
}

/// Runs `command` (its first element found on PATH unless it holds a slash) with `stdin` on a
/// pipe and its output collected, in its own process group, with an empty signal mask and
/// no descriptor of ours but the three pipes; waits at most `timeout` seconds, then kills the
/// group with SIGKILL and says so in ``ChildResult/timedOut``.
public func runChild(_ command: [String], stdin: [UInt8]?, environment: [String: String], timeout: Double = defaultChildTimeout) throws
    -> ChildResult
{
    ignoreBrokenPipes
    var input: [Int32] = [0, 0]
    var output: [Int32] = [0, 0]
    var errors: [Int32] = [0, 0]
    guard makePipe(&input) else { throw SpawnError(description: "pipe: \(String(cString: strerror(errno)))") }
    guard makePipe(&output) else {
        close(input[0])
        close(input[1])
        throw SpawnError(description: "pipe: \(String(cString: strerror(errno)))")
    }
    guard makePipe(&errors) else {
        for fd in input + output { close(fd) }
        throw SpawnError(description: "pipe: \(String(cString: strerror(errno)))")
    }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, input[0], 0)
    posix_spawn_file_actions_adddup2(&actions, output[1], 1)
    posix_spawn_file_actions_adddup2(&actions, errors[1], 2)
    closeOtherDescriptors(&actions)
    let pid: pid_t
    do {
        pid = try spawn(command, actions: &actions, environment: environment)
    } catch {
        for fd in input + output + errors { close(fd) }
        throw error
    }
    close(input[0])
    close(output[1])
    close(errors[1])
    let stdinFD = input[1]
    Thread {
        if let stdin, !stdin.isEmpty {
            stdin.withUnsafeBytes { buffer in
                var offset = 0
                while offset < buffer.count {
                    let written = write(stdinFD, buffer.baseAddress! + offset, buffer.count - offset)
                    if written < 0 && errno == EINTR { continue }
                    if written <= 0 { break }  // EPIPE: a child that exits without reading
                    offset += written
                }
            }
        }
        close(stdinFD)
    }.start()
    let out = DrainedDescriptor(output[0])
    let err = DrainedDescriptor(errors[0])
    let exit = ExitWaiter(pid)
    let deadline = DispatchTime.now() + timeout
    var timedOut = false
    if exit.done.wait(timeout: deadline) == .timedOut {
        timedOut = true
        kill(-pid, SIGKILL)
        exit.done.wait()
    }
    // A process the child started may still hold the pipes: give it until the deadline (at
    // least a second), then kill the group.
    let drainDeadline = max(deadline, DispatchTime.now() + 1)
    if out.done.wait(timeout: drainDeadline) == .timedOut || err.done.wait(timeout: drainDeadline) == .timedOut {
        timedOut = true
        kill(-pid, SIGKILL)
        _ = out.done.wait(timeout: .now() + 5)
        _ = err.done.wait(timeout: .now() + 5)
    }
    let raw = exit.status
    let status = (raw & 0x7f) == 0 ? (raw >> 8) & 0xff : raw & 0x7f
    return ChildResult(stdout: out.bytes, stderr: err.bytes, status: status, timedOut: timedOut)
}

/// pipe2 with O_CLOEXEC (not in Swift's Glibc module): a process another test starts at the
/// same moment must not inherit our ends.
private func makePipe(_ fds: inout [Int32]) -> Bool {
    typealias Pipe2 = @convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32
    guard let symbol = dlsym(nil, "pipe2") else { return false }
    return fds.withUnsafeMutableBufferPointer { unsafeBitCast(symbol, to: Pipe2.self)($0.baseAddress!, O_CLOEXEC) } == 0
}

private let ignoreBrokenPipes: Void = { signal(SIGPIPE, SIG_IGN) }()

/// Reads a descriptor to its end on a thread of its own, then closes it.
private final class DrainedDescriptor: @unchecked Sendable {
    let done = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var data: [UInt8] = []

    init(_ fd: Int32) {
        Thread { [self] in
            var chunk = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { break }
                lock.withLock { data += chunk[0..<count] }
            }
            close(fd)
            done.signal()
        }.start()
    }

    var bytes: [UInt8] { lock.withLock { data } }
}

/// Waits for a child on a thread of its own (a blocking waitpid, no polling).
final class ExitWaiter: @unchecked Sendable {
    /// Signalled once the child was reaped.
    let done = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var reaped: Int32?

    init(_ pid: pid_t) {
        Thread { [self] in
            let status = waitForExit(pid)
            lock.withLock { reaped = status }
            done.signal()
        }.start()
    }

    /// Whether the child was reaped.
    var ended: Bool { lock.withLock { reaped != nil } }

    /// The raw wait status (0 until the child was reaped).
    var status: Int32 { lock.withLock { reaped ?? 0 } }

    /// Waits until the child was reaped (again and again: each caller returns).
    func wait() {
        done.wait()
        done.signal()
    }
}

/// Waits for `pid` to end and returns its raw wait status (0 for exit 0).
public func waitForExit(_ pid: pid_t) -> Int32 {
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    return status
}

/// Waits at most `timeout` seconds for `pid` (started by ``spawnDetached(_:output:)``, so the
/// leader of its own process group) and returns its raw wait status; when it is still running
/// then, kills its process group and returns nil.
public func waitForExit(_ pid: pid_t, timeout: Double) -> Int32? {
    let exit = ExitWaiter(pid)
    if exit.done.wait(timeout: .now() + timeout) == .timedOut {
        kill(-pid, SIGKILL)
        exit.done.wait()
        return nil
    }
    return exit.status
}

/// Why ``spawnDetached(_:output:)`` could not start a program.
public struct SpawnError: Error, CustomStringConvertible {
    public var description: String
}
