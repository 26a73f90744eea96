import ArgumentParser
import Dispatch
import FoundationEssentials
import Glibc
import PrefsCore
import Synchronization

extension Prefs {
    struct ExecCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "exec",
            abstract: "Run a command with a domain's values in its environment.",
            discussion: """
                Every key of DOMAIN becomes a variable NAME=value as 'export --format env' names it, with the \
                same checks (a refused key is exit 6 and nothing runs). The command is found on PATH and run \
                without a shell; prefs exits with its exit status, 128+N when signal N ended it, 127 when it \
                cannot be found and 126 when it cannot be run. SIGTERM, SIGHUP, SIGUSR1 and SIGUSR2 are passed \
                on to the command; SIGINT and SIGQUIT reach it from the terminal and prefs ignores them. With \
                --restart the command is stopped (SIGTERM, SIGKILL 10 s later) and started again with the new \
                values whenever the domain's variables change; with --signal SIG it gets SIG instead (it then \
                reads the values itself: its environment cannot change). Changes are seen as 'prefs watch' sees \
                them (inotify on the store's directory).
                """)

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The domain whose keys become variables.", completion: Completions.domain)
        var domain: String

        @Option(help: ArgumentHelp("Start every NAME with this ([A-Z_][A-Z0-9_]*).", valueName: "prefix"))
        var namePrefix: String?

        @Flag(help: "Stop and start the command again with the new values when they change.")
        var restart = false

        @Option(help: ArgumentHelp("Send this signal (HUP, USR1, ... or a number) when the values change.", valueName: "signal"))
        var signal: String?

        @Argument(parsing: .postTerminator, help: ArgumentHelp("The command and its arguments (after --).", valueName: "command"))
        var command: [String] = []

        func validate() throws {
            if command.isEmpty { throw ValidationError("Missing the command: prefs exec DOMAIN -- COMMAND [ARGUMENT...]") }
            if let namePrefix, let problem = ExportCommand.namePrefixProblem(namePrefix) { throw ValidationError(problem) }
            if restart && signal != nil { throw ValidationError("--restart and --signal cannot be used together") }
            if let signal, ExecSupervisor.signalNumber(signal) == nil {
                throw ValidationError("--signal must be a signal name such as HUP or USR1, or a number from 1 to 64")
            }
        }

        func run() throws {
            let domain = try parseDomain(domain)
            let stack = try global.openStack()
            try requireExisting([domain], in: stack)
            let follow = restart || signal != nil
            // The follower starts before the values are read: a change in between is seen.
            let monitor = follow ? try stack.changeMonitor() : nil
            let poller = follow ? try LogPoller(stack, filter: LogFilter(domain: domain)) : nil
            var values = try Self.environment(stack, domain, namePrefix: namePrefix)
            var supervisor = ExecSupervisor(command: command)
            try supervisor.start(values)
            guard let monitor, var poller else { throw supervisor.waitForExit() }
            #if DEBUG
                // Tests learn where the follower starts (instead of sleeping and hoping).
                if let ready = ProcessEnvironment.value("PREFS_TEST_WATCH_READY") {
                    try PrivateFile.write(Array(String(poller.position).utf8), to: ready, purpose: "exec ready file")
                }
            #endif
            while true {
                let page = try poller.poll()
                if !page.records.isEmpty {
                    let next: [String: String]
                    do {
                        next = try Self.environment(stack, domain, namePrefix: namePrefix)
                    } catch let error as PrefsError where error.kind == .invalidValue {
                        // A value export refuses: the command keeps running with the values it has.
                        Output.error("warning: \(error.message); the command keeps the values it has")
                        next = values
                    }
                    if next != values {
                        values = next
                        if let signal, let number = ExecSupervisor.signalNumber(signal) {
                            supervisor.send(number)
                        } else if let ended = supervisor.restart(values) {
                            throw ended
                        }
                    }
                }
                if page.caughtUp, monitor.wait(orReadable: supervisor.endedDescriptor) == .readable {
                    throw supervisor.waitForExit()
                }
            }
        }

        /// The variables `export --format env` would set (its checks and names), as a dictionary.
        static func environment(_ stack: KeyValueStack, _ domain: Domain, namePrefix: String?) throws -> [String: String] {
            var values: [String: String] = [:]
            for variable in try ExportCommand.variables(stack, domain, namePrefix: namePrefix, effective: false) {
                values[variable.name] = variable.text
            }
            return values
        }
    }
}

/// The command `prefs exec` runs: started with prefs's environment and a domain's variables,
/// waited for on a thread of its own (which writes a byte to a pipe when it ends, so the
/// change follower can wait for a change or the end at once), signals passed on.
///
/// In the binary, prefs ignores SIGINT and SIGQUIT and passes SIGTERM, SIGHUP, SIGUSR1 and
/// SIGUSR2 on to the command. A command line run in process (tests) leaves the process's
/// signals alone and gives the command the run's standard streams
/// (``ForegroundStreams``: what it prints is the run's once it has ended).
struct ExecSupervisor {
    let command: [String]
    /// The running command and how the last one ended: this run's own (several run at once
    /// in process); the binary's signal handlers read it.
    private let state = State()
    nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []
    private let ended: (read: Int32, write: Int32)
    /// The running command's standard streams.
    private var streams = ForegroundStreams()

