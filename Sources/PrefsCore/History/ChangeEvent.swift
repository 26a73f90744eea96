import Synchronization

/// One committed change of one key, delivered to observers after its transaction commits.
///
/// ```swift
/// for await event in stack.changes(in: .user) {
///     print(event.kind, event.key, event.json ?? "-")
/// }
/// ```
public struct ChangeEvent: Sendable, Equatable {
    /// What happened to the key.
    public enum Kind: String, Sendable {
        /// The key did not exist and now does.
        case insert
        /// The key's value was replaced.
        case update
        /// The key was removed.
        case delete
        /// The key's domain was replaced from a remote source.
        case refresh
    }

    /// What happened.
    public var kind: Kind
    /// The domain.
    public var domain: Domain
    /// The key.
    public var key: String
    /// The new value as compact JSON; nil for a deletion.
    public var json: String?
    /// The value before the change as compact JSON; nil for an insertion.
    public var oldJSON: String?

    /// Creates an event.
    public init(kind: Kind, domain: Domain, key: String, json: String?, oldJSON: String?) {
        self.kind = kind
        self.domain = domain
        self.key = key
        self.json = json
        self.oldJSON = oldJSON
    }
}

/// Subscribers to change events, each with an optional domain and key filter.
final class ChangeObservers: Sendable {
    private struct Subscriber {
        var domain: Domain?
        var key: String?
        var continuation: AsyncStream<ChangeEvent>.Continuation
    }

    private let subscribers = Mutex<[UInt64: Subscriber]>([:])
    private let nextID = Atomic<UInt64>(0)

    var isEmpty: Bool { subscribers.withLock { $0.isEmpty } }

    func stream(domain: Domain?, key: String?) -> AsyncStream<ChangeEvent> {
        let id = nextID.add(1, ordering: .relaxed).newValue
        let (stream, continuation) = AsyncStream<ChangeEvent>.makeStream(bufferingPolicy: .unbounded)
        subscribers.withLock { $0[id] = Subscriber(domain: domain, key: key, continuation: continuation) }
        continuation.onTermination = { [weak self] _ in
            _ = self?.subscribers.withLock { $0.removeValue(forKey: id) }
        }
        return stream
    }

    func deliver(_ events: [ChangeEvent]) {
        guard !events.isEmpty else { return }
        let current = subscribers.withLock { Array($0.values) }
        for subscriber in current {
            for event in events {
                if let domain = subscriber.domain, domain != event.domain { continue }
                if let key = subscriber.key, !key.utf8.elementsEqual(event.key.utf8) { continue }
                subscriber.continuation.yield(event)
            }
        }
    }

    func finishAll() {
        let current = subscribers.withLock { all -> [Subscriber] in
            defer { all.removeAll() }
            return Array(all.values)
        }
        for subscriber in current { subscriber.continuation.finish() }
    }
}
