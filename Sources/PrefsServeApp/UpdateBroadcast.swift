import NIOCore
import Synchronization

/// Tells every open `/api/events` stream that the poller read a change, and pings each one
/// every so often; nothing runs in between.
final class UpdateBroadcast: Sendable {
    /// What a stream is told.
    enum Event: Sendable {
        /// The poller read the store again and it had moved.
        case changed
        /// A while passed (keep the connection alive; see whether it still is).
        case ping
    }

    private let streams = Mutex<(next: Int, open: [Int: AsyncStream<Event>.Continuation], finished: Bool)>((0, [:], false))

    /// The events from now on, with a ``Event/ping`` every `interval`; ends when the caller's
    /// task is cancelled, when `closed` completes (the client's connection closed) or at
    /// ``finish()`` (a stream subscribed after it ends at once).
    func subscribe(ping interval: Duration, until closed: EventLoopFuture<Void>? = nil) -> AsyncStream<Event> {
        // Only the newest event waits: a reader that looks at the store on any event misses nothing.
        let (stream, continuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .bufferingNewest(1))
        let id = streams.withLock { state -> Int? in
            guard !state.finished else { return nil }
            state.next += 1
            state.open[state.next] = continuation
            return state.next
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        let pinger = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                continuation.yield(.ping)
            }
        }
        continuation.onTermination = { [weak self] _ in
            pinger.cancel()
            self?.streams.withLock { _ = $0.open.removeValue(forKey: id) }
        }
        closed?.whenComplete { _ in continuation.finish() }
        return stream
    }

    /// Tells every open stream the store moved.
    func publish() {
        streams.withLock { state in
            for continuation in state.open.values { continuation.yield(.changed) }
        }
    }

    /// Ends every open stream (shutdown).
    func finish() {
        let open = streams.withLock { state in
            state.finished = true
            defer { state.open = [:] }
            return Array(state.open.values)
        }
        for continuation in open { continuation.finish() }
    }
}
