import ArgumentParser
import Dispatch
import FoundationEssentials
import Glibc
import PrefsCore
import Synchronization

/// Runs async work to completion from synchronous command code.
enum Blocking {
    /// The work runs on a thread of its own (``ThreadExecutor``), never on Swift's cooperative
    /// pool: a caller that blocks a thread of that pool (a test running commands in process)
    /// cannot starve it.
    static func run<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) -> Result<T, any Error> {
        let box = ResultBox<T>()
        let done = DispatchSemaphore(value: 0)
        Task(executorPreference: ThreadExecutor()) {
            do { box.set(.success(try await work())) } catch { box.set(.failure(error)) }
            done.signal()
        }
        done.wait()
        return box.get()
    }

    /// Runs the jobs of the tasks that prefer it one at a time on a serial dispatch queue
    /// (its own thread, not one of the cooperative pool's).
    final class ThreadExecutor: TaskExecutor {
        private let queue = DispatchQueue(label: "prefs.blocking")

        func enqueue(_ job: consuming ExecutorJob) {
            let job = UnownedJob(job)
            let executor = asUnownedTaskExecutor()
            queue.async { job.runSynchronously(on: executor) }
        }
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
            // (In a test's process it stays ignored: another run may be writing to its helper.)
            let previous = signal(SIGPIPE, SIG_IGN)
            try? FileIO.write(input, Array(request.utf8))
            if CommandContext.active == nil { signal(SIGPIPE, previous) }
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
        let cap = Refresher.maximumDocumentSize + 65_536
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
            throw PrefsError(.unreachable, "the document is larger than \(Refresher.maximumDocumentSize / 1_048_576) MiB")
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
