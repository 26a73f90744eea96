import NIOCore
import NIOHTTPTypes
import Synchronization

/// The connections open from each client address, shared by every connection's
/// ``ConnectionLimiter``.
final class ConnectionCounts: Sendable {
    /// The most connections one address may have open (`--max-connections-per-address`).
    let limit: Int
    private let counts = Mutex<[String: Int]>([:])

    init(limit: Int) { self.limit = limit }

    /// The host an address counts for: every loopback address (all of 127.0.0.0/8, `::1`, and
    /// their IPv4-mapped forms) is this machine, one host; a client cannot take more places by
    /// binding 127.0.0.2, 127.0.0.3, …
    static func host(_ address: String) -> String {
        let lowered = address.lowercased()
        if lowered.hasPrefix("127.") || lowered.hasPrefix("::ffff:127.") || lowered == "::1" || lowered == "0:0:0:0:0:0:0:1" {
            return "loopback"
        }
        return lowered
    }

    /// Takes a place for `address` (its ``host(_:)``); false when it has ``limit`` open already.
    func open(_ address: String) -> Bool {
        let address = Self.host(address)
        return counts.withLock { counts in
            let count = counts[address, default: 0]
            guard count < limit else { return false }
            counts[address] = count + 1
            return true
        }
    }

    /// Gives a place back.
    func close(_ address: String) {
        let address = Self.host(address)
        counts.withLock { counts in
            let count = counts[address, default: 0] - 1
            counts[address] = count > 0 ? count : nil
        }
    }
}

/// Closes a connection as it is accepted when its client host has the most connections
/// allowed open already (one client holding many slow connections cannot take the server's
/// 1,024 from everyone else).
final class ConnectionLimiter: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    private let counts: ConnectionCounts
    private var admitted: String?
    private var decided = false
    private var refused = false

    init(counts: ConnectionCounts) { self.counts = counts }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { admit(context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) { release() }

    func channelActive(context: ChannelHandlerContext) {
        context.fireChannelActive()
        admit(context)
    }

    func channelInactive(context: ChannelHandlerContext) {
        release()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // A refused connection is closing: nothing it sent is handled.
        if !refused { context.fireChannelRead(data) }
    }

    private func admit(_ context: ChannelHandlerContext) {
        guard !decided else { return }
        decided = true
        let address = context.channel.remoteAddress?.ipAddress ?? "-"
        if counts.open(address) {
            admitted = address
        } else {
            refused = true
            context.close(promise: nil)
        }
    }

    private func release() {
        if let admitted { counts.close(admitted) }
        admitted = nil
    }
}
