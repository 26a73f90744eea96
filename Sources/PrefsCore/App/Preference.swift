import Observation

/// A property that reads and writes a typed key of a stack, for plain Swift types.
///
/// ```swift
/// struct Player {
///     @Preference<Double> var volume: Double
///     init(stack: KeyValueStack) { _volume = Preference(.volume, in: stack) }
/// }
/// let player = Player(stack: stack)
/// player.volume = 0.25          // queued, as stack[.volume] = 0.25
/// for try await volume in player.$volume.values {
///     print(volume)             // 0.25, then every committed change
///     break
/// }
/// ```
@propertyWrapper
public struct Preference<Value: Codable & Sendable>: Sendable {
    /// The key.
    public let key: Key<Value>
    /// The stack it reads and writes.
    public let stack: KeyValueStack

    /// A property for `key` in `stack`.
    public init(_ key: Key<Value>, in stack: KeyValueStack) {
        self.key = key
        self.stack = stack
    }

    /// The key's value (``KeyValueStack/subscript(_:)``).
    public var wrappedValue: Value {
        get { stack[key] }
        nonmutating set { stack[key] = newValue }
    }

    /// The property itself, for `$name.values`, `$name.reading` and `$name.reset()`.
    public var projectedValue: Preference<Value> { self }

    /// The value with its origin and, when the default answered, why.
    public var reading: KeyReading<Value> { stack.reading(key) }

    /// The key's values as they change, from any process (``KeyValueStack/values(of:)``).
    public var values: AsyncThrowingStream<Value, any Error> { stack.values(of: key) }

    /// Removes the stored value, so the default answers again.
    public func reset() throws { try stack.reset(key) }
}

/// A typed key's value as an `@Observable` object, for SwiftUI or any Observation user:
/// ``value`` follows the store (this process's writes and every other process's commits)
/// and writing it queues the new value.
///
/// ```swift
/// @MainActor @Observable final class AppSettings {
///     let volume: ObservableSetting<Double>
///     init(stack: KeyValueStack) { volume = ObservableSetting(.volume, in: stack) }
/// }
/// ```
@MainActor
@Observable
public final class ObservableSetting<Value: Codable & Sendable> {
    /// The key.
    @ObservationIgnored public let key: Key<Value>
    /// The stack.
    @ObservationIgnored public let stack: KeyValueStack
    @ObservationIgnored private var follower: Task<Void, Never>?
    /// Why the default shows although something is stored (see ``KeyReading/failure``).
    public private(set) var failure: PrefsError?
    private var current: Value

    /// The key's value; setting it queues the value (a refused write leaves it unchanged and
    /// sets ``failure``).
    public var value: Value {
        get { current }
        set {
            do {
                try stack.set(key, newValue)
                current = newValue
                failure = nil
            } catch let error as PrefsError {
                failure = error
            } catch {
                failure = PrefsError(.invalidValue, "\(error)", domain: key.domain, key: key.name)
            }
        }
    }

    /// Follows `key` of `stack` until the object is released.
    public init(_ key: Key<Value>, in stack: KeyValueStack) {
        self.key = key
        self.stack = stack
        let reading = stack.reading(key)
        self.current = reading.value
        self.failure = reading.failure
        let readings = stack.readings(of: key)
        follower = Task { [weak self] in
            for await reading in readings {
                guard let self else { return }
                self.current = reading.value
                self.failure = reading.failure
            }
        }
    }

    isolated deinit {
        follower?.cancel()
    }
}
