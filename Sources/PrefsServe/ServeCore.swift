import FoundationEssentials
import PrefsCore
import Synchronization

/// The serving core of `prefs serve`: routes a request to OFREP evaluation, the inspector's
/// pages and JSON, with authentication and limits; no sockets, so it is tested directly.
///
/// ```swift
/// let core = try ServeCore(stack: stack)
/// let response = core.handle(ServeRequest(method: "POST", path: "/ofrep/v1/evaluate/flags/new-checkout",
///                                         body: Array(#"{"context":{"targetingKey":"u1"}}"#.utf8)))
/// ```
public final class ServeCore: Sendable {
    /// The store served.
    public let stack: KeyValueStack
    /// Limits and token.
    public let options: ServeOptions
    private let state: Mutex<FlagSnapshot>

    /// Reads the store's flags once.
    ///
    /// - Throws: ``PrefsError`` when the store cannot be read.
    public init(stack: KeyValueStack, options: ServeOptions = ServeOptions()) throws {
        self.stack = stack
        self.options = options
        state = Mutex(try FlagSnapshot.read(stack))
    }

    /// The flags as last read.
    public var snapshot: FlagSnapshot { state.withLock { $0 } }

    /// The ETag of the flag configuration as last read (`switch` and the fractional hashing
    /// version): what the OFREP event stream sends as `etag`, and a re-fetch as
    /// `flagConfigEtag`. Not the bulk answer's `ETag`, which also depends on the context.
    public var configETag: String { Self.configETag(snapshot.digest) }

    /// The flag configuration's ETag for a snapshot's digest.
    public static func configETag(_ digest: UInt64) -> String { "\"" + FNV1aText.hex(digest) + "\"" }

    /// Reads the store again (changes by any process); the server calls this a few times a
    /// second.
    ///
    /// - Returns: whether `switch` or the change log moved since the last read.
    /// - Throws: ``PrefsError`` when the store cannot be read (the previous flags stay).
    @discardableResult
    public func refresh() throws -> Bool {
        let previous = snapshot
        let next = try FlagSnapshot.read(stack, previous: previous)
        state.withLock { $0 = next }
        return next.digest != previous.digest || next.logSequence != previous.logSequence
    }

    // MARK: - Routing

    /// The answer to one request.
    public func handle(_ request: ServeRequest) -> ServeResponse {
        // Never nil without a smaller budget than the options'.
        (route(request, steps: options.maximumSteps, quick: false) ?? .json(500, OFREP.problem("no answer"))).notStored
    }

    /// The answer to one request when it is quick: its evaluation takes at most `steps` steps
    /// (fewer than ``ServeOptions/maximumSteps``) and it does not read the store. Nil: answer it
    /// with ``handle(_:)`` on a thread that may take long (the evaluation is started again).
    /// The server answers most requests this way on the thread that read them, and hands the
    /// others to threads of their own.
    public func quickAnswer(_ request: ServeRequest, steps: Int) -> ServeResponse? {
        route(request, steps: min(steps, options.maximumSteps), quick: true)?.notStored
    }

    private func route(_ request: ServeRequest, steps: Int, quick: Bool) -> ServeResponse? {
        if let refusal = refusalAnswer(request) { return refusal }
        let path = request.path
        let ofrep = "/ofrep/v1/evaluate/flags"
        if path == ofrep || path == ofrep + "/" {
            guard request.method == "POST" else { return methodNotAllowed("POST") }
            if !catchUp(request, quick: quick) { return nil }
            return evaluateAll(request, steps: steps)
        }
        if path.hasPrefix(ofrep + "/") {
            guard request.method == "POST" else { return methodNotAllowed("POST") }
            if !catchUp(request, quick: quick) { return nil }
            guard let key = String(path.dropFirst(ofrep.count + 1)).percentDecoded, !key.isEmpty else {
                return .json(400, OFREP.failure(nil, "GENERAL", "the flag key in the path is not valid percent-encoded UTF-8").compactText)
            }
            return evaluate(key, request, steps: steps)
        }
        if let asset = InspectorAssets.asset(path) {
            guard request.method == "GET" || request.method == "HEAD" else { return methodNotAllowed("GET") }
            return ServeResponse(
                status: 200,
                headers: [
                    ("Content-Type", asset.type), ("Cache-Control", "no-cache"),
                    ("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'"),
                    ("X-Content-Type-Options", "nosniff"),
                ],
                body: Array(asset.text.utf8))
        }
        if path.hasPrefix("/api/") {
            guard request.method == "GET" else { return methodNotAllowed("GET") }
            // The inspector's JSON reads the store.
            if quick { return nil }
            return inspectorAPI(request)
        }
        return .json(404, OFREP.problem("no such path: \(Self.shortened(path))"))
    }

