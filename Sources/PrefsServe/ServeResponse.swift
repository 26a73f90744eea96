/// One HTTP response of the serving core.
public struct ServeResponse: Sendable, Equatable {
    /// The status code.
    public var status: Int
    /// Header fields in order (`Content-Type`, `ETag`, …).
    public var headers: [(name: String, value: String)]
    /// The body.
    public var body: [UInt8]

    /// A response.
    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON response.
    public static func json(_ status: Int, _ text: String, headers: [(name: String, value: String)] = []) -> ServeResponse {
        ServeResponse(status: status, headers: [("Content-Type", "application/json")] + headers, body: Array(text.utf8))
    }

    /// This response with `Cache-Control: no-store` unless it says how to cache already: an
    /// evaluation, the store's data or an error is never to be kept by a cache or a browser.
    public var notStored: ServeResponse {
        guard header("Cache-Control") == nil else { return self }
        var copy = self
        copy.headers.append(("Cache-Control", "no-store"))
        return copy
    }

    /// The body as text.
    public var text: String { String(decoding: body, as: UTF8.self) }

    /// The first value of a header field (name compared without case).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    public static func == (lhs: ServeResponse, rhs: ServeResponse) -> Bool {
        lhs.status == rhs.status && lhs.body == rhs.body && lhs.headers.map(\.name) == rhs.headers.map(\.name)
            && lhs.headers.map(\.value) == rhs.headers.map(\.value)
    }
}
