import ArgumentParser
import Dispatch
import FoundationEssentials
import Glibc
import PrefsCore
import Synchronization

extension Prefs {
    struct Refresh: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "refresh",
            abstract: "Refresh a server-fed domain from a URL or a file; keep the last good copy on failure.",
            discussion: """
                The document (an object of key → value; for switch also a flagd document) is checked \
                completely before the domain's content is replaced in one transaction. ETag and \
                Last-Modified are sent back; 304 changes nothing. On any failure the copy stays, stderr \
                names the cause and the copy's age, and the exit code is 7. The source is remembered: \
                'prefs refresh DOMAIN' reuses it. --status shows every source. A --header on the command \
                line is visible to other local users (ps, /proc): pass secrets with --header-file FILE \
                (or --header @FILE), remembered in the store like --header, or in \
                PREFS_REFRESH_HEADER_<NAME> variables ('_' becomes '-'), sent but never stored. A URL \
                with a password is refused. The body is limited to 64 MiB (decoded).
                """)

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The domain (dynamic, switch or another persistent one).", completion: Completions.domain)
        var domain: String?

        @Option(name: .customLong("from"), help: ArgumentHelp("An http(s) URL or a file.", valueName: "url|file"))
        var source: String?

        @Option(
            help: ArgumentHelp("Give up after this long, fetching, checking and applying included (default 5s).", valueName: "duration"))
        var timeout: TTLArgument?

        @Option(
            name: .customLong("header"),
            help: ArgumentHelp(
                "An HTTP header 'Name: value', or @FILE for the header lines of FILE (repeatable; visible to local users).",
                valueName: "header"))
        var headers: [String] = []

        @Option(
            name: .customLong("header-file"),
            help: ArgumentHelp("A file of 'Name: value' lines (blank and # lines skipped; repeatable).", valueName: "file"))
        var headerFiles: [String] = []

        @Option(help: ArgumentHelp("Do nothing when the copy is younger than this (e.g. 10m).", valueName: "duration"))
        var maxAge: TTLArgument?

        @Flag(help: "Show each domain's source, last success, last failure and copy age.")
        var status = false

        @Flag(help: "With --status: JSON Lines.")
        var json = false

        func validate() throws {
            if status && (domain != nil || source != nil) { throw ValidationError("--status takes no domain or --from") }
            if !status && domain == nil { throw ValidationError("Missing expected argument '<domain>'") }
            for header in headers where !header.hasPrefix("@") && !header.contains(":") {
                throw ValidationError("--header must look like 'Name: value' or @FILE")
            }
        }

        func run() throws {
            let stack = try global.openStack()
            if status {
                for entry in try stack.refreshStatus() {
                    if json {
                        Output.standard.write(entry.json + "\n")
                    } else {
                        func time(_ value: Int64?) -> String { value.map { ISOTime.format(milliseconds: $0) } ?? "-" }
                        let age = entry.copyAt.map { String(max(0, (WallClock.nowMilliseconds() - $0) / 1000)) + "s" } ?? "-"
                        Output.standard.write(
                            [
                                entry.domain.name, entry.source, time(entry.lastSuccessAt), time(entry.lastFailureAt),
                                entry.lastFailure ?? "-", age,
                            ]
                            .map(Output.escapingControls).joined(separator: "\t") + "\n")
                    }
                }
                return
            }
            let domain = try parseDomain(domain ?? "")
            var parsedHeaders: [String: String] = [:]
            for header in headers {
                if header.hasPrefix("@") {
                    try RequestHeaders.read(file: String(header.dropFirst()), into: &parsedHeaders)
                } else {
                    try RequestHeaders.add(line: header, from: "--header", into: &parsedHeaders)
                }
            }
            for file in headerFiles { try RequestHeaders.read(file: file, into: &parsedHeaders) }
            let source = self.source
            let timeout = self.timeout?.duration ?? .seconds(5)
            let maxAge = self.maxAge?.duration
            let requestHeaders = parsedHeaders
            let environmentHeaders = try RequestHeaders.fromEnvironment(ProcessEnvironment.current())
            let outcome = Blocking.run {
                try await stack.refresh(
                    domain, from: source, timeout: timeout, headers: requestHeaders, unrememberedHeaders: environmentHeaders,
                    maxAge: maxAge, http: HelperFetcher())
            }
            _ = try outcome.get()
        }
    }
}