    /// A refusal before routing: the Host check and the bearer token (nil: go on). The
    /// server applies it to the event stream too, which it answers itself.
    public func refusal(_ request: ServeRequest) -> ServeResponse? {
        refusalAnswer(request)?.notStored
    }

    private func refusalAnswer(_ request: ServeRequest) -> ServeResponse? {
        if let token = options.token {
            // Pages of the inspector hold no data: they load without the token, and ask for it.
            if InspectorAssets.asset(request.path) != nil { return nil }
            guard BearerToken.authorizes(request.headers["authorization"], expected: token) else {
                return .json(
                    401, OFREP.problem("missing or wrong bearer token (Authorization: Bearer …)"),
                    headers: [("WWW-Authenticate", "Bearer realm=\"prefs\"")])
            }
            return nil
        }
        // Without a token the server listens on loopback only; a Host that is not a loopback
        // name is a web page's DNS rebinding, which must not read the store.
        if let host = request.headers["host"], !Self.isLoopbackHost(host) {
            return .json(403, OFREP.problem("Host \(Self.shortened(host)) is not a loopback name; serve with a token for other names"))
        }
        // Other users of the machine reach a loopback server too: the store's data needs the
        // token of this run, which only the owner saw printed.
        if request.path.hasPrefix("/api/"), let inspectorToken = options.inspectorToken,
            !BearerToken.authorizes(request.headers["authorization"], expected: inspectorToken)
        {
            return .json(
                401, OFREP.problem("missing or wrong bearer token: open the inspector at the address prefs serve printed"),
                headers: [("WWW-Authenticate", "Bearer realm=\"prefs\"")])
        }
        return nil
    }

    /// Whether a Host header names this machine's loopback (`localhost`, `127.x.y.z`, `[::1]`, with any port).
    public static func isLoopbackHost(_ host: String) -> Bool {
        var name = host.lowercased()
        if name.hasPrefix("[") {
            guard let end = name.firstIndex(of: "]") else { return false }
            return name[name.index(after: name.startIndex)..<end] == "::1"
        }
        if let colon = name.lastIndex(of: ":") { name = String(name[..<colon]) }
        if name == "localhost" || name.hasSuffix(".localhost") { return true }
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }

