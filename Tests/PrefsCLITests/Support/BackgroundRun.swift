import Foundation
import PrefsTestSupport
import Synchronization
import Testing

/// A `prefs --store STORE ARGS...` command line running in the background until it ends by
/// itself (`watch --once`, a watch whose setting or store fails it, `exec` of a short command):
/// in this process on a thread of its own when the sandbox runs commands in process, else the
/// binary (``Running``).
final class BackgroundRun: @unchecked Sendable {  // `running` is used from the test's thread only
    private let running: Running?
    private let ended = DispatchSemaphore(value: 0)
    private let result = Mutex<RunResult?>(nil)
    private let arguments: [String]

    private init(_ arguments: [String], box: Sandbox, environment: [String: String]) throws {
        self.arguments = arguments
        let full = ["--store", box.store] + arguments
        guard box.inProcess else {
            running = try Running(full, environment: box.environment(environment))
            return
        }
        running = nil
        let variables = box.environment(environment)
        Thread { [self] in
            let outcome = Sandbox.runInProcess(full, stdin: nil, environment: variables)
            result.withLock { $0 = outcome }
            ended.signal()
        }.start()
    }

    /// Starts `prefs --store STORE ARGS...` (``Sandbox/inProcess`` says where).
    static func start(_ arguments: [String], box: Sandbox, environment: [String: String] = [:]) throws -> BackgroundRun {
        try BackgroundRun(arguments, box: box, environment: environment)
    }

    /// Starts `prefs --store STORE watch ...` and waits until it has taken its starting point
    /// (`PREFS_TEST_WATCH_READY`), at most 30 seconds; throws when it has not (its output is in
    /// the error).
    static func watch(_ arguments: [String], box: Sandbox, environment: [String: String] = [:]) throws -> BackgroundRun {
        let ready = box.root + "/watch-ready-\(UInt32.random(in: 0...UInt32.max))"
        let run = try BackgroundRun(arguments, box: box, environment: environment.merging(["PREFS_TEST_WATCH_READY": ready]) { $1 })
        if Running.watchStart(ready, running: { !run.hasEnded }) != nil { return run }
        let outcome = run.finish(timeout: 1)
        throw WatchDidNotStart(result: outcome)
    }

    /// Why ``watch(_:box:environment:)`` gave up.
    struct WatchDidNotStart: Error, CustomStringConvertible {
        var result: RunResult
        var description: String { "the watcher did not take its starting point: \(result)" }
    }

    private var hasEnded: Bool {
        if let running { return !running.process.isRunning }
        return result.withLock { $0 != nil }
    }

    /// Waits until it has ended by itself and returns what it printed and its exit status. One
    /// still running `timeout` seconds later is recorded as an issue: the binary is killed,
    /// a run in process is left to its thread (status -1).
    func finish(timeout: Double = defaultChildTimeout, sourceLocation: SourceLocation = #_sourceLocation) -> RunResult {
        if let running {
            let deadline = Date().addingTimeInterval(timeout)
            while running.process.isRunning && Date() < deadline { usleep(2000) }
            return running.finish(timeout: 0.1, sourceLocation: sourceLocation)
        }
        guard ended.wait(timeout: .now() + timeout) == .success else {
            Issue.record(
                "prefs \(arguments.joined(separator: " ")) still runs in process after \(timeout) s", sourceLocation: sourceLocation)
            return RunResult(stdout: "", stderr: "[still running after \(timeout) s]", status: -1)
        }
        ended.signal()  // a second finish answers too
        return result.withLock { $0 } ?? RunResult(stdout: "", stderr: "", status: -1)
    }
}
