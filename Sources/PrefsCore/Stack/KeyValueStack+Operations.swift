import FoundationEssentials
import Glibc

extension KeyValueStack {
    /// One write of an all-or-nothing list (see ``perform(_:)``).
    ///
    /// ```swift
    /// let ops = [
    ///     KeyValueStack.Operation(.set(.string("b")), in: .user, forKey: "slot", if: .value(.string("a"))),
    ///     KeyValueStack.Operation(.increment(by: 1), in: .user, forKey: "moves"),
    /// ]
    /// ```
    public struct Operation: Sendable, Equatable {
        /// What the operation does.
        public enum Action: Sendable, Equatable {
            /// Store a value, optionally expiring after a while.
            case set(JSONValue, expiresIn: Duration? = nil)
            /// Remove the key (a missing key is not an error unless a precondition says so).
            case remove
            /// Add to the integer under the key (missing = 0).
            case increment(by: Int64)
            /// Store a value at a JSON Pointer inside the key's value (`prefs set --path`): the
            /// key must exist (unless the pointer is empty) and so must every container on the
            /// way; the schema checks the whole value that results. The key keeps its expiry.
            case setMember(JSONPointer, JSONValue)
        }

        /// What to do.
        public var action: Action
        /// The domain (a persistent one).
        public var domain: Domain
        /// The key.
        public var key: String
        /// A condition checked before anything is written.
        public var precondition: Precondition?

        /// Creates an operation.
        public init(_ action: Action, in domain: Domain, forKey key: String, if precondition: Precondition? = nil) {
            self.action = action
            self.domain = domain
            self.key = key
            self.precondition = precondition
        }
    }

    /// What one operation of ``perform(_:)`` left behind.
    public struct OperationResult: Sendable, Equatable {
        /// The key's value afterwards as compact JSON; nil when it was removed. For a removal,
        /// the removed value (nil when the key did not exist).
        public var json: String?
        /// The key's version afterwards (0 after a removal).
        public var version: Int64
    }

    /// Performs operations in one transaction, all or none, after flushing the queue.
    ///
    /// Preconditions are checked in order against the state the earlier operations of the
    /// list produced; the first that fails aborts the whole list.
    ///
    /// ```swift
    /// try stack.perform([.init(.set(.bool(true)), in: .switch, forKey: "frozen", if: .absent)])
    /// ```
    /// - Throws: `PrefsError`: `preconditionFailed` naming the operation (1-based) whose
    ///   condition failed; `invalidValue` for an increment of a non-integer; `usage` for a
    ///   bad key or the `memory` domain mixed with others; `cannotWrite` when the store
    ///   cannot be written. Nothing is changed when it throws.
    @discardableResult
    public func perform(_ operations: [Operation]) throws -> [OperationResult] {
        guard let first = operations.first else { return [] }
        for operation in operations { try KeyName.validate(operation.key) }
        if operations.contains(where: { $0.domain.isPersistent != first.domain.isPersistent }) {
            throw PrefsError(.usage, "one transaction cannot mix the memory domain with persistent domains")
        }
        try flushSynchronously()
        let schema = validatesWrites ? try self.schema() : Schema()  // read before the transaction
        let database = database(for: first.domain)
        let domains = Array(Set(operations.prefix(8).map(\.domain)))
        let (results, events) = try WriteTransaction.run(on: database, op: .set, preparing: domains) { transaction in
            try ChangeApplier(transaction).perform(operations, schema: schema)
        }
        observers.deliver(events)
        return results
    }
}
