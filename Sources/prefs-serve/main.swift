// prefs-serve [--version | --help]
//
// The HTTP side of `prefs serve`, which execs this helper with its options as one
// ServeConfiguration (PrefsHelperConfiguration) in the environment, so the `prefs` binary never loads
// SwiftNIO and Hummingbird. OFREP evaluation and the web inspector come from PrefsServe's
// ServeCore; this file binds the socket, streams live updates, reads the store again when it
// changes (inotify; a timer every 250 ms where inotify is unavailable), logs one
// line per request on stderr and shuts down gracefully on SIGINT and SIGTERM.
import FoundationEssentials
import Glibc
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import PrefsCore
import PrefsHelperConfiguration
import PrefsHelpers
import PrefsServe
import ServiceLifecycle
import Synchronization

// The helpers' one binary: installed, prefs-http-get and prefs-sync are links to it, and the
// name it was run by chooses the program (each also builds on its own for the tests).
switch PathText.lastComponent(CommandLine.arguments.first ?? "") {
case "prefs-http-get": HTTPGetHelper.main(Array(CommandLine.arguments.dropFirst()))
case "prefs-sync": SyncHelper.main(Array(CommandLine.arguments.dropFirst()))
default: break
}

let environment = ProcessInfo.processInfo.environment
let invocation = Invocation(Array(CommandLine.arguments.dropFirst()), environment: environment)
// Read once: nothing this process starts inherits it.
unsetenv(ServeConfiguration.variable)

var token: String?
if let file = invocation.tokenFile {
    // A secret: the caller's (or root's) regular file, private to its owner, small.
    var info = stat()
    guard stat(file, &info) == 0 else { fail("cannot read the token file \(file)", 2) }
    guard (info.st_mode & S_IFMT) == S_IFREG else { fail("the token file \(file) is not a regular file", 2) }
    guard info.st_uid == getuid() || info.st_uid == 0 else {
        fail("the token file \(file) belongs to another user (uid \(info.st_uid))", 2)
    }
    guard info.st_mode & 0o077 == 0 else {
        fail("the token file \(file) is open to other users (mode \(String(info.st_mode & 0o777, radix: 8))): chmod 600 it", 2)
    }
    guard info.st_size <= 4096 else { fail("the token file \(file) is larger than 4096 bytes", 2) }
    guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { fail("cannot read the token file \(file)", 2) }
    guard let value = BearerToken.token(fromFileText: text) else { fail("the token file \(file) is empty", 2) }
    token = value
} else if let value = environment["PREFS_SERVE_TOKEN"], !value.isEmpty {
    token = value
}
// Without a token, OFREP is open on loopback, but the inspector's data (every domain, values,
// history) needs a token of this run, printed only to the owner: other local users reach
// 127.0.0.1 too.
let inspectorToken: String? = token == nil ? BearerToken.random() : nil
if !invocation.isLoopback && token == nil {
    fail("listening on \(invocation.host) needs a bearer token: --token-file FILE or PREFS_SERVE_TOKEN (loopback needs none)", 2)
}

let stack: KeyValueStack
let core: ServeCore
/// Wakes the poller when another process may have committed.
let monitor: StoreChangeMonitor
do {
    var options = try KeyValueStack.Options.commandLine(environment: environment)
    options.actor = invocation.actor
    options.overrides = try OverridesText.parse(invocation.overrides)
    stack = try KeyValueStack(path: StoreLocation.resolve(explicit: invocation.store, environment: environment), options: options)
    core = try ServeCore(
        stack: stack,
        options: ServeOptions(
            maximumBodyBytes: invocation.maximumBodyBytes, token: token, inspectorToken: inspectorToken,
            maximumSteps: invocation.maximumSteps))
    monitor = try stack.changeMonitor(pollInterval: invocation.poll, environment: environment)
} catch let error as PrefsError {
    fail(error.message, error.exitCode)
} catch {
    fail("\(error)", 1)
}

/// The threads that evaluate (a request's steps are bounded by --max-steps).
let evaluations = EvaluationPool()

/// Connections open per client address (--max-connections-per-address).
let connectionCounts = ConnectionCounts(limit: invocation.maximumConnectionsPerAddress)

/// Event streams open (--max-event-streams in all, half a host's connections per host).
let streamSlots = EventStreamSlots(limit: invocation.maximumEventStreams, connectionsPerAddress: invocation.maximumConnectionsPerAddress)

