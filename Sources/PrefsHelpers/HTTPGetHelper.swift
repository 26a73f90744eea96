import Dispatch
import Glibc
import PrefsCore
import PrefsRemote

/// `prefs-http-get`, the HTTP client `prefs refresh` runs, so that the `prefs` binary itself
/// does not link libcurl:
///
///     prefs-http-get TIMEOUT_SECONDS   (the URL, then request headers, on standard input)
///     prefs-http-get --version
///
/// The URL (its first line) and the headers ("Name: value" lines) come on standard input so
/// that tokens in either never show in the process list. Prints `STATUS`, `ETag: …`,
/// `Last-Modified: …`, an empty line and the body (at most
/// `Refresher.maximumDocumentSize` bytes, decoded; the download stops there) to standard
/// output; on failure one line on standard error and exit 7.
///
/// A function rather than a program of its own: the helpers are one binary when installed
/// (`prefs-serve`, which runs this when called `prefs-http-get`; docs/packaging.md).
package enum HTTPGetHelper {
    /// Runs the helper with `arguments` (without the program name) and exits.
    package static func main(_ arguments: [String]) -> Never {
        // Take signals whatever mask the parent's spawning thread had.
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        sigprocmask(SIG_SETMASK, &noSignals, nil)

        if arguments == ["--version"] {
            print("prefs-http-get \(PrefsVersion.current)")
            exit(0)
        }
        guard arguments.count == 1, let seconds = Double(arguments[0]), seconds > 0, seconds < 1e6 else {
            writeError("prefs-http-get: usage: prefs-http-get TIMEOUT_SECONDS < URL-and-header-lines\n")
            exit(2)
        }
        // The request is small: a URL and some headers; more than 1 MiB is not one.
        let input = (try? FileIO.read(STDIN_FILENO, upTo: 1_048_577)) ?? []
        guard input.count <= 1_048_576 else {
            writeError("the request (URL and headers) is larger than 1 MiB\n")
            exit(7)
        }
        var inputLines = String(decoding: input, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        let url = inputLines.isEmpty ? "" : String(inputLines.removeFirst())
        var headers: [String: String] = [:]
        for header in inputLines {
            let parts = header.split(separator: ":", maxSplits: 1)
            guard parts.count == 2 else { continue }
            headers[parts[0].trimmingWhitespace()] = parts[1].trimmingWhitespace()
        }
        // A whole-request deadline of our own, and no orphan outliving its `prefs`.
        let parent = getppid()
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds + 1) {
            writeError("timed out after \(seconds)s\n")
            exit(7)
        }
        let parentCheck = DispatchSource.makeTimerSource(queue: .global())
        parentCheck.schedule(deadline: .now() + .milliseconds(200), repeating: .milliseconds(200))
        parentCheck.setEventHandler { @Sendable in
            if getppid() != parent { exit(7) }
        }
        parentCheck.resume()
        let semaphore = DispatchSemaphore(value: 0)
        let outcome = Outcome()
        let timeout = Duration.milliseconds(Int64(seconds * 1000))
        let fetchHeaders = headers
        Task.detached {
            do {
                outcome.result = .success(try await CurlFetcher().get(url, timeout: timeout, headers: fetchHeaders))
            } catch {
                outcome.result = .failure(error)
            }
            semaphore.signal()
        }
        semaphore.wait()
        switch outcome.result {
        case .success(let response):
            var head = "\(response.status)\n"
            if let etag = response.etag { head += "ETag: \(etag)\n" }
            if let lastModified = response.lastModified { head += "Last-Modified: \(lastModified)\n" }
            head += "\n"
            try? FileIO.write(STDOUT_FILENO, Array(head.utf8) + response.body)
            exit(0)
        case .failure(let error):
            let message = (error as? PrefsError)?.message ?? "\(error)"
            writeError(message.replacingLiteral("\n", with: " ") + "\n")
            exit(7)
        }
    }

    private static func writeError(_ text: String) {
        try? FileIO.write(STDERR_FILENO, text.utf8)
    }

    /// The fetch's result, written by its task before the semaphore is signalled and read
    /// after the wait.
    private final class Outcome: @unchecked Sendable {
        var result: Result<HTTPResponse, any Error> = .failure(CancellationError())
    }
}
