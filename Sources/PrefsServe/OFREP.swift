import PrefsCore

/// The OpenFeature Remote Evaluation Protocol's JSON shapes and status codes.
public enum OFREP {
    /// The path of the OFREP event stream (server-sent events) that bulk answers advertise.
    public static let eventStreamPath = "/ofrep/v1/events"

    /// One flag's answer: the status code and the JSON object (success or failure).
    public static func evaluation(_ key: String, _ resolution: FlagResolution) -> (status: Int, body: JSONValue) {
        if let code = resolution.errorCode {
            let details = resolution.errorMessage ?? code
            switch code {
            case "FLAG_NOT_FOUND": return (404, failure(key, code, details))
            case "PARSE_ERROR", "TARGETING_KEY_MISSING", "INVALID_CONTEXT": return (400, failure(key, code, details))
            default: return (400, failure(key, "GENERAL", details))
            }
        }
        var members: [JSONValue.Member] = [.init("key", .string(key))]
        // No variant and the caller's default would apply (DISABLED, DEFAULT without a
        // default variant): no value (OFREP's codeDefaultFlag), so the provider answers its
        // code default.
        let givesValue = resolution.variant != nil || resolution.reason == "STATIC" || resolution.reason == "TARGETING_MATCH"
        if givesValue { members.append(.init("value", resolution.value)) }
        members.append(.init("reason", .string(resolution.reason)))
        // OFREP's `variant` is a string, and openfeature-provider-ofrep 0.3.0 (Python) reads it
        // in every success (`data["variant"]`; without it the SDK answers ERROR, GENERAL). An
        // answer with no variant (DISABLED, DEFAULT without a default variant) says so with "",
        // never null (not a string) and never without the member (docs/serve.md).
        members.append(.init("variant", .string(resolution.variant ?? "")))
        members.append(.init("metadata", .object(resolution.metadata)))
        return (200, .object(members))
    }

    /// A failure object: `{"key","errorCode","errorDetails"}`.
    public static func failure(_ key: String?, _ code: String, _ details: String) -> JSONValue {
        var members: [JSONValue.Member] = []
        if let key { members.append(.init("key", .string(key))) }
        members.append(.init("errorCode", .string(code)))
        members.append(.init("errorDetails", .string(details)))
        return .object(members)
    }

    /// A failure without a flag (401, 413, 500…): `{"errorDetails": …}`.
    public static func problem(_ details: String) -> String {
        JSONValue.object([.init("errorDetails", .string(details))]).compactText
    }

    /// The `eventStreams` member of a bulk answer: the server's SSE stream at the address the
    /// request was sent to (its `Host`); nil without a `Host` or with one that is not a plain
    /// `name[:port]` or `[v6]:port` (the client chose that text: only a valid authority goes back).
    public static func eventStreams(host: String?) -> JSONValue? {
        guard let host, isAuthority(host) else { return nil }
        return .array([.object([.init("type", .string("sse")), .init("url", .string("http://" + host + eventStreamPath))])])
    }

    /// `name`, `name:port` or `[v6]`, `[v6]:port`: letters, digits, `.` and `-` in a name, hex
    /// digits, `:` and `.` inside brackets, a port of 1 to 65535; at most 261 bytes.
    static func isAuthority(_ host: String) -> Bool {
        let bytes = Array(host.utf8)
        guard !bytes.isEmpty, bytes.count <= 261 else { return false }
        func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }
        func isLetter(_ byte: UInt8) -> Bool { (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) }
        var rest = bytes[...]
        if rest.first == UInt8(ascii: "[") {
            guard let close = rest.firstIndex(of: UInt8(ascii: "]")), close > rest.startIndex + 1 else { return false }
            let inside = rest[(rest.startIndex + 1)..<close]
            guard
                inside.allSatisfy({
                    isDigit($0) || isLetter($0) && (0x61...0x66).contains($0 | 0x20) || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".")
                })
            else { return false }
            rest = rest[(close + 1)...]
        } else {
            let end = rest.firstIndex(of: UInt8(ascii: ":")) ?? rest.endIndex
            let name = rest[..<end]
            guard !name.isEmpty, name.allSatisfy({ isDigit($0) || isLetter($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-") })
            else { return false }
            rest = rest[end...]
        }
        guard let colon = rest.first else { return true }
        let port = rest.dropFirst()
        guard colon == UInt8(ascii: ":"), (1...5).contains(port.count), port.allSatisfy(isDigit),
            let number = Int(String(decoding: port, as: UTF8.self)), (1...65535).contains(number)
        else { return false }
        return true
    }

    /// One event of the OFREP event stream: the flags changed, refetch (the ETag of the flag
    /// configuration is also the event's id, for `Last-Event-ID`).
    public static func refetchEvent(configETag: String) -> String {
        let data = JSONValue.object([.init("type", .string("refetchEvaluation")), .init("etag", .string(configETag))]).compactText
        return "id: \(configETag)\nevent: message\ndata: \(data)\n\n"
    }
}