/// Request headers for `refresh` from the command line, files and the environment. The
/// messages never repeat a header's value (it may be a secret).
enum RequestHeaders {
    /// The prefix of environment variables that carry headers: `PREFS_REFRESH_HEADER_X_API_KEY`
    /// sends `X-API-KEY`.
    static let environmentPrefix = "PREFS_REFRESH_HEADER_"

    static func add(line: String, from origin: String, into headers: inout [String: String]) throws {
        guard let colon = line.firstIndex(of: ":") else { throw PrefsError(.usage, "\(origin): expected 'Name: value'") }
        let name = line[..<colon].trimmingWhitespace()
        let value = line[line.index(after: colon)...].trimmingWhitespace()
        try set(name, value, from: origin, into: &headers)
    }

    static func set(_ name: String, _ value: String, from origin: String, into headers: inout [String: String]) throws {
        let token = Set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".utf8)
        guard !name.isEmpty, name.utf8.allSatisfy({ token.contains($0) }) else {
            throw PrefsError(.usage, "\(origin): not a valid header name")
        }
        guard value.unicodeScalars.allSatisfy({ $0 == "\t" || ($0.value >= 0x20 && $0.value != 0x7F) }) else {
            throw PrefsError(.usage, "\(origin): header \(name) has a control character in its value")
        }
        headers[name] = value
    }

    /// Reads `Name: value` lines; blank lines and lines starting with # are skipped.
    static func read(file path: String, into headers: inout [String: String]) throws {
        let fd: Int32
        do {
            fd = try FileIO.openForReading(path)
        } catch {
            throw PrefsError(.usage, "cannot read header file \(path): \(error.message)")
        }
        defer { FileIO.close(fd) }
        let data = (try? FileIO.read(fd, upTo: 65_537)) ?? []
        guard data.count <= 65_536 else { throw PrefsError(.usage, "header file \(path) is larger than 64 KiB") }
        // Split on bytes: as Characters, "\r\n" is one and would not split at "\n".
        for (number, raw) in data.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() {
            let line = String(decoding: raw.last == 0x0D ? raw.dropLast() : raw, as: UTF8.self)
            let trimmed = line.trimmingWhitespace()
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            try add(line: trimmed, from: "\(path) line \(number + 1)", into: &headers)
        }
    }

    /// Headers from `PREFS_REFRESH_HEADER_<NAME>` variables, `_` in NAME read as `-`.
    static func fromEnvironment(_ environment: [String: String]) throws -> [String: String] {
        var headers: [String: String] = [:]
        for (variable, value) in environment where variable.hasPrefix(environmentPrefix) {
            let name = String(variable.dropFirst(environmentPrefix.count)).replacingLiteral("_", with: "-")
            try set(name, value.trimmingWhitespace(), from: variable, into: &headers)
        }
        return headers
    }
}

/// Runs async work to completion from synchronous command code.
enum Blocking {
    static func run<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) -> Result<T, any Error> {
        let box = ResultBox<T>()
        let done = DispatchSemaphore(value: 0)
        Task {
            do { box.set(.success(try await work())) } catch { box.set(.failure(error)) }
            done.signal()
        }
        done.wait()
        return box.get()
    }

    final class ResultBox<T: Sendable>: @unchecked Sendable {
        private var result: Result<T, any Error>?
        private let lock = Mutex<Void>(())
        func set(_ value: Result<T, any Error>) { lock.withLock { _ in result = value } }
        func get() -> Result<T, any Error> { lock.withLock { _ in result ?? .failure(CancellationError()) } }
    }
}

/// Fetches over HTTP by running `prefs-http-get` (installed next to `prefs`), which keeps the
/// networking stack out of the `prefs` binary's start-up.
struct HelperFetcher: HTTPFetcher {
    static var helperPath: String? { Helper.path("prefs-http-get") }

