import Glibc
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import PrefsCore
import PrefsServe
import ServiceLifecycle
import Synchronization

/// The HTTP side of `prefs serve` as a value: OFREP and the inspector answered through
/// ``ServeCore`` on Hummingbird, the event streams, the access log, the cap of connections per
/// client address and the request deadlines. `prefs-serve` binds
/// ``application(address:onServerRunning:logger:)`` and runs ``poller(stack:monitor:report:)``
/// beside it; tests drive the same application's responder without sockets.
package final class ServeServer: Sendable {
    /// What answers the requests.
    package let core: ServeCore
    /// Deadlines and caps of connections and streams.
    package let limits: ServeLimits
    /// Where the access log's lines go (nil: no access log).
    private let accessLog: (@Sendable (String) -> Void)?
    /// The threads that evaluate (a request's steps are bounded by --max-steps).
    private let evaluations = EvaluationPool()
    /// Connections open per client address (--max-connections-per-address).
    private let connectionCounts: ConnectionCounts
    /// Event streams open (--max-event-streams in all, half a host's connections per host).
    private let streamSlots: EventStreamSlots
    /// Set when shutdown begins: event streams end so the server can finish.
    private let stopping = Atomic<Bool>(false)
    /// Wakes the open event streams when the poller read a change.
    private let updates = UpdateBroadcast()

    /// A server answering with `core` under `limits`; `accessLog` receives one line per
    /// request (time, client, method, path without query or token, status, bytes, milliseconds).
    package init(core: ServeCore, limits: ServeLimits = ServeLimits(), accessLog: (@Sendable (String) -> Void)? = nil) {
        self.core = core
        self.limits = limits
        self.accessLog = accessLog
        connectionCounts = ConnectionCounts(limit: limits.maximumConnectionsPerAddress)
        streamSlots = EventStreamSlots(limit: limits.maximumEventStreams, connectionsPerAddress: limits.maximumConnectionsPerAddress)
    }

    /// Begins shutdown: open event streams end (and streams opened from now on end at once).
    package func stop() {
        stopping.store(true, ordering: .relaxed)
        updates.finish()
    }

    /// Reads the store again (``ServeCore/refresh()``) and tells the event streams when it
    /// moved; what the poller does on each wake-up.
    package func refresh() throws {
        if try core.refresh() { updates.publish() }
    }

    private func logRequest(
        _ remote: String, _ method: String, _ path: String, _ status: Int, _ bytes: Int, _ start: ContinuousClock.Instant
    ) {
        guard let accessLog else { return }
        let elapsed = ContinuousClock.now - start
        let milliseconds = Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000
        let time = ISOTime.format(milliseconds: WallClock.nowMilliseconds())
        let shown = path.count > 200 ? String(path.prefix(200)) + "…" : path
        accessLog("\(time) \(remote) \(method) \(shown) \(status) \(bytes) \(NumberText.fixed(milliseconds, fractionDigits: 2))ms\n")
    }

    private static func response(_ answer: ServeResponse) -> Response {
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
    private static func eventStreamHeaders() -> HTTPFields {
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream"
        headers[.cacheControl] = "no-store"
        headers[.xContentTypeOptions] = "nosniff"
        return headers
    }

    /// `GET /api/events`: a `change` event whenever the store moves, a comment every 15 s. Holds
    /// `slot` until it ends (the connection closes, or shutdown).
    private func eventStream(_ slot: EventStreamSlots.Slot, closed: EventLoopFuture<Void>) -> Response {
        let body = ResponseBody { writer in
            defer { slot.release() }
            // Subscribed before the snapshot is taken: a change in between is announced.
            let events = self.updates.subscribe(ping: .seconds(15), until: closed)
            var last = self.core.snapshot
            try await writer.write(ByteBuffer(string: ": connected\n\n"))
            for await event in events {
                if self.stopping.load(ordering: .relaxed) || Task.isCancelled { break }
                let now = self.core.snapshot
                if now.digest != last.digest || now.logSequence != last.logSequence {
                    last = now
                    try await writer.write(ByteBuffer(string: self.core.changeEvent()))
                } else if event == .ping {
                    try await writer.write(ByteBuffer(string: ": ping\n\n"))
                }
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: Self.eventStreamHeaders(), body: body)
    }

    /// `GET /ofrep/v1/events`: OFREP 0.3's event stream (advertised in bulk answers as
    /// `eventStreams`). A `refetchEvaluation` event whenever the flags change (`switch`, the
    /// fractional setting; other domains do not), with the flag configuration's ETag as `etag` and
    /// as the event's id; a comment every 15 s. A client that reconnects with the id of an older
    /// configuration (`Last-Event-ID`) missed an event: it gets one at once (an empty one is
    /// none). Holds `slot` until it ends.
    private func ofrepEventStream(lastEventID: String?, _ slot: EventStreamSlots.Slot, closed: EventLoopFuture<Void>) -> Response {
        let body = ResponseBody { writer in
            defer { slot.release() }
            // Subscribed before the snapshot is taken: a change in between is announced.
            let events = self.updates.subscribe(ping: .seconds(15), until: closed)
            var last = self.core.snapshot.digest
            try await writer.write(ByteBuffer(string: ": connected\n\n"))
            if let lastEventID, lastEventID != ServeCore.configETag(last) {
                try await writer.write(ByteBuffer(string: OFREP.refetchEvent(configETag: ServeCore.configETag(last))))
            }
            for await event in events {
                if self.stopping.load(ordering: .relaxed) || Task.isCancelled { break }
                let now = self.core.snapshot.digest
                if now != last {
                    last = now
                    try await writer.write(ByteBuffer(string: OFREP.refetchEvent(configETag: ServeCore.configETag(now))))
                } else if event == .ping {
                    try await writer.write(ByteBuffer(string: ": ping\n\n"))
                }
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: Self.eventStreamHeaders(), body: body)
    }

    /// Answers one request.
    package func respond(to request: Request, context: ServeContext) async throws -> Response {
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
                logRequest(context.remote, method, path, refusal.status, refusal.body.count, start)
                return Self.response(refusal)
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
                logRequest(context.remote, method, path, refusal.status, refusal.body.count, start)
                return Self.response(refusal)
            }
            logRequest(context.remote, method, path, 200, 0, start)
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
                let core = self.core
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
        logRequest(context.remote, method, path, answer.status, answer.body.count, start)
        return Self.response(answer)
    }

    /// The Hummingbird application that serves on `address`: at most 1,024 open connections
    /// (more wait in the backlog), the per-address cap and the request deadlines on every
    /// connection. `onServerRunning` is called once the socket listens.
    package func application(
        address: BindAddress, onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }, logger: Logger
    ) -> Application<CallbackResponder<ServeContext>> {
        let responder = CallbackResponder { (request: Request, context: ServeContext) async throws -> Response in
            try await self.respond(to: request, context: context)
        }
        let headTimeout = Self.timeAmount(min(limits.headTimeout, limits.readTimeout))
        let readTimeout = Self.timeAmount(limits.readTimeout)
        let counts = connectionCounts
        return Application(
            responder: responder,
            // New handlers for every connection (an autoclosure).
            server: .http1(
                configuration: .init(additionalChannelHandlers: [
                    ConnectionLimiter(counts: counts), RequestDeadlineHandler(headTimeout: headTimeout, readTimeout: readTimeout),
                ])),
            // At most 1,024 open connections: more wait in the backlog (file descriptors stay bounded).
            configuration: ApplicationConfiguration(
                address: address, serverName: "prefs", availableConnectionsDelegate: MaximumAvailableConnections(1024)),
            onServerRunning: onServerRunning,
            logger: logger)
    }

    /// The service that reads the store again whenever `monitor` wakes (within milliseconds of
    /// another process's commit or of an edit of the project or system layer files; every
    /// `--poll` where inotify is unavailable), so changes by any process are served, and tells
    /// the event streams. `report` receives its notes (a replaced store, layer warnings, a
    /// store it cannot read), one line each.
    package func poller(stack: KeyValueStack, monitor: StoreChangeMonitor, report: @escaping @Sendable (String) -> Void) -> some Service {
        Poller(server: self, stack: stack, monitor: monitor, report: report)
    }

    private struct Poller: Service {
        let server: ServeServer
        let stack: KeyValueStack
        let monitor: StoreChangeMonitor
        let report: @Sendable (String) -> Void

        func run() async throws {
            var failing = false
            await withGracefulShutdownHandler {
                // Cancelled (not shut down gracefully) when another service fails, as the server
                // does when it cannot listen: the wait then ends at once, so the loop must end too.
                while !server.stopping.load(ordering: .relaxed) && !Task.isCancelled {
                    guard await monitor.next() != .cancelled else { continue }
                    // A store file replaced by a rename (a sync tool, a restore by hand), or moved:
                    // serve the file now at the path rather than the old one for ever.
                    if stack.reopenStoreIfReplaced() {
                        report("prefs: serve: \(stack.path) was replaced, moved or removed; reading what is at that path now\n")
                    }
                    // An edit of the project or system files (watched with the store): read them again.
                    if stack.reloadLayers() {
                        for warning in stack.layers.warnings { report("prefs: serve: warning: \(warning)\n") }
                    }
                    do {
                        try server.refresh()
                        failing = false
                    } catch {
                        if !failing { report("prefs: serve: cannot read the store: \(error)\n") }
                        failing = true
                    }
                }
            } onGracefulShutdown: {
                // Stopping first: a wait of the monitor cancelled before it would start again.
                server.stopping.store(true, ordering: .relaxed)
                monitor.cancel()
                server.updates.finish()
            }
        }
    }

    private static func timeAmount(_ duration: Duration) -> TimeAmount {
        .nanoseconds(Int64(duration.components.seconds) * 1_000_000_000 + Int64(duration.components.attoseconds / 1_000_000_000))
    }
}

/// A request's context: the client's address and when its connection closes.
package struct ServeContext: RequestContext {
    package var coreContext: CoreRequestContextStorage
    /// The client's address (`-` where there is none: a unix socket, a test without sockets).
    package let remote: String
    /// Completed when the connection closes (an event stream then ends).
    package let closed: EventLoopFuture<Void>

    package init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remote = source.channel.remoteAddress?.ipAddress ?? "-"
        closed = source.channel.closeFuture
    }
}

/// The limits of `prefs serve` past the serving core's (``ServeOptions``): how long a request
/// may take to arrive, and how many connections and event streams clients may hold.
package struct ServeLimits: Sendable {
    /// The request head's deadline (`--head-timeout`; never later than ``readTimeout``).
    package var headTimeout: Duration = .seconds(5)
    /// A request's deadline, and how long a keep-alive connection may stay idle (`--read-timeout`).
    package var readTimeout: Duration = .seconds(10)
    /// The most connections one client host may have open (`--max-connections-per-address`).
    package var maximumConnectionsPerAddress = 64
    /// The most event streams open in all (`--max-event-streams`).
    package var maximumEventStreams = 32

    package init() {}
}
