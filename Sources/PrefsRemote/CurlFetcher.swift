import CPrefsCurl
import FoundationEssentials
import Glibc
import PrefsCore

/// An ``HTTPFetcher`` on libcurl, for `refresh`.
///
/// The body is decoded (gzip, deflate, br, zstd) as it arrives and the fetch stops as soon as
/// the decoded body, or the bytes received before decoding, pass ``maximumBodySize``; a
/// `Content-Length` over the limit is refused before the body is read. So a gzip bomb or an
/// endless body costs at most the limit in memory. A redirect is followed only to the same
/// scheme, host and port (at most 10), so headers such as Authorization never go to another
/// origin; any other redirect is answered as is (a 3xx, which `refresh` reports as a failure).
///
/// ```swift
/// import PrefsRemote
/// try await stack.refresher.refresh(.dynamic, from: "https://config.example.com/app.json", http: CurlFetcher())
/// ```
public struct CurlFetcher: HTTPFetcher {
    /// The largest body kept, in bytes (decoded, and as received).
    public var maximumBodySize: Int

    /// Creates a fetcher.
    public init(maximumBodySize: Int = Refresher.maximumDocumentSize) {
        self.maximumBodySize = maximumBodySize
    }

    /// Fetches `url`; blocks the calling thread for the transfer.
    ///
    /// - Throws: ``PrefsError`` of kind `unreachable`: timed out, connection refused, host
    ///   not found, a body over ``maximumBodySize``, or libcurl's own message.
    public func get(_ url: String, timeout: Duration, headers: [String: String]) async throws -> HTTPResponse {
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        let milliseconds = max(1, Int(seconds * 1000))
        guard let origin = URLComponents(string: url).map(Self.origin), origin.hasPrefix("http") else {
            throw PrefsError(.unreachable, "not a valid URL")
        }
        let lines = headers.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
        var target = url
        let started = ContinuousClock.now
        for _ in 0...10 {
            let left = milliseconds - Int((ContinuousClock.now - started).components.seconds * 1000)
            guard left > 0 else { throw PrefsError(.unreachable, "timed out after \(DurationText.seconds(seconds))") }
            let answer = try fetch(target, lines, timeoutMilliseconds: left, seconds: seconds)
            if (300..<400).contains(answer.status), let next = answer.redirect,
                URLComponents(string: next).map(Self.origin) == origin
            {
                target = next
                continue
            }
            return answer.response
        }
        throw PrefsError(.unreachable, "more than 10 redirects")
    }

    private func fetch(_ url: String, _ lines: [String], timeoutMilliseconds: Int, seconds: Double) throws -> (
        status: Int, redirect: String?, response: HTTPResponse
    ) {
        var response = prefs_http_response()
        let pointers = lines.map { strdup($0) }
        defer { for pointer in pointers { free(pointer) } }
        let started = pointers.map { UnsafePointer($0) }.withUnsafeBufferPointer { headers in
            prefs_http_get(url, headers.baseAddress, headers.count, timeoutMilliseconds, maximumBodySize, &response)
        }
        guard started == 0 else { throw PrefsError(.unreachable, "cannot start libcurl") }
        defer { prefs_http_response_free(&response) }
        let limit = "\(maximumBodySize / 1_048_576) MiB"
        func text(_ pointer: UnsafeMutablePointer<CChar>?) -> String? { pointer.map { String(cString: $0) } }
        switch response.over_limit {
        case 1:
            let decoded = text(response.content_encoding).map { " once decoded (Content-Encoding: \($0))" } ?? ""
            throw PrefsError(.unreachable, "the document is larger than \(limit)\(decoded); stopped reading at the limit")
        case 2: throw PrefsError(.unreachable, "the response is larger than \(limit) as received; stopped reading at the limit")
        case 3:
            throw PrefsError(
                .unreachable, "the document is larger than \(limit) (Content-Length \(response.content_length)); nothing read")
        default: break
        }
        if response.curl_code != 0 {
            switch response.curl_code {
            case 28: throw PrefsError(.unreachable, "timed out after \(DurationText.seconds(seconds))")
            case 7: throw PrefsError(.unreachable, "connection refused")
            case 6: throw PrefsError(.unreachable, "host not found")
            // CURLE_OUT_OF_MEMORY is also how libcurl before 8.6 refuses a header line over
            // its 100 KB limit (CURLE_TOO_LARGE since): name the likely cause.
            case 27, 100: throw PrefsError(.unreachable, "a response header is too large (libcurl accepts 100 KB per header)")
            default:
                let message = withUnsafeBytes(of: response.error) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                throw PrefsError(.unreachable, message)
            }
        }
        let body = response.body.map { Array(UnsafeBufferPointer(start: $0, count: response.body_length)) } ?? []
        return (
            response.status, text(response.redirect_url),
            HTTPResponse(
                status: response.status, etag: text(response.etag), lastModified: text(response.last_modified), body: body)
        )
    }

    /// Scheme, host and port, lowercased, with the scheme's default port.
    static func origin(_ components: URLComponents) -> String {
        let scheme = components.scheme?.lowercased() ?? ""
        let port = components.port ?? (scheme == "https" ? 443 : 80)
        return "\(scheme)://\(components.host?.lowercased() ?? ""):\(port)"
    }
}
