import ArgumentParser
import Dispatch
import FoundationEssentials
import Glibc
import PrefsCore
import Synchronization

extension Prefs {
    struct WatchCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "watch",
            abstract: "Print every change made by any process as it is committed.",
            discussion: """
                One line per change, in commit order: OP<TAB>DOMAIN<TAB>KEY<TAB>NEW (NEW as JSON, - \
                for removals), or a JSON object with --json (no new member for removals). After -- a \
                command runs for each change, without a shell, with PREFS_EVENT, PREFS_DOMAIN, PREFS_KEY \
                and PREFS_VALUE (JSON; unset for removals) in its environment. SIGINT/SIGTERM end it with \
                exit 0; a running command (in a process group of its own) gets the signal and is killed \
                (SIGKILL) if it has not ended 5 s later. Changes of the memory domain are \
                not watched. Another process's change is seen within milliseconds (inotify on the \
                store's directory; PREFS_WATCH=poll reads the log every 100 ms instead, as where \
                inotify is unavailable); nothing runs while nothing changes.
                """)

        @OptionGroup var global: GlobalOptions

        @Argument(help: "Only this domain.", completion: Completions.domain)
        var domain: String?

        @Argument(help: "Only this key.", completion: Completions.key)
        var key: String?

        @Option(parsing: .unconditional, help: ArgumentHelp("Only keys that start with this text.", valueName: "prefix"))
        var prefix: String?

        @Flag(help: "Print one JSON object per change.")
        var json = false

        @Flag(help: "Exit after the first change.")
        var once = false

        @Argument(parsing: .postTerminator, help: ArgumentHelp("A command to run for each change (after --).", valueName: "command"))
        var command: [String] = []

        func run() throws {
            let filter = LogFilter(domain: try domain.map(parseDomain), key: key, prefix: prefix)
            if let key { try KeyName.validate(key) }
            let stack = try global.openStack()
            // The binary's: a command line run in process (tests) leaves the process's signals
            // alone; it ends by itself (--once, or when the store goes away).
            for number in [SIGINT, SIGTERM] where CommandContext.active == nil {
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
                source.setEventHandler {
                    // A command that is running gets the signal and a bounded time to finish its
                    // change; then it is killed.
                    let child = WatchSignals.child.load(ordering: .acquiring)
                    if child > 0 { WatchSignals.stop(child, signal: number) }
                    Glibc.exit(0)
                }
                source.resume()
                WatchSignals.keep(source)
            }
            // The monitor first: a commit after the poller's starting point wakes it.
            let monitor = try stack.changeMonitor()
            var poller = try LogPoller(stack, filter: filter)
            #if DEBUG
                // Tests learn where a watcher starts (instead of sleeping and hoping).
                if let ready = ProcessEnvironment.value("PREFS_TEST_WATCH_READY") {
                    try PrivateFile.write(Array(String(poller.position).utf8), to: ready, purpose: "watch ready file")
                }
            #endif
            while true {
                let page = try poller.poll()
                for record in page.records {
                    try emit(record)
                    if once { return }
                }
                if page.caughtUp { _ = monitor.wait() }
            }
        }

        /// Prints a change (and runs the command); throws exit 4 when standard output cannot
        /// be written: a watcher nobody reads ends instead of running hooks forever.
        private func emit(_ record: LogRecord) throws {
            let out = Output.standard
            if json {
                out.write(record.json + "\n")
            } else {
                out.write(
                    [record.op, record.domain.name, record.key, record.new ?? "-"].map(TerminalText.escapingControls).joined(
                        separator: "\t")
                        + "\n")
            }
            out.flush()
            try out.checkWritten()
            guard let executable = command.first else { return }
            var environment = ProcessEnvironment.current()
            environment["PREFS_EVENT"] = record.op
            environment["PREFS_DOMAIN"] = record.domain.name
            environment["PREFS_KEY"] = record.key
            environment["PREFS_VALUE"] = record.new  // unset for a removal
            // Found on PATH as `exec` and `edit` find theirs; in a process group of its own (a
            // signal that stops watch reaches whatever it started too), every signal at its
            // default, only standard input, output and error open (in process, the run's:
            // what it prints is the run's once it has ended).
            let streams = ForegroundStreams()
            let pid: pid_t
            do {
                pid = try ChildProcess(
                    command, environment: environment, standardInput: streams.standardInput, standardOutput: streams.standardOutput,
                    standardError: streams.standardError, defaultSignals: ChildProcess.allSignals, newProcessGroup: true,
                    directory: CommandContext.runDirectory
                )
                .pid
            } catch {
                Output.error("cannot run \(executable): \(error.message)")
                return
            }
            let signalled = CommandContext.active == nil  // the binary's handlers stop it
            if signalled { WatchSignals.child.store(pid, ordering: .releasing) }
            var status: Int32 = 0
            var reaped = waitpid(pid, &status, 0)
            while reaped < 0 && errno == EINTR { reaped = waitpid(pid, &status, 0) }
            if signalled { WatchSignals.child.store(0, ordering: .releasing) }
            streams.collect()
            // Reaped by a signal handler stopping watch: it exits now.
            guard reaped == pid else { return }
            if status & 0x7F != 0 {
                Output.error("\(executable) ended by signal \(status & 0x7F) for \(record.domain.name)/\(record.key)")
            } else if (status >> 8) & 0xFF != 0 {
                Output.error("\(executable) exited with status \((status >> 8) & 0xFF) for \(record.domain.name)/\(record.key)")
            }
        }
    }
}

/// Keeps signal sources alive for the life of the process.
enum WatchSignals {
    /// The command running for the current change (0 when none).
    static let child = Atomic<Int32>(0)
    nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []
    static func keep(_ source: any DispatchSourceSignal) { sources.append(source) }

    /// How long a command gets to end after the forwarded signal before it is killed.
    static let grace: Duration = .seconds(5)

    /// Forwards `signal` to the command's process group, waits up to ``grace`` for the
    /// command to end, then sends SIGKILL to the group and waits for the command.
    static func stop(_ child: pid_t, signal number: Int32) {
        let target = -child
        kill(target, number)
        let deadline = ContinuousClock.now + grace
        var status: Int32 = 0
        while ContinuousClock.now < deadline {
            let reaped = waitpid(child, &status, WNOHANG)
            // Reaped here, or already by the main thread (ECHILD): gone.
            if reaped == child || (reaped < 0 && errno == ECHILD) { return }
            usleep(20_000)
        }
        kill(target, SIGKILL)
        waitpid(child, &status, 0)
    }
}
