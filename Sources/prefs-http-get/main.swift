// prefs-http-get URL TIMEOUT_SECONDS   (request headers on standard input, "Name: value" lines)
//
// The HTTP client `prefs refresh` runs, so that the `prefs` binary itself does not load
// Foundation's networking stack. Headers come on standard input so that secrets never show
// in the process list. Prints `STATUS`, `ETag: …`, `Last-Modified: …`, an empty line and the
// body to standard output; on failure one line on standard error and exit 7.
import Foundation
import PrefsCore
import PrefsRemote

// Take signals whatever mask the parent's spawning thread had.
var noSignals = sigset_t()
sigemptyset(&noSignals)
sigprocmask(SIG_SETMASK, &noSignals, nil)

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 2, let seconds = Double(arguments[1]) else {
    FileHandle.standardError.write(Data("prefs-http-get: usage: prefs-http-get URL TIMEOUT_SECONDS [NAME: VALUE]...\n".utf8))
    exit(2)
}
var headers: [String: String] = [:]
let headerLines = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self).split(separator: "\n")
for header in headerLines {
    let parts = header.split(separator: ":", maxSplits: 1)
    guard parts.count == 2 else { continue }
    headers[parts[0].trimmingCharacters(in: .whitespaces)] = parts[1].trimmingCharacters(in: .whitespaces)
}
// A whole-request deadline of our own, and no orphan outliving its `prefs`.
let parent = getppid()
DispatchQueue.global().asyncAfter(deadline: .now() + seconds + 1) {
    FileHandle.standardError.write(Data("timed out after \(seconds)s\n".utf8))
    exit(7)
}
Thread {
    while true {
        usleep(200_000)
        if getppid() != parent { exit(7) }
    }
}.start()
let semaphore = DispatchSemaphore(value: 0)
nonisolated(unsafe) var outcome: Result<HTTPResponse, any Error> = .failure(CancellationError())
let url = arguments[0]
let timeout = Duration.milliseconds(Int64(seconds * 1000))
let fetchHeaders = headers
Task.detached {
    do {
        outcome = .success(try await URLSessionFetcher().get(url, timeout: timeout, headers: fetchHeaders))
    } catch {
        outcome = .failure(error)
    }
    semaphore.signal()
}
semaphore.wait()
switch outcome {
case .success(let response):
    var head = "\(response.status)\n"
    if let etag = response.etag { head += "ETag: \(etag)\n" }
    if let lastModified = response.lastModified { head += "Last-Modified: \(lastModified)\n" }
    head += "\n"
    FileHandle.standardOutput.write(Data(head.utf8) + Data(response.body))
    exit(0)
case .failure(let error):
    let message = (error as? PrefsError)?.message ?? "\(error)"
    FileHandle.standardError.write(Data((message.replacingOccurrences(of: "\n", with: " ") + "\n").utf8))
    exit(7)
}
