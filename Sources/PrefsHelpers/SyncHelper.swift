import FoundationEssentials
import Glibc
import PrefsCore
import PrefsHelperConfiguration
import PrefsSync

/// `prefs-sync`, the PostgreSQL side of `prefs sync`, which execs this helper with its options
/// as one ``SyncConfiguration`` (PrefsHelperConfiguration) in the environment, so the `prefs`
/// binary never links libpq and stays static; run by hand it answers only `--version` and
/// `--help`.
///
/// Messages and exit codes are those of `prefs` (7: the remote is unreachable, local data
/// kept). A function rather than a program of its own: the helpers are one binary when
/// installed (`prefs-serve`, which runs this when called `prefs-sync`; docs/packaging.md).
package enum SyncHelper {
    /// Runs the helper with `arguments` (without the program name) and exits.
    package static func main(_ arguments: [String]) -> Never {
        let environment = ProcessInfo.processInfo.environment
        let invocation = Invocation(arguments, environment: environment)
        // Read once: nothing this process starts inherits it.
        unsetenv(SyncConfiguration.variable)
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
                let done = try stack.sync.compactRemote(horizonSeconds: horizon, timeout: invocation.timeout)
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
            let report = try stack.sync.run(domains: domains, timeout: invocation.timeout)
            try? FileIO.write(STDOUT_FILENO, (line(report) + "\n").utf8)
            try stack.close()
            exit(0)
        } catch let error as PrefsError {
            fail(error.message, error.exitCode)
        } catch {
            fail("\(error)", 7)
        }
    }

    /// prefs-sync's options: `prefs sync` hands them over as one ``SyncConfiguration`` (in the
    /// environment; nothing is parsed twice), read here with the helper's defaults.
    struct Invocation {
        var store: String?
        var actor: String?
        var domains: [Domain] = []
        var timeout: Duration = .seconds(30)
        var watch: Duration?
        var json = false
        var compact = false
        var horizon: Duration?

        /// Reads the configuration `prefs sync` left in `environment`; `arguments` may only ask
        /// for the version or the usage.
        init(_ arguments: [String], environment: [String: String]) {
            switch arguments.first {
            case nil: break
            case "--version":
                print("prefs-sync \(PrefsVersion.current)")
                exit(0)
            case "-h", "--help":
                print("usage: prefs sync [OPTIONS] (prefs-sync is run by 'prefs sync': see 'prefs sync --help')")
                exit(0)
            case let argument?: fail("unknown argument \(argument) (prefs-sync is run by 'prefs sync'; see 'prefs sync --help')", 2)
            }
            guard let text = environment[SyncConfiguration.variable] else {
                fail("prefs-sync is run by 'prefs sync' (see 'prefs sync --help')", 2)
            }
            let configuration: SyncConfiguration
            do {
                configuration = try SyncConfiguration(decoding: text)
            } catch {
                fail("prefs-sync cannot read the options prefs handed it (is it from the same version as prefs?): \(error)", 2)
            }
            if environment[SyncConfiguration.dumpVariable] != nil {
                print((try? configuration.encoded()) ?? "")
                exit(0)
            }
            store = configuration.store
            actor = configuration.actor
            do { domains = try configuration.domains.map { try Domain($0) } } catch let error as PrefsError {
                fail(error.message, error.exitCode)
            } catch {
                fail("\(error)", 2)
            }
            // `prefs sync` checked the durations (more than zero) and which options go together.
            if let duration = configuration.timeout { timeout = duration }
            watch = configuration.watch
            json = configuration.json
            compact = configuration.compact
            horizon = configuration.horizon
        }
    }
}

/// Writes `prefs: MESSAGE` on stderr, its control characters escaped (a message may carry a
/// sync peer's text), and exits.
func fail(_ message: String, _ code: Int32) -> Never {
    try? FileIO.write(STDERR_FILENO, "prefs: \(TerminalText.escapingControls(message))\n".utf8)
    exit(code)
}
