import FoundationEssentials
import Glibc
import PrefsCore
import PrefsSync

/// `prefs-sync`, the PostgreSQL side of `prefs sync`, which execs this helper with its own
/// global options and arguments, so the `prefs` binary never links libpq and stays static:
///
///     prefs-sync [--store PATH] [--actor NAME] sync [DOMAIN...] [--timeout DURATION] [--watch SECONDS] [--json]
///     prefs-sync [--store PATH] sync --compact [--horizon DURATION] [--json]
///     prefs-sync --version
///
/// Messages and exit codes are those of `prefs` (7: the remote is unreachable, local data
/// kept). A function rather than a program of its own: the helpers are one binary when
/// installed (`prefs-serve`, which runs this when called `prefs-sync`; docs/packaging.md).
package enum SyncHelper {
    /// Runs the helper with `arguments` (without the program name) and exits.
    package static func main(_ arguments: [String]) -> Never {
        let invocation = Invocation(arguments)
        let environment = ProcessInfo.processInfo.environment
        let stack: KeyValueStack
        do {
            var options = try KeyValueStack.Options.commandLine(environment: environment)
            options.actor = invocation.actor
            stack = try KeyValueStack(path: StoreLocation.resolve(explicit: invocation.store, environment: environment), options: options)
        } catch let error as PrefsError {
            fail(error.message, error.exitCode)
        } catch {
            fail("\(error)", 1)
        }

        func line(_ report: SyncReport) -> String {
            invocation.json
                ? report.json
                : "pulled \(report.pulled) (applied \(report.applied)\(report.skipped > 0 ? ", skipped \(report.skipped) invalid" : "")), "
                    + "pushed \(report.pushed), pending \(report.pending)"
        }

        let domains = invocation.domains.isEmpty ? nil : Set(invocation.domains)

        if invocation.compact {
            do {
                let horizon = invocation.horizon.map { max(1, $0.components.seconds) }
                let done = try stack.compactRemote(horizonSeconds: horizon, timeout: invocation.timeout)
                print(
                    invocation.json
                        ? #"{"operations":\#(done.operations),"tombstones":\#(done.tombstones),"through":\#(done.through),"horizonSeconds":\#(done.horizonSeconds),"remaining":\#(done.remaining)}"#
                        : "compacted \(done.operations) operation\(done.operations == 1 ? "" : "s") and \(done.tombstones) tombstone\(done.tombstones == 1 ? "" : "s") "
                            + "(horizon \(done.horizonSeconds)s), \(done.remaining) left in the log")
                try stack.close()
                exit(0)
            } catch let error as PrefsError {
                fail(error.message, error.exitCode)
            } catch {
                fail("\(error)", 7)
            }
        }

        if let interval = invocation.watch {
            // SIGINT/SIGTERM end the watch at once with exit 0: the server rolls back a transaction
            // in flight, the local store's transactions are atomic. (_exit: async-signal-safe.)
            // A parent may have spawned this process with them blocked (Foundation's Process does).
            var unblock = sigset_t()
            sigemptyset(&unblock)
            for signalNumber in [SIGINT, SIGTERM] {
                signal(signalNumber) { _ in _exit(0) }
                sigaddset(&unblock, signalNumber)
            }
            sigprocmask(SIG_UNBLOCK, &unblock, nil)
            let monitor: StoreChangeMonitor
            do {
                monitor = try stack.changeMonitor()
            } catch let error as PrefsError {
                fail(error.message, error.exitCode)
            } catch {
                fail("\(error)", 1)
            }
            Watcher(stack: stack, monitor: monitor, domains: domains, fallback: interval, timeout: invocation.timeout, print: line).run()
        }

        do {
            let report = try stack.sync(domains: domains, timeout: invocation.timeout)
            try? FileIO.write(STDOUT_FILENO, (line(report) + "\n").utf8)
            try stack.close()
            exit(0)
        } catch let error as PrefsError {
            fail(error.message, error.exitCode)
        } catch {
            fail("\(error)", 7)
        }
    }

    struct Invocation {
        var store: String?
        var actor: String?
        var domains: [Domain] = []
        var timeout: Duration = .seconds(30)
        var watch: Duration?
        var json = false
        var compact = false
        var horizon: Duration?

        init(_ arguments: [String]) {
            var index = 0
            var sawCommand = false
            func value(_ name: String) -> String {
                index += 1
                guard index < arguments.count else { fail("\(name) needs a value (see 'prefs sync --help')", 2) }
                return arguments[index]
            }
            while index < arguments.count {
                let argument = arguments[index]
                switch argument {
                case "--store": store = value(argument)
                case "--actor": actor = value(argument)
                case "--json": json = true
                case "--compact": compact = true
                case "--horizon":
                    guard let duration = parseDuration(value(argument)), duration > .zero else {
                        fail("--horizon: expected a duration like 7d", 2)
                    }
                    horizon = duration
                case "--timeout":
                    guard let duration = parseDuration(value(argument)), duration > .zero else {
                        fail("--timeout: expected a duration like 10s", 2)
                    }
                    timeout = duration
                case "--watch":
                    guard let duration = parseDuration(value(argument)), duration > .zero else {
                        fail("--watch: expected seconds like 30", 2)
                    }
                    watch = duration
                case "sync" where !sawCommand: sawCommand = true
                case "--version":
                    print("prefs-sync \(PrefsVersion.current)")
                    exit(0)
                case "-h", "--help":
                    print(
                        "usage: prefs-sync [--store PATH] [--actor NAME] sync [DOMAIN...] [--timeout DURATION] [--watch SECONDS] [--compact [--horizon DURATION]] [--json]"
                    )
                    exit(0)
                default:
                    if argument.hasPrefix("-") { fail("unknown option \(argument) (see 'prefs sync --help')", 2) }
                    guard sawCommand else { fail("unknown command \(argument) (prefs-sync runs 'sync')", 2) }
                    do {
                        domains.append(try Domain(argument))
                    } catch let error as PrefsError {
                        fail(error.message, error.exitCode)
                    } catch {
                        fail("\(error)", 2)
                    }
                }
                index += 1
            }
            if !sawCommand { fail("missing command: prefs-sync [--store PATH] sync [DOMAIN...]", 2) }
        }
    }
}

/// Writes `prefs: MESSAGE` on stderr, its control characters escaped (a message may carry a
/// sync peer's text), and exits.
func fail(_ message: String, _ code: Int32) -> Never {
    try? FileIO.write(STDERR_FILENO, "prefs: \(TerminalText.escapingControls(message))\n".utf8)
    exit(code)
}

/// Durations in prefs's one grammar (``DurationText``).
func parseDuration(_ text: String) -> Duration? {
    DurationText.parse(text)
}