/// Set when shutdown begins: event streams end so the server can finish.
let stopping = Atomic<Bool>(false)

/// Wakes the open event streams when the poller read a change.
let updates = UpdateBroadcast()

/// One line per request on stderr: time, client, method, path (no query, no token), status, bytes, milliseconds.
func accessLog(_ remote: String, _ method: String, _ path: String, _ status: Int, _ bytes: Int, _ start: ContinuousClock.Instant) {
    guard invocation.accessLog else { return }
    let elapsed = ContinuousClock.now - start
    let milliseconds = Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000
    let time = ISOTime.format(milliseconds: WallClock.nowMilliseconds())
    let shown = path.count > 200 ? String(path.prefix(200)) + "…" : path
    let line = "\(time) \(remote) \(method) \(shown) \(status) \(bytes) \(NumberText.fixed(milliseconds, fractionDigits: 2))ms\n"
    try? FileIO.write(STDERR_FILENO, line.utf8)
}

struct ServeContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let remote: String
    /// Completed when the connection closes (an event stream then ends).
    let closed: EventLoopFuture<Void>

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remote = source.channel.remoteAddress?.ipAddress ?? "-"
        closed = source.channel.closeFuture
    }
}

func response(_ answer: ServeResponse) -> Response {
    var headers = HTTPFields()
    for header in answer.headers {
        if let name = HTTPField.Name(header.name) { headers.append(HTTPField(name: name, value: header.value)) }
    }
    // No answer is to be read as another type than it says (JSON, errors, 304s too).
    if headers[.xContentTypeOptions] == nil { headers[.xContentTypeOptions] = "nosniff" }
    // Nor kept by a cache: only the inspector's page says otherwise (no-cache).
    if headers[.cacheControl] == nil { headers[.cacheControl] = "no-store" }
    return Response(
        status: HTTPResponse.Status(code: answer.status), headers: headers,
        body: answer.body.isEmpty ? ResponseBody() : ResponseBody(byteBuffer: ByteBuffer(bytes: answer.body)))
}

/// The head of an event stream.
func eventStreamHeaders() -> HTTPFields {
    var headers = HTTPFields()
    headers[.contentType] = "text/event-stream"
    headers[.cacheControl] = "no-store"
    headers[.xContentTypeOptions] = "nosniff"
    return headers
}

/// `GET /api/events`: a `change` event whenever the store moves, a comment every 15 s. Holds
/// `slot` until it ends (the connection closes, or shutdown).
func eventStream(_ slot: EventStreamSlots.Slot, closed: EventLoopFuture<Void>) -> Response {
    let body = ResponseBody { writer in
        defer { slot.release() }
        // Subscribed before the snapshot is taken: a change in between is announced.
        let events = updates.subscribe(ping: .seconds(15), until: closed)
        var last = core.snapshot
        try await writer.write(ByteBuffer(string: ": connected\n\n"))
        for await event in events {
            if stopping.load(ordering: .relaxed) || Task.isCancelled { break }
            let now = core.snapshot
            if now.digest != last.digest || now.logSequence != last.logSequence {
                last = now
                try await writer.write(ByteBuffer(string: core.changeEvent()))
            } else if event == .ping {
                try await writer.write(ByteBuffer(string: ": ping\n\n"))
            }
        }
        try await writer.finish(nil)
    }
    return Response(status: .ok, headers: eventStreamHeaders(), body: body)
}

/// `GET /ofrep/v1/events`: OFREP 0.3's event stream (advertised in bulk answers as
/// `eventStreams`). A `refetchEvaluation` event whenever the flags change (`switch`, the
/// fractional setting; other domains do not), with the flag configuration's ETag as `etag` and
/// as the event's id; a comment every 15 s. A client that reconnects with the id of an older
/// configuration (`Last-Event-ID`) missed an event: it gets one at once (an empty one is
/// none). Holds `slot` until it ends.
func ofrepEventStream(lastEventID: String?, _ slot: EventStreamSlots.Slot, closed: EventLoopFuture<Void>) -> Response {
    let body = ResponseBody { writer in
        defer { slot.release() }
        // Subscribed before the snapshot is taken: a change in between is announced.
        let events = updates.subscribe(ping: .seconds(15), until: closed)
        var last = core.snapshot.digest
        try await writer.write(ByteBuffer(string: ": connected\n\n"))
        if let lastEventID, lastEventID != ServeCore.configETag(last) {
            try await writer.write(ByteBuffer(string: OFREP.refetchEvent(configETag: ServeCore.configETag(last))))
        }
        for await event in events {
            if stopping.load(ordering: .relaxed) || Task.isCancelled { break }
            let now = core.snapshot.digest
            if now != last {
                last = now
                try await writer.write(ByteBuffer(string: OFREP.refetchEvent(configETag: ServeCore.configETag(now))))
            } else if event == .ping {
                try await writer.write(ByteBuffer(string: ": ping\n\n"))
            }
        }
        try await writer.finish(nil)
    }
    return Response(status: .ok, headers: eventStreamHeaders(), body: body)
}

