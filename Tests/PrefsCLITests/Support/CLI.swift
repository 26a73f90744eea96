import Foundation
import PrefsCLI
import PrefsCore
import PrefsTestSupport
import Testing

/// What one run of the `prefs` binary produced.
struct RunResult: CustomStringConvertible {
    var stdout: String
    var stderr: String
    var status: Int32
    var description: String { "exit \(status), stdout \(stdout.debugDescription), stderr \(stderr.debugDescription)" }
}

/// A scratch directory with a store path and a private memory-tier directory; removed on deinit.
final class Sandbox: Sendable {
    let root: String
    let store: String
    let runtime: String
    /// Whether ``run(_:expecting:stdin:stdinBytes:store:environment:timeout:sourceLocation:)``
    /// and its kin run commands in this test process (``runInProcess(_:stdin:environment:workingDirectory:)``)
    /// rather than the binary.
    let inProcess: Bool

    /// Fails when the built `prefs` is missing (``binary``). With `inProcess`, commands run in
    /// this process (``runInProcess(_:stdin:environment:workingDirectory:)``), all but those that need a
    /// process of their own (``binaryOnly``): for suites that check what commands print, exit
    /// with and leave in the store. The contract (exit codes and bytes of the binary, signals,
    /// concurrency between processes, the start-up `get`) stays with binary suites.
    /// `PREFS_TEST_IN_PROCESS=0` runs every sandbox's commands in the binary (to compare).
    init(inProcess: Bool = false) throws {
        if case .failure(let missing) = Sandbox.binaryLocation { throw missing }
        self.inProcess = inProcess && ProcessInfo.processInfo.environment["PREFS_TEST_IN_PROCESS"] != "0"
        root = try makeTemporaryDirectory(prefix: "prefs-cli")
        store = root + "/store/prefs.db"
        runtime = root + "/runtime"
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: root)
    }

    /// The built binary, next to the test bundle (`PREFS_TEST_BINARY` names another, e.g. an
    /// older build, to see a new test fail against it). No other place is tried: a
    /// `.build/debug/prefs` elsewhere may be older than the tests.
    static var binary: String {
        noteBinaryUse()
        return switch binaryLocation {
        case .success(let path): path
        case .failure(let missing): missing.path
        }
    }

    /// With `PREFS_TEST_SPAWN_LOG=FILE`, appends the id of the test that asks for ``binary``
    /// (to spawn it) to FILE, one line each: `sort -u FILE | wc -l` counts the tests that run
    /// the binary.
    static func noteBinaryUse() {
        guard let log = spawnLog else { return }
        let line = Array(((Test.current.map { "\($0.id)" } ?? "(no test)") + "\n").utf8)
        let fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        guard fd >= 0 else { return }
        _ = line.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }

    private static let spawnLog = ProcessInfo.processInfo.environment["PREFS_TEST_SPAWN_LOG"].flatMap { $0.isEmpty ? nil : $0 }

    static let binaryLocation: Result<String, MissingBinary> = locateBinary(
        testBundle: CommandLine.arguments[0], environment: ProcessInfo.processInfo.environment)

    /// `PREFS_TEST_BINARY`, else the executable `prefs` in the test bundle's directory or up
    /// to three above it (where SwiftPM puts the products the tests depend on).
    static func locateBinary(testBundle: String, environment: [String: String]) -> Result<String, MissingBinary> {
        if let other = environment["PREFS_TEST_BINARY"], !other.isEmpty {
            return FileManager.default.isExecutableFile(atPath: other)
                ? .success(other) : .failure(MissingBinary(path: other, searched: ["PREFS_TEST_BINARY"]))
        }
        var url = URL(fileURLWithPath: testBundle).deletingLastPathComponent()
        var searched: [String] = []
        for _ in 0..<4 {
            let candidate = url.appendingPathComponent("prefs").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return .success(candidate) }
            searched.append(url.path)
            url = url.deletingLastPathComponent()
        }
        return .failure(MissingBinary(path: searched.first.map { $0 + "/prefs" } ?? "prefs", searched: searched))
    }

    /// Runs `prefs --store STORE ARGS...` (unless `store` is false) and expects exit 0: another
    /// status is recorded as an issue at the caller's line, with the output, and the test goes on.
    @discardableResult
    func runOK(
        _ arguments: [String], stdin: String? = nil, stdinBytes: [UInt8]? = nil, store useStore: Bool = true,
        environment extra: [String: String] = [:], timeout: Double = defaultChildTimeout, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> RunResult {
        try run(
            arguments, expecting: 0, stdin: stdin, stdinBytes: stdinBytes, store: useStore, environment: extra, timeout: timeout,
            sourceLocation: sourceLocation)
    }

    /// Runs `prefs --store STORE ARGS...` (unless `store` is false) and expects it to fail with
    /// `status` (not 0), as ``runOK(_:stdin:stdinBytes:store:environment:timeout:sourceLocation:)``.
    @discardableResult
    func runFailing(
        _ arguments: [String], status: Int32, stdin: String? = nil, stdinBytes: [UInt8]? = nil, store useStore: Bool = true,
        environment extra: [String: String] = [:], timeout: Double = defaultChildTimeout, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> RunResult {
        #expect(status != 0, "runFailing expects a failure status; use runOK", sourceLocation: sourceLocation)
        return try run(
            arguments, expecting: status, stdin: stdin, stdinBytes: stdinBytes, store: useStore, environment: extra, timeout: timeout,
            sourceLocation: sourceLocation)
    }

    /// Runs `prefs --store STORE ARGS...` (unless `store` is false) and expects exit `status`
    /// (for tables of cases; a literal status reads better as `runOK` / `runFailing`).
    @discardableResult
    func run(
        _ arguments: [String], expecting status: Int32, stdin: String? = nil, stdinBytes: [UInt8]? = nil, store useStore: Bool = true,
        environment extra: [String: String] = [:], timeout: Double = defaultChildTimeout, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> RunResult {
        let input = stdinBytes ?? stdin.map { Array($0.utf8) }
        let full = (useStore ? ["--store", store] : []) + arguments
        let result =
            inProcess && !Sandbox.needsBinary(arguments)
            ? Sandbox.runInProcess(full, stdin: input, environment: environment(extra))
            : try Sandbox.exec(
                Sandbox.binary, full, stdin: input, environment: environment(extra), timeout: timeout, sourceLocation: sourceLocation)
        #expect(
            result.status == status, "prefs \(arguments.joined(separator: " ")): expected exit \(status), got \(result)",
            sourceLocation: sourceLocation)
        return result
    }

    /// Runs `prefs --store STORE ARGS...` with `directory` as its working directory
    /// (project-file discovery starts there) and expects exit `status`: in process as
    /// ``run(_:expecting:stdin:stdinBytes:store:environment:timeout:sourceLocation:)`` runs it
    /// (the run's own working directory, ``PrefsCommandLine/run(_:environment:standardInput:workingDirectory:)``),
    /// else, or with `binary` (the start-up `get` path reads the process's), in the binary.
    @discardableResult
    func run(
        _ arguments: [String], in directory: String, expecting status: Int32, environment extra: [String: String] = [:],
        binary: Bool = false, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> RunResult {
        let full = ["--store", store] + arguments
        let result =
            inProcess && !binary && !Sandbox.needsBinary(arguments)
            ? Sandbox.runInProcess(full, stdin: nil, environment: environment(extra), workingDirectory: directory)
            : try Sandbox.exec(
                "/usr/bin/env", ["-C", directory, Sandbox.binary] + full, stdin: nil, environment: environment(extra),
                sourceLocation: sourceLocation)
        #expect(
            result.status == status, "prefs \(arguments.joined(separator: " ")) in \(directory): \(result)", sourceLocation: sourceLocation)
        return result
    }

    /// Arguments that make a command line run in the binary even in an in-process sandbox:
    /// commands that install signal handlers and follow the store until stopped (watch, serve,
    /// sync: a watch that ends by itself runs in process with ``BackgroundRun``), completion
    /// (the parser reads the shell from the process's environment). `backup`, `restore` and
    /// `batch` run in process without their signal handlers (`InterruptedCopyTests` and
    /// `BatchTests` signal the binary), `batch`'s progress lines from its flush thread going to
    /// the run's output; `edit` runs its editor, and `exec` its command (but one it restarts
    /// or signals, ``needsBinary(_:)``), with the run's standard streams, leaving the test's
    /// signals alone; `refresh` runs its async work on a thread of its own (`Blocking`), not
    /// the cooperative pool the tests block; help is as wide as the run's `COLUMNS`, else 80,
    /// as the binary's into a pipe.
    static let binaryOnly: Set<String> = [
        "watch", "serve", "sync", "---completion", "--generate-completion-script",
    ]

    /// Whether a command line runs in the binary even in an in-process sandbox: it has a
    /// ``binaryOnly`` word, or it is an `exec` that follows its domain (`--restart`,
    /// `--signal`: it runs until a signal stops it).
    static func needsBinary(_ arguments: [String]) -> Bool {
        if arguments.contains(where: binaryOnly.contains) { return true }
        let options = arguments.prefix { $0 != "--" }
        return options.contains("exec") && options.contains { $0 == "--restart" || $0 == "--signal" || $0.hasPrefix("--signal=") }
    }

    /// Runs `prefs ARGS...` in this process (``PrefsCommandLine/run(_:environment:standardInput:workingDirectory:)``)
    /// with `environment` as its whole environment and `workingDirectory` as its current
    /// directory (nil: the test process's).
    static func runInProcess(
        _ arguments: [String], stdin: [UInt8]?, environment: [String: String], workingDirectory: String? = nil
    ) -> RunResult {
        let result = PrefsCommandLine.run(
            arguments, environment: environment, standardInput: stdin ?? [], workingDirectory: workingDirectory)
        return RunResult(
            stdout: String(decoding: result.standardOutput, as: UTF8.self), stderr: String(decoding: result.standardError, as: UTF8.self),
            status: result.status)
    }

    /// A `prefs --store STORE ARGS...` process with the sandbox's environment, not started: for
    /// tests that drive its pipes or signals themselves.
    func process(_ arguments: [String], environment extra: [String: String] = [:]) -> SpawnedProcess {
        let process = SpawnedProcess()
        process.executableURL = URL(fileURLWithPath: Sandbox.binary)
        process.arguments = ["--store", store] + arguments
        process.environment = environment(extra)
        return process
    }

    func environment(_ extra: [String: String] = [:]) -> [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["XDG_RUNTIME_DIR"] = runtime
        env["XDG_DATA_HOME"] = root + "/data"
        env["HOME"] = root + "/home"
        env.removeValue(forKey: "PREFS_STORE")
        env["PREFS_SYSTEM_DIR"] = root + "/system"  // the machine's /etc/prefs stays out of the tests
        env.removeValue(forKey: "NO_COLOR")
        for key in env.keys where key.hasPrefix("PG") { env.removeValue(forKey: key) }  // no stray PGPASSWORD etc.
        for (k, v) in extra { env[k] = v }
        return env
    }

    /// Runs `path ARGS...` (``runChild(_:stdin:environment:timeout:)``: its own process group,
    /// no signal blocked) and waits; a child still running after `timeout` seconds is killed
    /// with its group and recorded as an issue at the caller's line.
    static func exec(
        _ path: String, _ arguments: [String], stdin: [UInt8]?, environment: [String: String], timeout: Double = defaultChildTimeout,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> RunResult {
        let child = try runChild([path] + arguments, stdin: stdin, environment: environment, timeout: timeout)
        var result = RunResult(
            stdout: String(decoding: child.stdout, as: UTF8.self), stderr: String(decoding: child.stderr, as: UTF8.self),
            status: child.status)
        if child.timedOut {
            result.stderr += "[killed with its process group after \(timeout) s]"
            Issue.record(
                "timed out after \(timeout) s, process group killed: \(([path] + arguments).joined(separator: " ")): \(result)",
                sourceLocation: sourceLocation)
        }
        return result
    }

    /// Dumps every table of the store file (for "unchanged" checks).
    func storeSnapshot() throws -> String {
        guard FileManager.default.fileExists(atPath: store) else { return "<no store>" }
        let queue = try DatabaseQueue(path: store)
        return try queue.read { db in
            var text = ""
            for table in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") {
                text += "[\(table)]\n"
                for row in try Row.fetchAll(db, sql: "SELECT * FROM \(table.quotedDatabaseIdentifier) ORDER BY 1") {
                    text += row.description + "\n"
                }
            }
            return text
        }
    }
}

/// Why there is no `prefs` to test: the tests never fall back to a binary that may be stale.
struct MissingBinary: Error, CustomStringConvertible {
    var path: String
    var searched: [String]
    var description: String {
        "the built prefs is missing (looked in \(searched.joined(separator: ", "))); build it with swift build --build-tests"
    }
}

/// Reads a pipe to its end on another thread.
final class ErrorCollector: @unchecked Sendable {
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) {
        Thread {
            self.data = handle.readDataToEndOfFile()
            self.done.signal()
        }.start()
    }

    func wait() -> Data {
        done.wait()
        return data
    }
}

