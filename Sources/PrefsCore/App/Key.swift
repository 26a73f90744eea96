import FoundationEssentials

/// The untyped part of a typed key: its domain and name. Declare keys as static members of
/// `Keys`, so `stack[.volume]` finds them:
///
/// ```swift
/// extension Keys {
///     static let volume = Key<Double>("volume", default: 0.5)
///     static let theme = Key<String>("theme", in: "my-app", default: "light")
/// }
/// ```
public class Keys: @unchecked Sendable {
    /// The key's domain.
    public let domain: Domain
    /// The key's name in its domain.
    public let name: String
    /// The default as JSON; nil when the default cannot be written as JSON (a `Double.nan`).
    public let defaultJSON: JSONValue?

    init(domain: Domain, name: String, defaultJSON: JSONValue?) {
        precondition((try? KeyName.validate(name)) != nil, "invalid key name \(JSONValue.string(name).compactText) in a Key")
        self.domain = domain
        self.name = name
        self.defaultJSON = defaultJSON
    }
}

/// A typed key: its domain, name and default value. Reads never return nil: a key that is
/// absent, or holds something that does not decode as `Value`, reads as the default (and
/// ``KeyValueStack/reading(_:)`` says why).
///
/// ```swift
/// extension Keys {
///     static let launches = Key<Int>("launches", default: 0)
/// }
/// let stack = try KeyValueStack(path: "/tmp/prefs-key-demo/prefs.db")
/// stack[.launches] += 1                       // queued, as `set`
/// try stack.update(.launches) { $0 += 1 }     // atomic against other processes
/// print(stack[.launches])
/// ```
public final class Key<Value: Codable & Sendable>: Keys, @unchecked Sendable {
    /// What the key reads as when nothing (readable) is stored.
    public let defaultValue: Value

    /// Creates a key. The name must be a valid key name (an invalid one is a programming
    /// error and stops the program, as an invalid `Domain` literal does).
    ///
    /// - Parameters:
    ///   - name: the key's name.
    ///   - domain: its domain (default `user`).
    ///   - defaultValue: what it reads as when nothing is stored.
    public init(_ name: String, in domain: Domain = .user, default defaultValue: Value) {
        self.defaultValue = defaultValue
        super.init(domain: domain, name: name, defaultJSON: try? TypedCoding.encode(defaultValue))
    }
}

/// How typed keys convert between `Value` and ``JSONValue``.
enum TypedCoding {
    static func encode<Value: Encodable>(_ value: Value) throws -> JSONValue {
        if let json = value as? JSONValue { return json }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return try JSONValue(parsingUTF8: Array(try encoder.encode(value)))
    }

    static func decode<Value: Decodable>(_ type: Value.Type, from json: JSONValue) throws -> Value {
        if let value = json as? Value { return value }
        return try JSONDecoder().decode(Value.self, from: Data(json.compactText.utf8))
    }

    /// `encode`, failing with a ``PrefsError`` naming the key.
    static func encode<Value: Codable & Sendable>(_ value: Value, for key: Key<Value>) throws -> JSONValue {
        do {
            return try encode(value)
        } catch {
            throw PrefsError(
                .invalidValue, "cannot encode a \(Value.self) as JSON for \(key.domain.name)/\(key.name): \(error)", domain: key.domain,
                key: key.name)
        }
    }
}

/// What a typed read found: the value (never missing), where it came from, and why the
/// default answered when something was stored but could not be used.
///
/// ```swift
/// let reading = stack.reading(.volume)
/// if let failure = reading.failure { print("using the default:", failure.message) }
/// ```
public struct KeyReading<Value: Sendable>: Sendable {
    /// The value: the override or stored value, else the key's default.
    public var value: Value
    /// Where ``value`` came from: `override`, `store`, `project`, `system`, `locked` or
    /// `default` (the key's default).
    public var origin: ValueOrigin
    /// Why the default answered although a value may be stored: the stored JSON does not
    /// decode as `Value` (reason `PrefsError/Reason/typeMismatch(expected:)`), or the store
    /// cannot be read. Nil when the value is the stored one or nothing is stored.
    public var failure: PrefsError?
    /// The JSON the value was read from (the stored or override JSON, or the default's).
    public var json: JSONValue?
}
