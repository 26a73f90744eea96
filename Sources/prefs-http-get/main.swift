// prefs-http-get URL TIMEOUT_SECONDS [NAME: VALUE]...
//
// The HTTP client `prefs refresh` runs, so that the `prefs` binary itself does not load
// Foundation's networking stack. Prints `STATUS`, `ETag: …`, `Last-Modified: …`, an empty
// line and the body to standard output; on failure one line on standard error and exit 7.
import Foundation
import PrefsCore
import PrefsRemote

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 2, let seconds = Double(arguments[1]) else {
    FileHandle.standardError.write(Data("prefs-http-get: usage: prefs-http-get URL TIMEOUT_SECONDS [NAME: VALUE]...\n".utf8))
    exit(2)
}
var headers: [String: String] = [:]
for header in arguments.dropFirst(2) {
    let parts = header.split(separator: ":", maxSplits: 1)
    guard parts.count == 2 else { continue }
    headers[parts[0].trimmingCharacters(in: .whitespaces)] = parts[1].trimmingCharacters(in: .whitespaces)
}
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
