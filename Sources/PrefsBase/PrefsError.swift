/// The one error type of the prefs core library.
///
/// Every failure the library reports is a `PrefsError`. Its ``kind`` says what went wrong in
/// terms a caller can act on, and ``message`` is a one-line human-readable description.
/// The command-line tool maps ``Kind`` to its exit codes; library callers match on it.
///
/// ```swift
/// do {
///     _ = try stack.value(in: .user, forKey: "theme")
/// } catch let error as PrefsError where error.kind == .invalidValue {
///     print(error.message)
/// }
/// ```
public struct PrefsError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The category of a failure. Each category has one exit code in the CLI.
    public enum Kind: Sendable, Equatable {
        /// The key does not exist (exit 1).
        case notFound
        /// Bad domain or key syntax, or another misuse of the API (exit 2).
        case usage
        /// The store cannot be read: corrupt file, not a prefs store, newer schema (exit 3).
        case storeUnreadable
        /// The store cannot be written: permissions, read-only file system, disk full,
        /// lock wait timed out (exit 4).
        case cannotWrite
        /// A precondition failed, e.g. a compare-and-set mismatch (exit 5).
        case preconditionFailed
        /// The value is invalid: bad JSON, type mismatch, schema violation (exit 6).
        case invalidValue
        /// A remote source or shared store is unreachable (exit 7).
        case unreachable
    }

    /// What went wrong.
    public var kind: Kind
    /// A one-line description of the failure, without a trailing period.
    public var message: String

    /// Creates an error.
    ///
    /// ```swift
    /// throw PrefsError(.invalidValue, "expected a boolean")
    /// ```
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// The message.
    public var description: String { message }

    /// The exit code the `prefs` command uses for this error (see the README's table).
    public var exitCode: Int32 {
        switch kind {
        case .notFound: 1
        case .usage: 2
        case .storeUnreadable: 3
        case .cannotWrite: 4
        case .preconditionFailed: 5
        case .invalidValue: 6
        case .unreachable: 7
        }
    }
}
