import Glibc
import PrefsCore

/// The standard streams of a child that runs in the foreground (`prefs edit`'s editor, the
/// command of `exec` and of `watch --`): in
/// the binary, prefs's own; in process, the run's standard input, and standard output and
/// error in unlinked temporary files whose bytes ``collect()`` adds to the run's once the
/// child has ended (as the binary's caller would have read them).
final class ForegroundStreams {
    private let context: CommandContext?
    private let output: Int32
    private let error: Int32

    /// The streams of a command line run in process when one is under way on this task.
    init() {
        context = CommandContext.active
        output = context == nil ? -1 : CommandContext.unlinkedTemporaryFile()
        error = context == nil ? -1 : CommandContext.unlinkedTemporaryFile()
    }

    deinit {
        for fd in [output, error] where fd >= 0 { close(fd) }
    }

    /// The child's standard input.
    var standardInput: ChildProcess.Stream { context.map { .descriptor($0.standardInput) } ?? .inherit }
    /// The child's standard output.
    var standardOutput: ChildProcess.Stream { output >= 0 ? .descriptor(output) : .inherit }
    /// The child's standard error.
    var standardError: ChildProcess.Stream { error >= 0 ? .descriptor(error) : .inherit }

    /// Adds what the child wrote to the run's standard output and error (in process; nothing
    /// to do in the binary).
    func collect() {
        guard let context else { return }
        for (fd, append) in [(output, { context.output.write(bytes: $0) }), (error, { context.errors.append($0) })] where fd >= 0 {
            lseek(fd, 0, SEEK_SET)
            let bytes = (try? readAll(fd, expected: 0) { PrefsError(.cannotWrite, "cannot read what the child wrote (\($0))") }) ?? []
            append(bytes)
        }
    }
}