let responder = CallbackResponder { (request: Request, context: ServeContext) async throws -> Response in
    let start = ContinuousClock.now
    let target = request.head.path ?? "/"
    let method = request.method.rawValue
    var fields: [String: String] = [:]
    for field in request.headers {
        let name = field.name.canonicalName
        fields[name] = fields[name].map { $0 + ", " + field.value } ?? field.value
    }
    // HTTP/1's Host arrives as the authority pseudo-header.
    if let authority = request.head.authority { fields["host"] = authority }
    var serveRequest = ServeRequest(method: method, target: target, headers: fields)
    let path = serveRequest.path
    if (path == "/api/events" || path == OFREP.eventStreamPath) && method == "GET" {
        if let refusal = core.refusal(serveRequest) {
            accessLog(context.remote, method, path, refusal.status, refusal.body.count, start)
            return response(refusal)
        }
        // Streams outlive the idle timeout: they get places of their own, well below the
        // connection caps, so ordinary requests always have room. Past them: poll.
        guard let slot = streamSlots.take(context.remote) else {
            let refusal = ServeResponse.json(
                503,
                OFREP.problem(
                    "too many event streams are open (at most \(streamSlots.limit), \(streamSlots.perHost) per client); "
                        + "poll instead, or try again later"),
                // Closed after the answer: the connection does not hold one of its host's places.
                headers: [("Retry-After", "30"), ("Connection", "close")])
            accessLog(context.remote, method, path, refusal.status, refusal.body.count, start)
            return response(refusal)
        }
        accessLog(context.remote, method, path, 200, 0, start)
        if path == OFREP.eventStreamPath {
            let lastEventID = fields["last-event-id"].flatMap { $0.trimmingWhitespace().isEmpty ? nil : $0 }
            return ofrepEventStream(lastEventID: lastEventID, slot, closed: context.closed)
        }
        return eventStream(slot, closed: context.closed)
    }
    var answer: ServeResponse
    let limit = core.options.maximumBodyBytes
    if let length = fields["content-length"].flatMap({ Int($0) }), length > limit {
        answer = .json(413, OFREP.problem("the body is larger than \(limit) bytes"), headers: [("Connection", "close")])
    } else {
        do {
            var request = request
            let buffer = try await request.collectBody(upTo: limit)
            serveRequest.body = Array(buffer.readableBytesView)
            // Evaluation reads the compiled flags in memory; inspector JSON reads the store.
            // A quick evaluation (at most EvaluationPool.quickSteps) is answered here; the rest
            // on the evaluation pool's threads, never for long on the cooperative pool's.
            let prepared = serveRequest
            if let quick = core.quickAnswer(prepared, steps: EvaluationPool.quickSteps) {
                answer = quick
            } else if let long = await evaluations.run({ core.handle(prepared) }) {
                answer = long
            } else {
                answer = .json(
                    503, OFREP.problem("too many requests are being evaluated; try again shortly"), headers: [("Retry-After", "1")])
            }
        } catch let error as HTTPError where error.status == .contentTooLarge {
            answer = .json(413, OFREP.problem("the body is larger than \(limit) bytes"), headers: [("Connection", "close")])
        } catch is NIOTooManyBytesError {
            // A chunked body (no Content-Length) over the limit.
            answer = .json(413, OFREP.problem("the body is larger than \(limit) bytes"), headers: [("Connection", "close")])
        }
    }
    accessLog(context.remote, method, path, answer.status, answer.body.count, start)
    return response(answer)
}

