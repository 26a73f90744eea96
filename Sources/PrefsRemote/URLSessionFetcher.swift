import Foundation
import PrefsCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An ``HTTPFetcher`` on Foundation's URLSession (libcurl on Linux), for `refresh`.
///
/// The body is streamed with a running limit: the fetch stops as soon as it holds more than
/// ``maximumBodySize`` bytes. On Linux, FoundationNetworking always asks libcurl to decode
/// `Content-Encoding` (gzip, deflate, br, zstd) as the bytes arrive, so the limit counts the
/// decoded bytes; a `Content-Length` over the limit is refused before any byte is read. A
/// compressed stream that decodes to nothing is bounded by the timeout.
///
/// ```swift
/// import PrefsRemote
/// try await stack.refresh(.dynamic, from: "https://config.example.com/app.json", http: URLSessionFetcher())
/// ```
public struct URLSessionFetcher: HTTPFetcher {
    /// The largest body kept, in bytes (after decoding).
    public var maximumBodySize: Int

    /// Creates a fetcher.
    public init(maximumBodySize: Int = KeyValueStack.maximumDocumentSize) {
        self.maximumBodySize = maximumBodySize
    }

    /// Fetches `url` with an ephemeral session.
    ///
    /// - Throws: ``PrefsError`` of kind `unreachable`: timed out, connection refused, host
    ///   not found, a body over ``maximumBodySize``, or the transport's own message.
    public func get(_ url: String, timeout: Duration, headers: [String: String]) async throws -> HTTPResponse {
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        guard let target = URL(string: url) else { throw PrefsError(.unreachable, "not a valid URL") }
        var request = URLRequest(url: target, cachePolicy: .reloadIgnoringLocalAndRemoteCacheData, timeoutInterval: seconds)
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = seconds
        configuration.timeoutIntervalForResource = seconds
        configuration.requestCachePolicy = .reloadIgnoringLocalAndRemoteCacheData
        let collector = BoundedBody(limit: maximumBodySize)
        let session = URLSession(configuration: configuration, delegate: collector, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        let (data, response) = try await withCheckedThrowingContinuation { continuation in
            collector.start(session.dataTask(with: request), continuation)
        }
        guard let http = response as? HTTPURLResponse else { throw PrefsError(.unreachable, "not an HTTP response") }
        return HTTPResponse(
            status: http.statusCode, etag: http.value(forHTTPHeaderField: "ETag"),
            lastModified: http.value(forHTTPHeaderField: "Last-Modified"), body: data)
    }

    static func failure(_ error: any Error, seconds: Double) -> PrefsError {
        guard let error = error as? URLError else { return PrefsError(.unreachable, error.localizedDescription) }
        switch error.code {
        case .timedOut:
            let shown = seconds == seconds.rounded() ? "\(Int(seconds))s" : String(format: "%.1fs", seconds)
            return PrefsError(.unreachable, "timed out after \(shown)")
        case .cannotConnectToHost: return PrefsError(.unreachable, "connection refused")
        case .cannotFindHost, .dnsLookupFailed: return PrefsError(.unreachable, "host not found")
        default: return PrefsError(.unreachable, error.localizedDescription)
        }
    }
}

/// Collects a data task's body up to a limit and cancels the task past it; follows a
/// redirect only to the same scheme, host and port, so headers such as Authorization are
/// never sent to another origin (any other redirect is answered as is: a 3xx, which
/// `refresh` reports as a failure).
final class BoundedBody: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    typealias Outcome = CheckedContinuation<([UInt8], URLResponse), any Error>

    private let limit: Int
    private let lock = NSLock()
    private var body: [UInt8] = []
    private var response: URLResponse?
    private var continuation: Outcome?
    private var overLimit: String?
    private var seconds: Double = 0

    init(limit: Int) {
        self.limit = limit
    }

    func start(_ task: URLSessionDataTask, _ continuation: Outcome) {
        lock.withLock {
            self.continuation = continuation
            seconds = task.originalRequest?.timeoutInterval ?? 0
        }
        task.resume()
    }

    private var limitText: String { "\(limit / 1_048_576) MiB" }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        let declared = response.expectedContentLength
        let refuse = lock.withLock { () -> Bool in
            self.response = response
            if declared > Int64(limit) {
                overLimit = "the document is larger than \(limitText) (Content-Length \(declared)); nothing read"
                return true
            }
            return false
        }
        completionHandler(refuse ? .cancel : .allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let stop = lock.withLock { () -> Bool in
            guard overLimit == nil, continuation != nil else { return false }
            guard body.count + data.count <= limit else {
                let encoding = (response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Encoding")
                let decoded = encoding.map { " once decoded (Content-Encoding: \($0))" } ?? ""
                overLimit = "the document is larger than \(limitText)\(decoded); stopped reading at the limit"
                body = []
                return true
            }
            body.append(contentsOf: data)
            return false
        }
        if stop { dataTask.cancel() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let (continuation, result) = lock.withLock { () -> (Outcome?, Result<([UInt8], URLResponse), any Error>) in
            let continuation = self.continuation
            self.continuation = nil
            if let overLimit { return (continuation, .failure(PrefsError(.unreachable, overLimit))) }
            if let error { return (continuation, .failure(URLSessionFetcher.failure(error, seconds: seconds))) }
            guard let response else { return (continuation, .failure(PrefsError(.unreachable, "no response"))) }
            let body = self.body
            self.body = []
            return (continuation, .success((body, response)))
        }
        continuation?.resume(with: result)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest,
        completionHandler: @escaping (URLRequest?) -> Void
    ) {
        let from = task.originalRequest?.url
        let to = request.url
        let same =
            from?.scheme?.lowercased() == to?.scheme?.lowercased() && from?.host?.lowercased() == to?.host?.lowercased()
            && from?.port == to?.port
        completionHandler(same ? request : nil)
    }
}