    func get(_ url: String, timeout: Duration, headers: [String: String]) async throws -> HTTPResponse {
        guard let helper = Self.helperPath else {
            throw PrefsError(.unreachable, "prefs-http-get is not installed next to prefs or on PATH")
        }
        guard !url.contains(where: { $0.isNewline }) else { throw PrefsError(.unreachable, "not a valid URL") }
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        // Only the timeout on the command line: the URL and the headers (tokens) go on standard
        // input, out of other users' view.
        var child: ChildProcess
        do {
            child = try ChildProcess(
                [helper, String(seconds)], standardInput: .pipe, standardOutput: .pipe, standardError: .pipe,
                defaultSignals: ChildProcess.allSignals)
        } catch {
            throw PrefsError(.unreachable, "cannot run \(helper): \(error.message)")
        }
        let request = url + "\n" + headers.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)\n" }.joined()
        if let input = child.standardInput {
            // A helper that is gone before reading is reported by its exit status, not SIGPIPE.
            let previous = signal(SIGPIPE, SIG_IGN)
            try? FileIO.write(input, Array(request.utf8))
            signal(SIGPIPE, previous)
        }
        child.closeStandardInput()
        // The whole request gets the timeout (plus a little for start-up), however the server
        // drips its answer; then the helper is killed.
        let expired = TimeoutFlag()
        let pid = child.pid
        // The watchdog kills only a child that is not reaped yet: after waitpid its pid may
        // belong to another process.
        let reaped = Mutex(false)
        let watchdog = DispatchWorkItem {
            reaped.withLock { reaped in
                guard !reaped else { return }
                expired.set()
                kill(pid, SIGKILL)
            }
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds + 2, execute: watchdog)
        let collector = ErrorText(child.standardError ?? -1)
        // The helper stops at the document limit; reading stops there too whatever it sends.
        let cap = KeyValueStack.maximumDocumentSize + 65_536
        let output = child.standardOutput ?? -1
        let data = (try? FileIO.read(output, upTo: cap)) ?? []
        FileIO.close(output)
        let overflow = data.count >= cap
        if overflow { kill(pid, SIGKILL) }
        // Wait for the end without reaping (the pid stays the helper's), then reap.
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) != 0 && errno == EINTR {}
        reaped.withLock { $0 = true }
        watchdog.cancel()
        let termination = child.wait()
        if expired.isSet {
            throw PrefsError(.unreachable, "timed out after \(DurationText.seconds(seconds))")
        }
        if overflow {
            throw PrefsError(.unreachable, "the document is larger than \(KeyValueStack.maximumDocumentSize / 1_048_576) MiB")
        }
        guard termination == .exited(0) else {
            let message = collector.text.trimmingWhitespaceAndNewlines()
            throw PrefsError(.unreachable, message.isEmpty ? "HTTP client failed (status \(Self.terminationStatus(termination)))" : message)
        }
        let bytes = [UInt8](data)
        guard let split = bytes.indices.first(where: { $0 > 0 && bytes[$0] == 10 && bytes[$0 - 1] == 10 }) else {
            throw PrefsError(.unreachable, "malformed answer from prefs-http-get")
        }
        let head = String(decoding: bytes[..<split], as: UTF8.self).split(separator: "\n")
        guard let status = head.first.flatMap({ Int($0) }) else { throw PrefsError(.unreachable, "malformed answer from prefs-http-get") }
        var etag: String?
        var lastModified: String?
        for line in head.dropFirst() {
            if line.hasPrefix("ETag: ") { etag = String(line.dropFirst(6)) }
            if line.hasPrefix("Last-Modified: ") { lastModified = String(line.dropFirst(15)) }
        }
        return HTTPResponse(status: status, etag: etag, lastModified: lastModified, body: Array(bytes[(split + 1)...]))
    }

    /// The number Foundation's `Process.terminationStatus` gave: the exit status, or the
    /// signal that ended the helper.
    static func terminationStatus(_ termination: ChildProcess.Termination) -> Int32 {
        switch termination {
        case .exited(let code): code
        case .signaled(let signal): signal
        }
    }
}

/// Reads a pipe to its end on another thread, then closes it.
final class ErrorText: @unchecked Sendable {
    private var data: [UInt8] = []
    private let done = DispatchSemaphore(value: 0)

    init(_ fd: Int32) {
        DispatchQueue.global().async {
            self.data = (try? FileIO.readToEnd(fd)) ?? []
            FileIO.close(fd)
            self.done.signal()
        }
    }

    var text: String {
        done.wait()
        done.signal()
        return String(decoding: data, as: UTF8.self)
    }
}

final class TimeoutFlag: Sendable {
    private let value = Atomic<Bool>(false)
    func set() { value.store(true, ordering: .releasing) }
    var isSet: Bool { value.load(ordering: .acquiring) }
}
