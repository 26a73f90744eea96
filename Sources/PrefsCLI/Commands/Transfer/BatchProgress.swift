import ArgumentParser
import Dispatch
import Glibc
import PrefsCore
import Synchronization

/// Prints `{"flushed":N,"through":LINE}` after commits, from whichever thread flushed: to
/// the standard output and error of the command line that made it (an in-process run's too,
/// though a flush thread is not that run's task).
final class BatchProgress: Sendable {
    private struct State {
        var printed = 0
        var everPrinted = false
        var exiting = false
        var rejected = 0
        var writeFailure: Int32?
    }

    /// The `errno` of the first progress line that could not be written to standard output.
    var writeFailure: Int32? { state.withLock { $0.writeFailure } }

    /// How many queued increments flushes had to skip.
    var rejectedCount: Int { state.withLock { $0.rejected } }

    private let state = Mutex(State())
    /// The run's standard output and in-process run (nil in the binary), taken where the
    /// batch starts.
    private let output = Output.standard
    private let context = CommandContext.active

    /// The last `through` printed.
    var durableThrough: Int { state.withLock { $0.printed } }

    /// From now on a failed flush is reported by the exit, not as "will retry".
    func exiting() {
        state.withLock { $0.exiting = true }
    }

    func flushed(_ report: FlushReport) {
        for message in report.rejected { Output.error(message, context: context) }
        if !report.rejected.isEmpty { state.withLock { $0.rejected += report.rejected.count } }
        if let error = report.error {
            if !state.withLock({ $0.exiting }) { Output.error("flush failed, will retry: \(error.message)", context: context) }
            return
        }
        state.withLock { state in
            guard report.changes > 0 || report.marker > state.printed else { return }
            emit(&state, flushed: report.changes, through: max(report.marker, state.printed))
        }
    }

    /// Prints a final line when input lines became durable without a commit (blank lines,
    /// comments) or nothing was printed yet.
    func finish(marker: Int?) {
        state.withLock { state in
            if let marker, marker > state.printed {
                emit(&state, flushed: 0, through: marker)
            } else if !state.everPrinted {
                emit(&state, flushed: 0, through: state.printed)
            }
        }
    }

    private func emit(_ state: inout State, flushed: Int, through: Int) {
        let line = "{\"flushed\":\(flushed),\"through\":\(through)}\n"
        if let failure = output.writeImmediately(Array(line.utf8)), state.writeFailure == nil { state.writeFailure = failure }
        state.printed = through
        state.everPrinted = true
    }
}

/// On SIGINT/SIGTERM: flush what was read, print the last progress line, exit 130/143.
final class SignalDrain: Sendable {
    let stack: KeyValueStack
    let progress: BatchProgress
    /// The last input line whose command is queued (blank lines and comments included).
    private let queued = Atomic<Int>(0)

    func linesQueued(_ line: Int) {
        queued.store(line, ordering: .releasing)
    }
    nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []

    init(stack: KeyValueStack, progress: BatchProgress) {
        self.stack = stack
        self.progress = progress
    }

    func install() {
        let queue = DispatchQueue(label: "prefs.signals")
        for (number, code) in [(SIGINT, Int32(130)), (SIGTERM, Int32(143))] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { [self] in
                var status = code
                let line = queued.load(ordering: .acquiring)
                progress.exiting()
                do {
                    try stack.flushSynchronously()
                    progress.finish(marker: line)
                } catch {
                    stack.discardPendingWrites()
                    progress.finish(marker: nil)
                    Output.error("could not flush before exiting: \((error as? PrefsError)?.message ?? "\(error)")")
                    status = 4
                }
                exit(status)
            }
            source.resume()
            Self.sources.append(source)  // keep the sources alive; install() runs once, on the main thread
        }
    }
}
