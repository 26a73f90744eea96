import Foundation
import PrefsCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An ``HTTPFetcher`` on Foundation's URLSession (libcurl on Linux), for `refresh`.
///
/// ```swift
/// import PrefsRemote
/// try await stack.refresh(.dynamic, from: "https://config.example.com/app.json", http: URLSessionFetcher())
/// ```
public struct URLSessionFetcher: HTTPFetcher {
    /// Creates a fetcher.
    public init() {}

    /// Fetches `url` with an ephemeral session.
    ///
    /// - Throws: ``PrefsError`` of kind `unreachable`: timed out, connection refused, host
    ///   not found, or the transport's own message.
    public func get(_ url: String, timeout: Duration, headers: [String: String]) async throws -> HTTPResponse {
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        guard let target = URL(string: url) else { throw PrefsError(.unreachable, "not a valid URL") }
        var request = URLRequest(url: target, cachePolicy: .reloadIgnoringLocalAndRemoteCacheData, timeoutInterval: seconds)
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = seconds
        configuration.timeoutIntervalForResource = seconds
        configuration.requestCachePolicy = .reloadIgnoringLocalAndRemoteCacheData
        let session = URLSession(configuration: configuration, delegate: SameOriginRedirects(), delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: request)
        } catch let error as URLError {
            switch error.code {
            case .timedOut:
                let shown = seconds == seconds.rounded() ? "\(Int(seconds))s" : String(format: "%.1fs", seconds)
                throw PrefsError(.unreachable, "timed out after \(shown)")
            case .cannotConnectToHost: throw PrefsError(.unreachable, "connection refused")
            case .cannotFindHost, .dnsLookupFailed: throw PrefsError(.unreachable, "host not found")
            default: throw PrefsError(.unreachable, error.localizedDescription)
            }
        } catch {
            throw PrefsError(.unreachable, error.localizedDescription)
        }
        guard let http = response as? HTTPURLResponse else { throw PrefsError(.unreachable, "not an HTTP response") }
        return HTTPResponse(
            status: http.statusCode, etag: http.value(forHTTPHeaderField: "ETag"),
            lastModified: http.value(forHTTPHeaderField: "Last-Modified"),
            body: Array(data))
    }
}

/// Follows a redirect only to the same scheme, host and port, so headers such as
/// Authorization are never sent to another origin; any other redirect is answered as is
/// (a 3xx, which `refresh` reports as a failure).
final class SameOriginRedirects: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
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
