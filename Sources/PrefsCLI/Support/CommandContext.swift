import Glibc
import PrefsCore
import Synchronization

/// What one run of a command line reads and writes besides its arguments, when it is not the
/// process's own: a test runs command lines in process (``PrefsCommandLine/run(_:environment:standardInput:workingDirectory:)``),
/// several at once, each with its own environment, standard streams and open stacks.
///
/// The `prefs` binary never makes one: there ``active`` is one relaxed load that answers nil,
/// and output goes straight to descriptors 1 and 2.
final class CommandContext: Sendable {
    /// Standard output, kept in memory.
    let output: Output
    /// Standard error, kept in memory.
    let errors = Capture()
    /// The descriptor standard input is read from (-1 when it could not be made: reading fails).
    let standardInput: Int32
    /// The stacks this run opened (``OpenStacks``).
    let stacks = Mutex<[KeyValueStack]>([])
    /// The run's working directory (an absolute path), or nil for the process's.
    let workingDirectory: String?

    init(standardInput: Int32, workingDirectory: String?) {
        self.output = Output(capture: Capture())
        self.standardInput = standardInput
        self.workingDirectory = workingDirectory
    }

    /// The context of the run under way on this task.
    @TaskLocal static var current: CommandContext?

    /// ``current`` when an in-process run is under way on this task, else nil (always in the
    /// binary, for one relaxed load).
    @inline(__always) static var active: CommandContext? {
        ProcessEnvironment.overridden.load(ordering: .relaxed) ? current : nil
    }

    /// The working directory of the in-process run under way, if it has one of its own; nil
    /// in the binary (the process's current directory is the run's).
    @inline(__always) static var runDirectory: String? { active?.workingDirectory }

    /// `path` as the run reads it: a relative path against the run's working directory
    /// (``runDirectory``); unchanged in the binary, where the process's is the run's.
    static func runPath(_ path: String) -> String {
        guard let directory = runDirectory, !path.hasPrefix("/"), !path.isEmpty else { return path }
        return directory == "/" ? "/" + path : directory + "/" + path
    }

    /// A new temporary file already unlinked, open for reading and writing (closed on exec),
    /// or -1 when none could be made.
    static func unlinkedTemporaryFile() -> Int32 {
        var template = Array("/tmp/prefs-run-XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { buffer in buffer.baseAddress.map { mkstemp($0) } ?? -1 }
        guard fd >= 0 else { return -1 }
        template.withUnsafeBufferPointer { buffer in _ = buffer.baseAddress.map { unlink($0) } }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        return fd
    }

    /// Bytes written in memory.
    final class Capture: Sendable {
        private let bytes = Mutex<[UInt8]>([])
        func append(_ more: [UInt8]) { bytes.withLock { $0.append(contentsOf: more) } }
        var contents: [UInt8] { bytes.withLock { $0 } }
    }
}

extension PrefsCommandLine {
    /// What an in-process run printed and its exit status.
    package struct Result: Sendable {
        package var status: Int32
        package var standardOutput: [UInt8]
        package var standardError: [UInt8]
    }

    /// Runs one command line in process, as `prefs ARGUMENTS` with `environment` as its whole
    /// environment and `standardInput` as its input, and returns what it printed and its exit
    /// status. Several may run at once on different tasks. `batch`, `edit`, `exec` and
    /// `watch` run without their signal handling (the binary's), children with the run's
    /// standard streams (``ForegroundStreams``): a `watch` or an `exec --restart` that does not
    /// end by itself runs until the process ends, so `serve`, `sync` and those are for the
    /// binary.
    ///
    /// `workingDirectory` (an absolute path) is the run's current directory as far as prefs
    /// reads one: the lookup of the project file (`.prefs.json`), where `set --project`
    /// creates one, a relative `--store`, and where the children of `exec`, `watch` and `edit`
    /// start; nil is the process's. Other relative file arguments (`import FILE`,
    /// `backup PATH`, …) are still opened against the process's.
    package static func run(
        _ arguments: [String], environment: [String: String], standardInput: [UInt8], workingDirectory: String? = nil
    ) -> Result {
        ProcessEnvironment.overridden.store(true, ordering: .relaxed)
        // Standard input from an unlinked temporary file: read at any pace, no pipe to fill.
        let input = CommandContext.unlinkedTemporaryFile()
        if input >= 0 {
            Output.writeAll(input, standardInput)
            lseek(input, 0, SEEK_SET)
        }
        defer { if input >= 0 { close(input) } }
        let context = CommandContext(standardInput: input, workingDirectory: workingDirectory)
        let status = ProcessEnvironment.$override.withValue(environment) {
            CommandContext.$current.withValue(context) { run(arguments) }
        }
        context.output.flush()
        return Result(status: status, standardOutput: context.output.captured, standardError: context.errors.contents)
    }
}