    static func shortened(_ text: String) -> String {
        let clean = String(String.UnicodeScalarView(text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7f ? "?" : $0 }))
        return clean.count > 200 ? String(clean.prefix(200)) + "…" : clean
    }

    /// OFREP 0.3's `flagConfigEtag`: a re-fetch after an event names the flag configuration it
    /// was told of. When that is not the one held (the server has not read the store since),
    /// the store is read again first, so the answer is never older than the event. False: the
    /// store must be read, which a quick answer does not do.
    private func catchUp(_ request: ServeRequest, quick: Bool) -> Bool {
        guard let wanted = request.queryItems["flagConfigEtag"], !Self.matches(wanted, configETag) else { return true }
        if quick { return false }
        // A store that cannot be read now: the flags held are answered (the poller reports it).
        _ = try? refresh()
        return true
    }

    private func methodNotAllowed(_ allowed: String) -> ServeResponse {
        .json(405, OFREP.problem("method not allowed; use \(allowed)"), headers: [("Allow", allowed)])
    }

    // MARK: - OFREP

    /// The request's context, or the failure to answer (a body is `{"context":{…}}`; an
    /// empty body is an empty context).
    func context(_ request: ServeRequest, key: String?) -> Result<(JSONValue, [String: LogicValue]), ResponseFailure> {
        if request.body.count > options.maximumBodyBytes {
            return .failure(ResponseFailure(.json(413, OFREP.problem("the body is larger than \(options.maximumBodyBytes) bytes"))))
        }
        if request.body.allSatisfy({ $0 == 0x20 || $0 == 0x0a || $0 == 0x0d || $0 == 0x09 }) {
            return .success((.object([]), [:]))
        }
        let document: JSONValue
        do {
            document = try JSONValue(parsingUTF8: request.body)
        } catch let error as PrefsError {
            return .failure(ResponseFailure(.json(400, OFREP.failure(key, "PARSE_ERROR", "the body: \(error.message)").compactText)))
        } catch {
            return .failure(ResponseFailure(.json(400, OFREP.failure(key, "PARSE_ERROR", "the body is not JSON").compactText)))
        }
        guard case .object = document else {
            return .failure(ResponseFailure(.json(400, OFREP.failure(key, "PARSE_ERROR", "the body must be a JSON object").compactText)))
        }
        let context = document["context"] ?? .object([])
        guard case .object = context else {
            return .failure(
                ResponseFailure(.json(400, OFREP.failure(key, "INVALID_CONTEXT", "context must be a JSON object").compactText)))
        }
        if Self.depth(of: context) > options.maximumContextDepth {
            return .failure(
                ResponseFailure(
                    .json(
                        400,
                        OFREP.failure(key, "INVALID_CONTEXT", "context is nested deeper than \(options.maximumContextDepth) levels")
                            .compactText)))
        }
        do {
            return .success((context, try FlagSet.context(context)))
        } catch {
            return .failure(
                ResponseFailure(.json(400, OFREP.failure(key, "INVALID_CONTEXT", "context must be a JSON object").compactText)))
        }
    }

    static func depth(of value: JSONValue) -> Int {
        switch value {
        case .object(let members): 1 + (members.map { depth(of: $0.value) }.max() ?? 0)
        case .array(let items): 1 + (items.map { depth(of: $0) }.max() ?? 0)
        default: 0
        }
    }

    /// `POST /ofrep/v1/evaluate/flags/{key}`.
    /// Nil when `steps`, fewer than the options' budget, ran out.
    func evaluate(_ key: String, _ request: ServeRequest, steps: Int) -> ServeResponse? {
        let data: [String: LogicValue]
        switch context(request, key: key) {
        case .failure(let failure): return failure.response
        case .success(let parsed): data = parsed.1
        }
        // Over the request's budget: the flag's own error result (400 GENERAL), as for a rule
        // over its own limit.
        var budget = EvaluationBudget(steps: steps)
        let resolution = snapshot.flags.evaluateAnyType(key, context: data, budget: &budget)
        if budget.exceeded && steps < options.maximumSteps { return nil }
        let answer = OFREP.evaluation(key, resolution)
        return .json(answer.status, answer.body.compactText)
    }

    /// `POST /ofrep/v1/evaluate/flags`: every flag, with an ETag of the answer.
    /// Nil when `steps`, fewer than the options' budget, ran out.
    func evaluateAll(_ request: ServeRequest, steps: Int) -> ServeResponse? {
        let parsed: (JSONValue, [String: LogicValue])
        switch context(request, key: nil) {
        case .failure(let failure): return failure.response
        case .success(let value): parsed = value
        }
        let current = snapshot
        var results: [JSONValue] = []
        var budget = EvaluationBudget(steps: steps)
        for key in current.keys {
            let resolution = current.flags.evaluateAnyType(key, context: parsed.1, budget: &budget)
            // Over the request's budget: no partial answer (a provider would cache it), 500.
            if budget.exceeded {
                if steps < options.maximumSteps { return nil }
                return .json(
                    500,
                    OFREP.problem(
                        "evaluating every flag needs more than the request's budget of \(options.maximumSteps) steps "
                            + "(prefs serve --max-steps); evaluate flags one at a time"))
            }
            results.append(OFREP.evaluation(key, resolution).body)
        }
        var members: [JSONValue.Member] = [.init("flags", .array(results))]
        // OFREP 0.3: where to learn of changes instead of polling.
        if let streams = OFREP.eventStreams(host: request.headers["host"]) { members.append(.init("eventStreams", streams)) }
        members.append(.init("metadata", .object(current.flags.metadata)))
        let text = JSONValue.object(members).compactText
        // The tag of what is answered, not of the inputs: a rule that reads `$flagd.timestamp`
        // answers differently later with the same flags and context.
        var hasher = FNV1a()
        hasher.add(text)
        let etag = "\"\(FNV1aText.hex(hasher.value))\""
        if let match = request.headers["if-none-match"], Self.matches(match, etag) {
            return ServeResponse(status: 304, headers: [("ETag", etag)])
        }
        return .json(200, text, headers: [("ETag", etag)])
    }

    /// Whether an `If-None-Match` list names `etag`: `*`, or the tag itself, weak (`W/`) or
    /// strong (RFC 9110's weak comparison).
    static func matches(_ header: String, _ etag: String) -> Bool {
        header.split(separator: ",").contains { candidate in
            let tag = candidate.trimmingWhitespace()
            return tag == "*" || tag == etag || tag == "W/" + etag
        }
    }
}
