// prefs-sync [--store PATH] [--actor NAME] sync [DOMAIN...] [--timeout DURATION] [--watch SECONDS] [--json]
// prefs-sync --version
//
// The PostgreSQL side of `prefs sync`, which execs this helper with its own global options
// and arguments, so the `prefs` binary never loads SwiftNIO and PostgresNIO. Messages and
// exit codes are those of `prefs` (7: the remote is unreachable, local data kept).
import Dispatch
import Foundation
import PrefsCore
import PrefsSync

func fail(_ message: String, _ code: Int32) -> Never {
    FileHandle.standardError.write(Data("prefs: \(message)\n".utf8))
    exit(code)
}

/// Durations in prefs's one grammar (``DurationText``).
func parseDuration(_ text: String) -> Duration? {
    DurationText.parse(text)
}

struct Invocation {
    var store: String?
    var actor: String?
    var domains: [Domain] = []
    var timeout: Duration = .seconds(30)
    var watch: Duration?
    var json = false

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
            case "--timeout":
                guard let duration = parseDuration(value(argument)), duration > .zero else {
                    fail("--timeout: expected a duration like 10s", 2)
                }
                timeout = duration
            case "--watch":
                guard let duration = parseDuration(value(argument)), duration > .zero else { fail("--watch: expected seconds like 30", 2) }
                watch = duration
            case "sync" where !sawCommand: sawCommand = true
            case "--version":
                print("prefs-sync \(PrefsVersion.current)")
                exit(0)
            case "-h", "--help":
                print("usage: prefs-sync [--store PATH] [--actor NAME] sync [DOMAIN...] [--timeout DURATION] [--watch SECONDS] [--json]")
                exit(0)
            default:
                if argument.hasPrefix("-") { fail("unknown option \(argument) (see 'prefs sync --help')", 2) }
                guard sawCommand else { fail("unknown command \(argument) (prefs-sync runs 'sync')", 2) }
                do { domains.append(try Domain(argument)) } catch let error as PrefsError { fail(error.message, error.exitCode) } catch {
                    fail("\(error)", 2)
                }
            }
            index += 1
        }
        if !sawCommand { fail("missing command: prefs-sync [--store PATH] sync [DOMAIN...]", 2) }
    }
}

let invocation = Invocation(Array(CommandLine.arguments.dropFirst()))
let environment = ProcessInfo.processInfo.environment
var options = KeyValueStack.Options(memoryTier: .shared, environment: environment)
options.actor = invocation.actor
let stack: KeyValueStack
do {
    if let seconds = try KeyValueStack.Options.busyTimeoutFromEnvironment(environment) { options.busyTimeout = seconds }
    stack = try KeyValueStack(path: StoreLocation.resolve(explicit: invocation.store, environment: environment), options: options)
} catch let error as PrefsError {
    fail(error.message, error.exitCode)
}

func line(_ report: SyncReport) -> String {
    invocation.json
        ? report.json
        : "pulled \(report.pulled) (applied \(report.applied)\(report.skipped > 0 ? ", skipped \(report.skipped) invalid" : "")), "
            + "pushed \(report.pushed), pending \(report.pending)"
}

let domains = invocation.domains.isEmpty ? nil : Set(invocation.domains)

if let interval = invocation.watch {
    // Keep syncing until SIGINT/SIGTERM (exit 0); a failed round is reported and retried.
    let signalSources = [SIGINT, SIGTERM].map { signalNumber in
        signal(signalNumber, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .main)
        source.setEventHandler { exit(0) }
        source.resume()
        return source
    }
    Task {
        while true {
            do {
                let report = try await stack.sync(domains: domains, timeout: invocation.timeout, environment: environment)
                FileHandle.standardOutput.write(Data((line(report) + "\n").utf8))
            } catch let error as PrefsError {
                FileHandle.standardError.write(Data("prefs: \(error.message)\n".utf8))
                if error.kind != .unreachable { exit(error.exitCode) }
            }
            try? await Task.sleep(for: interval)
        }
    }
    withExtendedLifetime(signalSources) { dispatchMain() }
}

Task {
    do {
        let report = try await stack.sync(domains: domains, timeout: invocation.timeout, environment: environment)
        FileHandle.standardOutput.write(Data((line(report) + "\n").utf8))
        try stack.close()
        exit(0)
    } catch let error as PrefsError {
        fail(error.message, error.exitCode)
    } catch {
        fail("\(error)", 7)
    }
}
dispatchMain()
