/// The one error type of the prefs core library.
///
/// Every failure the library reports is a `PrefsError`. Its ``kind`` says what went wrong in
/// terms a caller can act on (and maps to the CLI's exit codes), ``reason`` says exactly why,
/// with data (the current version of a compare-and-set conflict, the schema rule a value
/// broke), and ``domainName`` (`domain`) and ``key`` name the key when there is one. ``message`` is a
/// one-line human-readable description: show it, never parse it.
///
/// ```swift
/// do {
///     try stack.set(.number("2"), in: .user, forKey: "step", if: .version(1))
/// } catch let error as PrefsError {
///     switch error.reason {
///     case .versionConflict(let current): print("someone else wrote version", current ?? 0)
///     case .schemaViolation(let rule): print("the schema's", rule, "rule refused it")
///     default: print(error.message)
///     }
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

    /// The schema constraint a value broke (``Reason/schemaViolation(_:)``).
    public enum SchemaRule: String, Sendable, Equatable, CaseIterable {
        /// The key's `type`.
        case type
        /// The key's `enum` (allowed values).
        case `enum`
        /// The key's `minimum`.
        case minimum
        /// The key's `maximum`.
        case maximum
        /// The key's `pattern`.
        case pattern
    }

    /// Why an operation failed, precisely enough to act on without reading ``message``.
    public enum Reason: Sendable, Equatable {
        /// The key (or domain, flag, remote, …) does not exist.
        case notFound
        /// A compare-and-set expected another version; `current` is the key's version now
        /// (nil when the key does not exist).
        case versionConflict(current: Int64?)
        /// A write required the key to be absent and it exists.
        case alreadyExists
        /// A write required an equivalent value and the key holds another one.
        case valueMismatch
        /// The value breaks the schema's rule for the key.
        case schemaViolation(SchemaRule)
        /// The stored value is not of the type asked for (a typed read or an increment of a
        /// non-integer); `expected` names the Swift or JSON type.
        case typeMismatch(expected: String)
        /// The text is not valid JSON (or not valid UTF-8).
        case invalidJSON
        /// The store file is damaged or not a prefs store.
        case corrupt
        /// Another process holds the store's lock and the wait timed out.
        case locked
        /// The disk is full.
        case diskFull
        /// The file system or the file's permissions refuse the write.
        case permissionDenied
        /// Anything else; ``kind`` and ``message`` say what.
        case other
    }

    /// What went wrong.
    public var kind: Kind
    /// Why, precisely (``Reason/other`` when nothing more precise is known).
    public var reason: Reason
    /// The name of the domain of the key involved, when there is one (`domain` as a
    /// `Domain`, where `PrefsInput` is imported).
    public var domainName: String?
    /// The key involved, when there is one.
    public var key: String?
    /// A one-line description of the failure, without a trailing period.
    public var message: String

    /// Creates an error.
    ///
    /// ```swift
    /// if text != "true" && text != "false" { throw PrefsError(.invalidValue, "expected a boolean") }
    /// let conflict = PrefsError(.preconditionFailed, "user/step is at version 3", reason: .versionConflict(current: 3), domainName: "user", key: "step")
    /// ```
    public init(_ kind: Kind, _ message: String, reason: Reason? = nil, domainName: String? = nil, key: String? = nil) {
        self.kind = kind
        self.message = message
        self.reason = reason ?? (kind == .notFound ? .notFound : .other)
        self.domainName = domainName
        self.key = key
    }

    /// The same error with `prefix` before its message (reason, domain and key kept).
    ///
    /// ```swift
    /// throw error.prefixed("line 3: ")
    /// ```
    public func prefixed(_ prefix: String) -> PrefsError {
        var copy = self
        copy.message = prefix + message
        return copy
    }

    /// The same error with `suffix` after its message (reason, domain and key kept).
    public func suffixed(_ suffix: String) -> PrefsError {
        var copy = self
        copy.message += suffix
        return copy
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
