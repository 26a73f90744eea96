import PrefsCore

/// One HTTP request as the serving core sees it: no sockets, so tests build it by hand.
public struct ServeRequest: Sendable {
    /// GET, POST, …
    public var method: String
    /// The path, without the query (`/ofrep/v1/evaluate/flags/new-checkout`), still
    /// percent-encoded.
    public var path: String
    /// The query (after `?`), still percent-encoded; empty when none.
    public var query: String
    /// Header fields, names in lower case.
    public var headers: [String: String]
    /// The body (already bounded by ``ServeOptions/maximumBodyBytes``).
    public var body: [UInt8]

    /// A request.
    public init(method: String, path: String, query: String = "", headers: [String: String] = [:], body: [UInt8] = []) {
        self.method = method
        self.path = path
        self.query = query
        var lowered: [String: String] = [:]
        for (name, value) in headers { lowered[name.lowercased()] = value }
        self.headers = lowered
        self.body = body
    }

    /// A request from a target as sent on the wire (`/path?query`).
    public init(method: String, target: String, headers: [String: String] = [:], body: [UInt8] = []) {
        if let mark = target.firstIndex(of: "?") {
            self.init(
                method: method, path: String(target[..<mark]), query: String(target[target.index(after: mark)...]), headers: headers,
                body: body)
        } else {
            self.init(method: method, path: target, headers: headers, body: body)
        }
    }

    /// The query's parameters, percent-decoded (`+` is a space); the first of a repeated name wins.
    public var queryItems: [String: String] {
        var items: [String: String] = [:]
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = String(parts[0]).percentDecoded(plusIsSpace: true), items[name] == nil else { continue }
            items[name] = parts.count > 1 ? String(parts[1]).percentDecoded(plusIsSpace: true) ?? "" : ""
        }
        return items
    }
}
