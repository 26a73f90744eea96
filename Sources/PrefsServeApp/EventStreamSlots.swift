import Synchronization

/// The event streams open (`/ofrep/v1/events` and the inspector's `/api/events`), in all and
/// per client host, so streams, which the idle timeout does not end, cannot take every
/// connection: a stream past either cap is answered 503 at once.
final class EventStreamSlots: Sendable {
    /// The most streams open in all (`--max-event-streams`).
    let limit: Int
    /// The most streams one client host may have open: half its connections
    /// (`--max-connections-per-address`), so its ordinary requests keep room.
    let perHost: Int
    private let state = Mutex<(total: Int, byHost: [String: Int])>((0, [:]))

    init(limit: Int, connectionsPerAddress: Int) {
        self.limit = limit
        perHost = max(1, connectionsPerAddress / 2)
    }

    /// A place for a stream from `address`, nil when a cap is reached. The place is given back
    /// by ``Slot/release()``, or when the slot is dropped.
    func take(_ address: String) -> Slot? {
        let host = ConnectionCounts.host(address)
        let taken = state.withLock { state -> Bool in
            let count = state.byHost[host, default: 0]
            guard state.total < limit, count < perHost else { return false }
            state.total += 1
            state.byHost[host] = count + 1
            return true
        }
        return taken ? Slot(owner: self, host: host) : nil
    }

    fileprivate func give(_ host: String) {
        state.withLock { state in
            state.total -= 1
            let count = state.byHost[host, default: 0] - 1
            state.byHost[host] = count > 0 ? count : nil
        }
    }

    /// One stream's place.
    final class Slot: Sendable {
        private let owner: EventStreamSlots
        private let host: String
        private let released = Atomic<Bool>(false)

        fileprivate init(owner: EventStreamSlots, host: String) {
            self.owner = owner
            self.host = host
        }

        /// Gives the place back (once).
        func release() {
            if !released.exchange(true, ordering: .relaxed) { owner.give(host) }
        }

        deinit { release() }
    }
}
