import ArgumentParser
import Dispatch
import Glibc
import PrefsCore
import Synchronization

extension Prefs {
    struct Batch: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "batch",
            abstract: "Apply commands from standard input through the debounce write queue.",
            discussion: """
                One command per line, as JSON Lines — {"op":"set","domain":"user","key":"k","value":1}, \
                {"op":"rm","domain":"user","key":"k"}, {"op":"incr","domain":"user","key":"n","by":1} — \
                or short: set DOMAIN KEY VALUE... (VALUE is the rest of the line, typed as in 'set'), \
                rm DOMAIN KEY, incr DOMAIN KEY [N]. Blank lines and lines starting with # are skipped; a # after a value is part of the value. \
                Writes are coalesced by key and committed once per window in one transaction; after \
                each commit a line {"flushed":N,"through":LINE} says every input line up to LINE is \
                durable. At end of input the rest is flushed (exit 0). SIGINT/SIGTERM flush what was \
                read and exit 130/143. A malformed line stops the batch after flushing the lines \
                before it (exit 6).
                """)

        @OptionGroup var global: GlobalOptions

        @Option(help: ArgumentHelp("The debounce window: 1s, 250ms, 1ms, 2m (at least 1ms).", valueName: "duration"))
        var window: WindowDuration = WindowDuration(duration: .seconds(1))

        @Flag(help: "Skip the schema's checks (with a warning).")
        var force = false

        func run() throws {
            let progress = BatchProgress()
            var options = try global.stackOptions(force: force, window: window.duration)
            options.onFlush = { report in progress.flushed(report) }
            // Bulk input: larger transactions. One of more keys than the change log keeps
            // (10,000 by default) skips the records its own commit would prune.
            options.maximumPending = 50_000
            let stack = OpenStacks.add(try KeyValueStack(path: global.storePath, options: options))
            let signals = SignalDrain(stack: stack, progress: progress)
            signals.install()
            signal(SIGPIPE, SIG_IGN)  // a reader of the progress lines that goes away must not stop the writes

            let reader = LineReader(fd: 0)
            var lineNumber = 0
            do {
                while let bytes = try reader.next() {
                    lineNumber += 1
                    do {
                        try bytes.withUnsafeBufferPointer { try BatchLine.parse(utf8: $0) }?.apply(to: stack)
                    } catch let error as PrefsError {
                        throw BatchFailure(line: lineNumber, error: error)
                    }
                    stack.setProgressMarker(lineNumber)
                    signals.linesQueued(lineNumber)
                }
            } catch let failure as BatchFailure {
                try finalFlush(stack, progress: progress, through: failure.line - 1)
                let kind: PrefsError.Kind =
                    failure.error.kind == .cannotWrite || failure.error.kind == .storeUnreadable ? failure.error.kind : .invalidValue
                throw PrefsError(kind, "line \(failure.line): \(failure.error.message)")
            }
            try finalFlush(stack, progress: progress, through: lineNumber)
            if progress.rejectedCount > 0 {
                throw PrefsError(.invalidValue, "\(progress.rejectedCount) increment(s) were skipped: the value was no longer an integer")
            }
        }

        /// The last flush: on failure the rest is dropped (nothing is written after the
        /// failure is reported) and the error says which lines are not durable.
        private func finalFlush(_ stack: KeyValueStack, progress: BatchProgress, through line: Int) throws {
            progress.exiting()
            do {
                try stack.flushSynchronously()
            } catch let error as PrefsError {
                stack.discardPendingWrites()
                progress.finish(marker: nil)
                throw PrefsError(error.kind, "\(error.message); lines after \(progress.durableThrough) were not written")
            }
            progress.finish(marker: line)
        }
    }
}

struct BatchFailure: Error {
    var line: Int
    var error: PrefsError
}

/// `--window` values: a number with a unit (ms, s, m, h); a bare number is seconds.
struct WindowDuration: ExpressibleByArgument {
    var duration: Duration

    init(duration: Duration) {
        self.duration = duration
    }

    init?(argument: String) {
        guard let duration = parseDuration(argument), duration >= .milliseconds(1) else { return nil }
        self.duration = duration
    }

    var defaultValueDescription: String { "1s" }
}

/// Prints `{"flushed":N,"through":LINE}` after commits, from whichever thread flushed.
final class BatchProgress: Sendable {
    private struct State {
        var printed = 0
        var everPrinted = false
        var exiting = false
        var rejected = 0
    }

    /// How many queued increments flushes had to skip.
    var rejectedCount: Int { state.withLock { $0.rejected } }

    private let state = Mutex(State())

    /// The last `through` printed.
    var durableThrough: Int { state.withLock { $0.printed } }

    /// From now on a failed flush is reported by the exit, not as "will retry".
    func exiting() {
        state.withLock { $0.exiting = true }
    }

    func flushed(_ report: FlushReport) {
        for message in report.rejected { Output.error(message) }
        if !report.rejected.isEmpty { state.withLock { $0.rejected += report.rejected.count } }
        if let error = report.error {
            if !state.withLock({ $0.exiting }) { Output.error("flush failed, will retry: \(error.message)") }
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
        Output.writeAll(1, Array(line.utf8))
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

/// Reads lines from a file descriptor without holding the whole input.
final class LineReader {
    private let fd: Int32
    private var buffer: [UInt8] = []
    /// Where reads land, allocated once.
    private var chunk = [UInt8](repeating: 0, count: 1 << 16)
    private var start = 0
    private var atEnd = false

    init(fd: Int32) {
        self.fd = fd
    }

    /// The next line's bytes without its newline (and a trailing CR), or nil at end of input.
    func next() throws -> ArraySlice<UInt8>? {
        while true {
            let from = start
            let found = buffer.withUnsafeBufferPointer { bytes -> Int? in
                guard from < bytes.count, let base = bytes.baseAddress, let hit = memchr(base + from, 0x0A, bytes.count - from) else {
                    return nil
                }
                return UnsafeRawPointer(hit) - UnsafeRawPointer(base)
            }
            if let newline = found {
                var end = newline
                if end > start && buffer[end - 1] == UInt8(ascii: "\r") { end -= 1 }
                let line = buffer[start..<end]
                start = newline + 1
                return line
            }
            if atEnd {
                guard start < buffer.count else { return nil }
                let line = buffer[start...]
                start = buffer.count
                return line
            }
            if start > 0 {
                buffer.removeSubrange(0..<start)
                start = 0
            }
            let descriptor = fd
            let n = chunk.withUnsafeMutableBytes { readRetrying(descriptor, $0) }
            if n < 0 { throw PrefsError(.usage, "cannot read standard input: \(String(cString: strerror(errno)))") }
            if n == 0 { atEnd = true } else { buffer.append(contentsOf: chunk[0..<n]) }
        }
    }

}

extension BatchLine {
    func apply(to stack: KeyValueStack) throws {
        switch self {
        case .set(let domain, let key, let value): try stack.set(value, in: domain, forKey: key)
        case .remove(let domain, let key): try stack.remove(in: domain, keys: [key])
        case .increment(let domain, let key, let delta): try stack.increment(in: domain, forKey: key, by: delta)
        }
    }
}
