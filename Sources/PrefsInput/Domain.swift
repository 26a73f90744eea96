import PrefsBase
import PrefsJSON

/// A validated domain name: one of the built-in domains or a custom one.
///
/// Names match `^[a-z][a-z0-9_-]{0,63}$`. A domain other than ``memory`` is persistent and
/// stored in its own table; ``memory`` lives only in RAM.
///
/// ```swift
/// let ci = try Domain(name)        // a name from input: checked, throws when invalid
/// try stack.set(.string("warm"), in: ci, forKey: "state")
/// let app: Domain = "my-app"   // a literal: an invalid name is a programming error (it traps)
/// ```
public struct Domain: Hashable, Sendable, Comparable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The domain's name.
    public let name: String

    /// Ordinary persistent state that belongs to no other domain.
    public static let `default` = Domain(unchecked: "default")
    /// Resources configured by a server.
    public static let dynamic = Domain(unchecked: "dynamic")
    /// Operational switches and feature flags.
    public static let `switch` = Domain(unchecked: "switch")
    /// Records of what the user did.
    public static let user = Domain(unchecked: "user")
    /// Values shared by processes of one user but never written to the store file.
    public static let memory = Domain(unchecked: "memory")

    /// The persistent built-in domains, in display order.
    public static let builtInPersistent: [Domain] = [.default, .dynamic, .switch, .user]

    /// Validates and creates a domain.
    ///
    /// - Throws: ``PrefsError`` of kind ``PrefsError/Kind/usage`` when the name does not
    ///   match `^[a-z][a-z0-9_-]{0,63}$`.
    public init(_ name: String) throws {
        guard Domain.isValidName(name) else {
            throw PrefsError(
                .usage, "invalid domain name \(Domain.quoted(name)): use 1-64 characters a-z, 0-9, '_' or '-', starting with a letter")
        }
        self.name = name
    }

    /// A domain written as a string literal, e.g. `"my-app"`.
    ///
    /// The name must be valid (see ``isValidName(_:)``): an invalid literal stops the program,
    /// as a malformed literal is a mistake in the code, not in its input. Use
    /// ``init(_:)`` for names that come from input.
    public init(stringLiteral name: String) {
        precondition(Domain.isValidName(name), "invalid domain name \(Domain.quoted(name)) in a literal")
        self.name = name
    }

    private init(unchecked name: String) {
        self.name = name
    }

    /// Whether `name` is a valid domain name.
    public static func isValidName(_ name: String) -> Bool {
        var name = name
        return name.withUTF8 { bytes in
            guard (1...64).contains(bytes.count), (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(bytes[0]) else {
                return false
            }
            return bytes.allSatisfy { b in
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(b) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b)
                    || b == UInt8(ascii: "_") || b == UInt8(ascii: "-")
            }
        }
    }

    /// Hashes the name's bytes (names are ASCII, so this agrees with `==`), which costs less
    /// than hashing a `String`: the write queue hashes a domain with every key.
    public func hash(into hasher: inout Hasher) {
        BytewiseString.hashBytes(name, into: &hasher)
    }

    /// Whether the domain is written to the store file (every domain but ``memory``).
    public var isPersistent: Bool { self != .memory }

    /// The name.
    public var description: String { name }

    /// Orders domains by name.
    public static func < (lhs: Domain, rhs: Domain) -> Bool { lhs.name < rhs.name }

    /// A name quoted for an error message, with control characters made visible.
    static func quoted(_ text: String) -> String {
        let shown = text.count > 80 ? String(text.prefix(80)) + "…" : text
        return JSONValue.string(shown).compactText
    }
}