    /// The running command (0 when none), the `waitpid` status of the one that ended last,
    /// and a signal to pass on that came while no command ran (between a start and its
    /// process id being known, or a stop and the next start).
    private final class State: Sendable {
        let child = Atomic<Int32>(0)
        let status = Atomic<Int32>(0)
        let pending = Atomic<Int32>(0)

        /// Passes `number` on to the running command, or to the next one to start: exactly
        /// once, whichever of the handler and ``started(_:)`` takes it from ``pending``.
        func pass(_ number: Int32) {
            pending.store(number, ordering: .sequentiallyConsistent)
            let pid = child.load(ordering: .sequentiallyConsistent)
            if pid > 0, pending.exchange(0, ordering: .sequentiallyConsistent) == number { kill(pid, number) }
        }

        /// Records the command started as `pid` and passes on a signal that came before.
        func started(_ pid: Int32) {
            child.store(pid, ordering: .sequentiallyConsistent)
            let missed = pending.exchange(0, ordering: .sequentiallyConsistent)
            if missed > 0 { kill(pid, missed) }
        }
    }

    init(command: [String]) {
        self.command = command
        var fds: [Int32] = [-1, -1]
        if pipe(&fds) == 0 { for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) } }
        ended = (fds[0], fds[1])
        guard CommandContext.active == nil else { return }
        for number in [SIGINT, SIGQUIT] { Glibc.signal(number, SIG_IGN) }
        let state = state
        for number in [SIGTERM, SIGHUP, SIGUSR1, SIGUSR2] {
            Glibc.signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { state.pass(number) }
            source.resume()
            Self.sources.append(source)
        }
    }

    /// Readable once the running command has ended.
    var endedDescriptor: Int32 { ended.read }

    /// Starts the command with `values` added to prefs's environment.
    ///
    /// - Throws: `ExitCode` 127 (not found) or 126 (cannot run), after saying why.
    mutating func start(_ values: [String: String]) throws {
        let environment = ProcessEnvironment.current().merging(values) { $1 }
        streams = ForegroundStreams()
        let child: ChildProcess
        do {
            child = try ChildProcess(
                command, environment: environment, standardInput: streams.standardInput, standardOutput: streams.standardOutput,
                standardError: streams.standardError, defaultSignals: ChildProcess.allSignals, directory: CommandContext.runDirectory)
        } catch {
            Output.error("cannot run \(command[0]): \(String(cString: strerror(error.code)))")
            throw ExitCode(error.code == ENOENT ? 127 : 126)
        }
        let pid = child.pid
        let state = state
        state.started(pid)
        let write = ended.write
        DispatchQueue.global().async {
            var raw: Int32 = 0
            while waitpid(pid, &raw, 0) < 0 && errno == EINTR {}
            state.status.store(raw, ordering: .releasing)
            var byte: UInt8 = 1
            _ = Glibc.write(write, &byte, 1)
        }
    }

    /// Waits for the running command to end; its exit status as prefs's (128+N for signal N).
    func waitForExit() -> ExitCode {
        var byte: UInt8 = 0
        while read(ended.read, &byte, 1) < 0 && errno == EINTR {}
        state.child.store(0, ordering: .releasing)
        streams.collect()
        switch ChildProcess.Termination(status: state.status.load(ordering: .acquiring)) {
        case .exited(let code): return ExitCode(code)
        case .signaled(let number): return ExitCode(128 + number)
        }
    }

    /// Sends `number` to the running command.
    func send(_ number: Int32) {
        let pid = state.child.load(ordering: .acquiring)
        if pid > 0 { kill(pid, number) }
    }

    /// Stops the running command (SIGTERM, SIGKILL after 10 s) and starts it again with
    /// `values`. Returns the exit status to end with when it cannot be started again.
    mutating func restart(_ values: [String: String]) -> ExitCode? {
        let pid = state.child.load(ordering: .acquiring)
        if pid > 0 {
            kill(pid, SIGTERM)
            var descriptor = [pollfd(fd: ended.read, events: Int16(POLLIN), revents: 0)]
            if poll(&descriptor, 1, 10_000) == 0 { kill(pid, SIGKILL) }
            _ = waitForExit()
        }
        do {
            try start(values)
            return nil
        } catch let exit as ExitCode {
            return exit
        } catch {
            return ExitCode(126)
        }
    }

    /// `HUP`, `SIGHUP`, `hup` or `1` → 1; nil for anything else.
    static func signalNumber(_ text: String) -> Int32? {
        if let number = Int32(text) { return (1...64).contains(number) ? number : nil }
        var name = text.uppercased()
        if name.hasPrefix("SIG") { name.removeFirst(3) }
        let names: [String: Int32] = [
            "HUP": SIGHUP, "INT": SIGINT, "QUIT": SIGQUIT, "TERM": SIGTERM, "USR1": SIGUSR1, "USR2": SIGUSR2, "KILL": SIGKILL,
            "ALRM": SIGALRM, "WINCH": SIGWINCH, "CONT": SIGCONT, "STOP": SIGSTOP,
        ]
        return names[name]
    }
}
