import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOEmbedded
import Synchronization

/// Drives a Hummingbird application in process, without sockets, on Hummingbird's public API
/// only (what HummingbirdTesting's `.router` framework does, without the client libraries that
/// product brings into the build): each request becomes a `Request`, the application's
/// responder answers it with a context on an in-memory channel (no remote address), and the
/// answer's head and body are collected.
struct ApplicationDriver<Responder: HTTPResponder>: Sendable
where Responder.Context: InitializableFromSource<ApplicationRequestContextSource> {
    /// One answer: its head and its body (as far as it was read).
    struct Reply: Sendable {
        var head: HTTPResponse
        var body: ByteBuffer
    }

    let responder: Responder
    let logger: Logger

    init<App: ApplicationProtocol>(_ application: App) async throws where App.Responder == Responder {
        responder = try await application.responder
        logger = application.logger
    }

    /// Sends one request (with a `Content-Length` when it has a body) and reads the answer's
    /// body to its end, or, when `enough` is given, until the bytes read so far satisfy it: the
    /// client then closes its connection (the first frames of an event stream).
    func execute(
        _ method: HTTPRequest.Method, _ path: String, headers: HTTPFields = [:], body: ByteBuffer? = nil,
        until enough: (@Sendable (ByteBuffer) -> Bool)? = nil
    ) async throws -> Reply {
        var headers = headers
        if let body { headers[.contentLength] = String(body.readableBytes) }
        let head = HTTPRequest(method: method, scheme: "http", authority: "localhost", path: path, headerFields: headers)
        let request = Request(head: head, body: RequestBody(buffer: body ?? ByteBuffer()))
        let channel = NIOAsyncTestingChannel()
        let context = Responder.Context(source: ApplicationRequestContextSource(channel: channel, logger: logger))
        let response: Response
        do {
            response = try await responder.respond(to: request, context: context)
        } catch {
            // As the server does with an error the responder did not turn into an answer.
            response = Response(status: .internalServerError)
        }
        let collector = Collector(channel: channel, enough: enough)
        try await response.body.write(collector)
        if !collector.closed { try? await channel.close().get() }
        return Reply(head: response.head, body: collector.body)
    }

    /// Where an answer's body goes: the bytes so far, and the connection closed once they are enough.
    private struct Collector: ResponseBodyWriter {
        final class Bytes: Sendable {
            let buffer = Mutex(ByteBuffer())
            let closed = Atomic(false)
        }

        let channel: NIOAsyncTestingChannel
        let enough: (@Sendable (ByteBuffer) -> Bool)?
        private let collected = Bytes()

        init(channel: NIOAsyncTestingChannel, enough: (@Sendable (ByteBuffer) -> Bool)?) {
            self.channel = channel
            self.enough = enough
        }

        var body: ByteBuffer { collected.buffer.withLock { $0 } }
        /// Whether the body was enough and the connection was closed.
        var closed: Bool { collected.closed.load(ordering: .relaxed) }

        func write(_ buffer: ByteBuffer) async throws {
            let sofar = collected.buffer.withLock { body in
                body.writeImmutableBuffer(buffer)
                return body
            }
            if let enough, enough(sofar), !collected.closed.exchange(true, ordering: .relaxed) {
                try? await channel.close().get()
                // The close future completes in a task the testing loop runs.
                await channel.testingEventLoop.run()
            }
        }

        func finish(_ trailingHeaders: HTTPFields?) async throws {}
    }
}
