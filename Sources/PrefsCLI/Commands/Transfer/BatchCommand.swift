import ArgumentParser
import Dispatch
import Glibc
import PrefsCore
import Synchronization

extension Prefs {
    struct BatchCommand: ParsableCommand {
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
            // The binary's: a run in a test's process leaves the test's signals alone (its
            // output is in memory, and a signal to the process is not one to the run).
            if CommandContext.active == nil {
                signals.install()
                signal(SIGPIPE, SIG_IGN)  // a reader of the progress lines that goes away must not stop the writes
            }

            // A short line's VALUE is typed by the schema as in `set` (a key the schema does not
            // name takes the parser's own fast path).
            let shortValue: (Domain, String, String) throws -> CompactJSON? = { domain, key, text in
                let schema = try stack.schema()  // the snapshot of the lines being read (below)
                guard schema.spec(in: domain, forKey: key) != nil else { return nil }
                return CompactJSON(try schema.value(fromText: text, in: domain, forKey: key))
            }
            let reader = LineReader(fd: standardInputDescriptor)
            var lineNumber = 0
            do {
                // The lines of one read of the input are checked against the schema as it is
                // when they arrive, read once for them (not once per line: that asked the
                // store whether another process had committed, a tenth of a batch's work).
                repeat {
                    do {
                        try stack.withSchemaSnapshot {
                            while let bytes = reader.nextBuffered() {
                                lineNumber += 1
                                do {
                                    try bytes.withUnsafeBufferPointer { try BatchLine.parse(utf8: $0, shortValue: shortValue) }?
                                        .apply(to: stack)
                                } catch let error as PrefsError {
                                    throw BatchFailure(line: lineNumber, error: error)
                                }
                                stack.setProgressMarker(lineNumber)
                                signals.linesQueued(lineNumber)
                            }
                        }
                    } catch let error as PrefsError {
                        throw BatchFailure(line: lineNumber + 1, error: error)  // the schema could not be read
                    }
                } while try reader.fill()
            } catch let failure as BatchFailure {
                try finalFlush(stack, progress: progress, through: failure.line - 1)
                let kind: PrefsError.Kind =
                    failure.error.kind == .cannotWrite || failure.error.kind == .storeUnreadable ? failure.error.kind : .invalidValue
                throw PrefsError(kind, "line \(failure.line): \(failure.error.message)")
            }
            try finalFlush(stack, progress: progress, through: lineNumber)
            if let failure = progress.writeFailure {
                // The lines were written to the store; the caller could not be told which.
                throw PrefsError(
                    .cannotWrite,
                    "cannot write standard output: \(String(cString: strerror(failure))) (the lines through \(progress.durableThrough) were written to the store)"
                )
            }
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

extension BatchLine {
    func apply(to stack: KeyValueStack) throws {
        switch self {
        case .set(let domain, let key, let value): try stack.set(value, in: domain, forKey: key)
        case .remove(let domain, let key): try stack.remove(in: domain, keys: [key])
        case .increment(let domain, let key, let delta): try stack.increment(in: domain, forKey: key, by: delta)
        }
    }
}
