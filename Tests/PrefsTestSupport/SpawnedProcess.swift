import Foundation

/// A program started with posix_spawn the way ``runChild(_:stdin:environment:timeout:)`` starts
/// one (its own process group, no signal blocked, no descriptor of ours but its three), for
/// tests that drive it while it runs: set it up as a Foundation `Process` (the same names),
/// then ``run()``, write to its input and read its output through `Pipe`s, signal it, wait.
/// Standard input, output and error are each a `Pipe`, a `FileHandle` (`.nullDevice`: /dev/null)
/// or nil (this process's).
public final class SpawnedProcess: @unchecked Sendable {
    /// The program (not looked up on PATH).
    public var executableURL: URL?
    public var arguments: [String]?
    /// The whole environment (nil: this process's).
    public var environment: [String: String]?
    public var standardInput: Any?
    public var standardOutput: Any?
    public var standardError: Any?
    /// The child's process id (0 before ``run()``).
    public private(set) var processIdentifier: pid_t = 0
    private var exit: ExitWaiter?

    public init() {}

    /// Starts the program. The ends of pipes the child uses are closed here (as `Process` does),
    /// so a reader sees the end of its output when the child (and whatever holds it) closes it.
    public func run() throws {
        guard let executableURL else { throw SpawnError(description: "no executable to run") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (fd, stream) in [(Int32(0), standardInput), (1, standardOutput), (2, standardError)] {
            switch stream {
            case let pipe as Pipe:
                let end = fd == 0 ? pipe.fileHandleForReading : pipe.fileHandleForWriting
                posix_spawn_file_actions_adddup2(&actions, end.fileDescriptor, fd)
            case let handle as FileHandle where handle === FileHandle.nullDevice || handle.fileDescriptor < 0:
                posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0)
            case let handle as FileHandle:
                posix_spawn_file_actions_adddup2(&actions, handle.fileDescriptor, fd)
            default:
                break
            }
        }
        closeOtherDescriptors(&actions)
        processIdentifier = try spawn(
            [executableURL.path] + (arguments ?? []), actions: &actions, environment: environment)
        exit = ExitWaiter(processIdentifier)
        for (fd, stream) in [(Int32(0), standardInput), (1, standardOutput), (2, standardError)] {
            if let pipe = stream as? Pipe { try? (fd == 0 ? pipe.fileHandleForReading : pipe.fileHandleForWriting).close() }
        }
    }

    /// Whether the child was started and has not ended (been reaped) yet.
    public var isRunning: Bool { exit.map { !$0.ended } ?? false }

    /// Waits for the child to end.
    public func waitUntilExit() { exit?.wait() }

    /// The exit code, or the signal's number when a signal ended the child (after ``waitUntilExit()``).
    public var terminationStatus: Int32 {
        let raw = exit?.status ?? 0
        return (raw & 0x7f) == 0 ? (raw >> 8) & 0xff : raw & 0x7f
    }

    /// Whether the child exited or a signal ended it (after ``waitUntilExit()``).
    public var terminationReason: Process.TerminationReason {
        ((exit?.status ?? 0) & 0x7f) == 0 ? .exit : .uncaughtSignal
    }

    /// Sends SIGTERM.
    public func terminate() { if processIdentifier > 0 { kill(processIdentifier, SIGTERM) } }
}
