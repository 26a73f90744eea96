import NIOCore
import NIOHTTPTypes

/// Deadlines for what a client sends (slowloris):
/// - the request head must be complete within the head timeout (`--head-timeout`) of the
///   connection being accepted, or of the first byte of a later request on it;
/// - the body must be complete within the read timeout (`--read-timeout`) of its head;
/// - between requests a connection may stay idle for the read timeout.
///
/// An answer to a complete request that says `Connection: close` closes the connection once
/// written (a refused event stream's).
///
/// Past a deadline the connection is closed. Answers being written (an event stream) are not
/// limited; but an event stream's connection is closed as soon as the client closes its side
/// (an event stream's client sends nothing more), so the stream ends and gives its place back
/// at once rather than at its next write.
final class RequestDeadlineHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private enum Phase {
        /// Waiting for a request's head (from the accept, or the first byte of a later request).
        case head
        /// The head arrived: waiting for the body.
        case body
        /// The request arrived: the answer is being made (no deadline).
        case answering
        /// Answered: waiting for another request, or nothing.
        case idle
    }

    private let headTimeout: TimeAmount
    private let readTimeout: TimeAmount
    private var phase = Phase.head
    private var deadline: Scheduled<Void>?
    private var context: ChannelHandlerContext?
    /// Bytes arrived after the request was complete: the next request has begun.
    private var nextRequestBegun = false
    /// The answer being written is an event stream (`text/event-stream`).
    private var streaming = false
    /// The answer being written says `Connection: close`.
    private var closing = false

    init(headTimeout: TimeAmount, readTimeout: TimeAmount) {
        self.headTimeout = headTimeout
        self.readTimeout = readTimeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        // Bytes are seen before the HTTP decoder, which says nothing until a head is complete.
        try? context.pipeline.syncOperations.addHandler(ByteObserver(owner: self), position: .first)
        arm(headTimeout)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        disarm()
        self.context = nil
    }

    /// Called by the ``ByteObserver`` when bytes arrive from the client.
    fileprivate func bytesArrived() {
        switch phase {
        case .idle:
            phase = .head
            arm(headTimeout)
        case .answering: nextRequestBegun = true
        case .head, .body: break
        }
    }

    /// Called by the ``ByteObserver`` when the client closed its side of the connection.
    fileprivate func inputClosed() {
        if streaming { context?.close(promise: nil) }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            phase = .body
            arm(readTimeout)
        case .end:
            phase = .answering
            nextRequestBegun = false
            disarm()
        case .body: break
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let part = unwrapOutboundIn(data)
        if case .head(let head) = part {
            streaming = head.headerFields[.contentType]?.hasPrefix("text/event-stream") ?? false
            closing = head.headerFields[.connection]?.lowercased() == "close"
        }
        if case .end = part { streaming = false }
        // Only once the request is complete: closing while a body still arrives (a 413) would
        // reset the connection, and the client might not read its answer.
        if case .end = part, phase == .answering, closing {
            closing = false
            disarm()
            let written = promise ?? context.eventLoop.makePromise()
            written.futureResult.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
            context.write(data, promise: written)
            return
        }
        if case .end = part, phase == .answering {
            // A 413 is answered before its body was read: its connection closes anyway.
            if nextRequestBegun {
                phase = .head
                arm(headTimeout)
            } else {
                phase = .idle
                arm(readTimeout)
            }
        }
        context.write(data, promise: promise)
    }

    private func arm(_ timeout: TimeAmount) {
        guard let context else { return }
        deadline?.cancel()
        deadline = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) { context.close(promise: nil) }
    }

    private func disarm() {
        deadline?.cancel()
        deadline = nil
    }
}

/// Tells a ``RequestDeadlineHandler`` when bytes arrive, ahead of the HTTP decoder.
private final class ByteObserver: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private weak var owner: RequestDeadlineHandler?

    init(owner: RequestDeadlineHandler) { self.owner = owner }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        owner?.bytesArrived()
        context.fireChannelRead(data)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed { owner?.inputClosed() }
        context.fireUserInboundEventTriggered(event)
    }
}