/// Asserts a run failed with `status` and exactly one `prefs: ` line on stderr.
func expectFailure(
    _ result: RunResult, _ status: Int32, contains fragment: String? = nil, sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(result.status == status, "\(result)", sourceLocation: sourceLocation)
    #expect(result.stdout.isEmpty, "\(result)", sourceLocation: sourceLocation)
    #expect(result.stderr.hasPrefix("prefs: "), "\(result)", sourceLocation: sourceLocation)
    #expect(result.stderr.filter { $0 == "\n" }.count == 1 && result.stderr.hasSuffix("\n"), "\(result)", sourceLocation: sourceLocation)
    if let fragment {
        #expect(result.stderr.contains(fragment), "\(result)", sourceLocation: sourceLocation)
    }
}

/// A `prefs` process running in the background: its standard input stays open for writing,
/// its output is collected line by line.
final class Running {
    let process = SpawnedProcess()
    private let input = Pipe()
    let lines: LinesCollector
    private let errors: ErrorCollector

    /// Starts `prefs ARGS...` (the store option is the caller's to pass).
    init(_ arguments: [String], environment: [String: String], executable: String = Sandbox.binary) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        let output = Pipe()
        let error = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = error
        try process.run()
        lines = LinesCollector(output.fileHandleForReading)
        errors = ErrorCollector(error.fileHandleForReading)
    }

    func write(_ text: String) {
        signal(SIGPIPE, SIG_IGN)  // a child that ended early fails its test, not the runner
        try? input.fileHandleForWriting.write(contentsOf: Data(text.utf8))
    }

    /// Starts `prefs watch ARGS...` and waits until it has taken its starting point; returns
    /// it with the change-log sequence number it starts after.
    static func watch(_ arguments: [String], box: Sandbox, umask: Bool = false, environment extra: [String: String] = [:]) throws -> (
        Running, Int
    ) {
        let (running, ready) = try startWatch(arguments, box: box, umask: umask, environment: extra)
        guard let start = watchStart(ready) else {
            _ = running.finish(signal: SIGKILL)
            throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: ready])
        }
        return (running, start)
    }

    /// Starts `prefs watch ARGS...` without waiting; returns it with the file where it will
    /// write its starting point (read it with ``watchStart(_:)``).
    static func startWatch(_ arguments: [String], box: Sandbox, umask: Bool = false, environment extra: [String: String] = [:]) throws -> (
        Running, String
    ) {
        let ready = box.root + "/watch-ready-\(UInt32.random(in: 0...UInt32.max))"
        let environment = box.environment(extra.merging(["PREFS_TEST_WATCH_READY": ready]) { $1 })
        let running =
            umask
            ? try Running(
                ["-c", "umask 000; exec \"$0\" \"$@\"", Sandbox.binary] + arguments, environment: environment, executable: "/bin/sh")
            : try Running(arguments, environment: environment)
        return (running, ready)
    }

    /// The change-log sequence number a watcher started after; nil when it has not said so
    /// within 30 seconds, or once `running` says it no longer runs.
    static func watchStart(_ ready: String, running: () -> Bool = { true }) -> Int? {
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if let text = try? String(contentsOfFile: ready, encoding: .utf8), let start = Int(text) { return start }
            if !running() { return nil }
            usleep(5000)
        }
        return nil
    }

    /// Waits until at least `count` lines were printed; false after `timeout` seconds.
    func waitForLines(_ count: Int, timeout: Double = 20) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while lines.count < count {
            if Date() > deadline { return false }
            usleep(5000)
        }
        return true
    }

    /// Closes standard input (or sends `signal`), waits, and returns what the process printed.
    /// A process still running `timeout` seconds later is killed and recorded as an issue.
    func finish(
        signal: Int32? = nil, timeout: Double = defaultChildTimeout, sourceLocation: SourceLocation = #_sourceLocation
    ) -> RunResult {
        if let signal { kill(process.processIdentifier, signal) } else { try? input.fileHandleForWriting.close() }
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(2000) }
        if process.isRunning {
            kill(-process.processIdentifier, SIGKILL)  // with its process group (it leads one)
            Issue.record(
                "timed out after \(timeout) s, killed with its process group: \(process.arguments?.joined(separator: " ") ?? "")",
                sourceLocation: sourceLocation)
        }
        process.waitUntilExit()
        let out = lines.finish().map { $0 + "\n" }.joined()
        return RunResult(stdout: out, stderr: String(decoding: errors.wait(), as: UTF8.self), status: process.terminationStatus)
    }
}

/// Builds a store file from one of the frozen SQL fixtures (`Fixtures/schema-N.sql`), in WAL
/// mode as prefs made them.
func makeFixtureStore(_ name: String, at path: String) throws {
    let sql = try String(
        contentsOf: URL(fileURLWithPath: repositoryRoot + "/Tests/PrefsCLITests/Fixtures/\(name).sql"),
        encoding: .utf8)
    try FileManager.default.createDirectory(
        atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    let queue = try DatabaseQueue(path: path)
    try queue.writeWithoutTransaction { db in
        _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
        try db.execute(sql: sql)
    }
    try queue.close()
    guard chmod(path, 0o600) == 0 else { throw CocoaError(.fileWriteNoPermission) }
}