/// Reads the store again whenever the monitor wakes (within milliseconds of another process's
/// commit or of an edit of the project or system layer files; every `--poll` where inotify is
/// unavailable), so changes by any process are served, and tells the event streams.
struct Poller: Service {
    func run() async throws {
        var failing = false
        await withGracefulShutdownHandler {
            // Cancelled (not shut down gracefully) when another service fails, as the server
            // does when it cannot listen: the wait then ends at once, so the loop must end too.
            while !stopping.load(ordering: .relaxed) && !Task.isCancelled {
                guard await monitor.next() != .cancelled else { continue }
                // A store file replaced by a rename (a sync tool, a restore by hand), or moved:
                // serve the file now at the path rather than the old one for ever.
                if stack.reopenStoreIfReplaced() {
                    try? FileIO.write(
                        STDERR_FILENO, "prefs: serve: \(stack.path) was replaced, moved or removed; reading what is at that path now\n".utf8
                    )
                }
                // An edit of the project or system files (watched with the store): read them again.
                if stack.reloadLayers() {
                    for warning in stack.layers.warnings { try? FileIO.write(STDERR_FILENO, "prefs: serve: warning: \(warning)\n".utf8) }
                }
                do {
                    if try core.refresh() { updates.publish() }
                    failing = false
                } catch {
                    if !failing { try? FileIO.write(STDERR_FILENO, "prefs: serve: cannot read the store: \(error)\n".utf8) }
                    failing = true
                }
            }
        } onGracefulShutdown: {
            stopping.store(true, ordering: .relaxed)
            monitor.cancel()
            updates.finish()
        }
    }
}

var logger = Logger(label: "prefs-serve")
logger.logLevel = .critical
func timeAmount(_ duration: Duration) -> TimeAmount {
    .nanoseconds(Int64(duration.components.seconds) * 1_000_000_000 + Int64(duration.components.attoseconds / 1_000_000_000))
}
let readTimeout = timeAmount(invocation.readTimeout)
// A request must arrive within the read timeout in any case: the head's deadline is no later.
let headTimeout = timeAmount(min(invocation.headTimeout, invocation.readTimeout))
/// Set once the socket listens: an error before it is a failure to listen.
let listening = Atomic<Bool>(false)
if let path = invocation.socketPath {
    // Binding unlinks a socket left at the path: not one a server still answers on.
    if ListenFailure.socketInUse(path) { fail("serve: cannot listen on unix:\(path): a server answers on that socket already", 4) }
    // Private to its owner (mode 0700: connecting to a unix socket needs write permission).
    umask(0o077)
}
let app = Application(
    responder: responder,
    // New handlers for every connection (an autoclosure).
    server: .http1(
        configuration: .init(additionalChannelHandlers: [
            ConnectionLimiter(counts: connectionCounts), RequestDeadlineHandler(headTimeout: headTimeout, readTimeout: readTimeout),
        ])),
    // At most 1,024 open connections: more wait in the backlog (file descriptors stay bounded).
    configuration: ApplicationConfiguration(
        address: invocation.socketPath.map { .unixDomainSocket(path: $0) } ?? .hostname(invocation.host, port: invocation.port),
        serverName: "prefs",
        availableConnectionsDelegate: MaximumAvailableConnections(1024)),
    onServerRunning: { channel in
        listening.store(true, ordering: .relaxed)
        if let path = invocation.socketPath {
            let inspector = inspectorToken.map { "/#token=\($0)" } ?? "/"
            try? FileIO.write(
                STDOUT_FILENO, "prefs serve: listening on unix:\(path) (OFREP at /ofrep/v1, inspector at \(inspector))\n".utf8)
            return
        }
        let port = channel.localAddress?.port ?? invocation.port
        let host = invocation.host.contains(":") ? "[\(invocation.host)]" : invocation.host
        let inspector = inspectorToken.map { "http://\(host):\(port)/#token=\($0)" } ?? "/"
        try? FileIO.write(
            STDOUT_FILENO, "prefs serve: listening on http://\(host):\(port)/ (OFREP at /ofrep/v1, inspector at \(inspector))\n".utf8)
    },
    logger: logger)

// The poller comes last: shutdown runs in reverse order, so event streams end before the
// server waits for open requests.
let group = ServiceGroup(
    configuration: .init(services: [app, Poller()], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
do {
    try await group.run()
} catch {
    // Cannot listen (the port is taken, by another program or another user; not an address of
    // this machine; a port below 1024 without the privilege): exit 4, which a service manager
    // restarts (the port may be free later), rather than serve nothing.
    if !listening.load(ordering: .relaxed) {
        fail("serve: cannot listen on \(invocation.listenText): \(ListenFailure.reason(error, socket: invocation.socketPath != nil))", 4)
    }
    fail("serve: \(error)", 1)
}
