import FoundationEssentials
import Synchronization

/// State of a stack that only the typed-key API uses.
final class TypedState: Sendable {
    /// The error of the last write through `stack[key] = value`, which cannot throw.
    let lastWriteError = Mutex<PrefsError?>(nil)
}

extension KeyValueStack {
    // MARK: - Reading

    /// The value of a typed key: an override, else the stored value (queued writes
    /// included), else the key's default. Never fails: a value that does not decode, or a
    /// store that cannot be read, reads as the default, and ``reading(_:)`` says why.
    ///
    /// Writing through the subscript queues the value as ``set(_:_:expiresIn:)`` does; as a
    /// setter cannot throw, a refused write (a schema violation, an unwritable store) is
    /// dropped and kept in ``lastKeyWriteError``. Use ``set(_:_:expiresIn:)`` to see it
    /// thrown.
    ///
    /// ```swift
    /// stack[.volume] = 0.8
    /// let volume = stack[.volume]   // 0.8
    /// ```
    public subscript<Value>(key: Key<Value>) -> Value {
        get { reading(key).value }
        set {
            do {
                try set(key, newValue)
                typed.lastWriteError.withLock { $0 = nil }
            } catch let error as PrefsError {
                typed.lastWriteError.withLock { $0 = error }
            } catch {
                typed.lastWriteError.withLock { $0 = PrefsError(.invalidValue, "\(error)", domain: key.domain, key: key.name) }
            }
        }
    }

    /// The error of the last write through ``subscript(_:)``, nil when it succeeded.
    public var lastKeyWriteError: PrefsError? { typed.lastWriteError.withLock { $0 } }

    /// Reads a typed key with where the value came from and, when the default answered for
    /// a stored value that could not be used, why.
    ///
    /// ```swift
    /// let reading = stack.reading(.volume)
    /// print(reading.value, reading.origin, reading.failure?.reason as Any)
    /// ```
    public func reading<Value>(_ key: Key<Value>) -> KeyReading<Value> {
        let found: (JSONValue, ValueOrigin)?
        do {
            if layers.lock(in: key.domain, forKey: key.name) != nil {
                found = layers.system[key.domain]?[key.name].map { ($0.value, .locked) }
            } else if let value = overrides[key.domain]?[key.name] {
                found = (value, .override)
            } else if let value = try storedValue(in: key.domain, forKey: key.name) {
                found = (value, .store)
            } else {
                found = layers.layered(in: key.domain, forKey: key.name).map { ($0.value.value, $0.origin) }
            }
        } catch let error as PrefsError {
            return KeyReading(value: key.defaultValue, origin: .default, failure: error.naming(key.domain, key.name), json: key.defaultJSON)
        } catch {
            return KeyReading(
                value: key.defaultValue, origin: .default,
                failure: PrefsError(.storeUnreadable, "\(error)", domain: key.domain, key: key.name),
                json: key.defaultJSON)
        }
        guard let (json, origin) = found else {
            return KeyReading(value: key.defaultValue, origin: .default, failure: nil, json: key.defaultJSON)
        }
        return Self.decoded(json, origin: origin, for: key)
    }

    static func decoded<Value>(_ json: JSONValue, origin: ValueOrigin, for key: Key<Value>) -> KeyReading<Value> {
        do {
            return KeyReading(value: try TypedCoding.decode(Value.self, from: json), origin: origin, failure: nil, json: json)
        } catch {
            let text = json.compactText
            let failure = PrefsError(
                .invalidValue, "\(key.domain.name)/\(key.name) does not hold a \(Value.self): \(text.prefix(60))",
                reason: .typeMismatch(expected: "\(Value.self)"), domain: key.domain, key: key.name)
            return KeyReading(value: key.defaultValue, origin: .default, failure: failure, json: json)
        }
    }

    // MARK: - Writing

    /// Queues `value` under a typed key, as ``set(_:in:forKey:expiresIn:)-(JSONValue,_,_,_)``
    /// does: visible to this stack at once, written with the queue.
    ///
    /// ```swift
    /// try stack.set(.volume, 0.8)
    /// try stack.set(.sessionToken, "abc", expiresIn: .seconds(3600))
    /// ```
    /// - Throws: `PrefsError`: `invalidValue` when the value cannot be encoded or breaks
    ///   the schema; `cannotWrite`/`storeUnreadable` when the store cannot be written.
    public func set<Value>(_ key: Key<Value>, _ value: Value, expiresIn lifetime: Duration? = nil) throws {
        try set(TypedCoding.encode(value, for: key), in: key.domain, forKey: key.name, expiresIn: lifetime)
    }

    /// A condition a typed write checks before it changes anything.
    public enum KeyCondition<Value: Codable & Sendable>: Sendable {
        /// The key must not be stored.
        case absent
        /// The key must be stored with this version (``Entry/version``).
        case version(Int64)
        /// The key must hold a value equivalent to this one.
        case value(Value)
    }

    /// Stores `value` under a typed key only when `condition` holds, and commits before
    /// returning (compare-and-set). Returns the key's new version.
    ///
    /// ```swift
    /// try stack.set(.volume, 0.9, if: .value(0.8))
    /// ```
    /// - Throws: `PrefsError` of kind `preconditionFailed` when the condition does not
    ///   hold (reason `PrefsError/Reason/versionConflict(current:)`,
    ///   `PrefsError/Reason/alreadyExists` or `PrefsError/Reason/valueMismatch`), and as
    ///   ``set(_:_:expiresIn:)``.
    @discardableResult
    public func set<Value>(_ key: Key<Value>, _ value: Value, if condition: KeyCondition<Value>, expiresIn lifetime: Duration? = nil)
        throws -> Int64
    {
        let precondition: Precondition
        switch condition {
        case .absent: precondition = .absent
        case .version(let version): precondition = .version(version)
        case .value(let expected): precondition = .value(try TypedCoding.encode(expected, for: key))
        }
        return try set(TypedCoding.encode(value, for: key), in: key.domain, forKey: key.name, if: precondition, expiresIn: lifetime)
    }

    /// Changes a typed key's value atomically, also against other processes: reads the
    /// committed value (the default when absent), applies `change`, and writes the result
    /// only if nobody wrote the key in between, retrying otherwise. Commits before
    /// returning; returns the value written.
    ///
    /// ```swift
    /// try stack.update(.launches) { $0 += 1 }
    /// ```
    /// - Parameters:
    ///   - key: the key.
    ///   - attempts: how many times to try before giving up (default 100).
    ///   - change: changes the value in place; called once per attempt.
    /// - Throws: `PrefsError`: `invalidValue` (reason `typeMismatch`) when the stored value
    ///   does not decode (it is left alone); `preconditionFailed` (reason `versionConflict`)
    ///   when other writers won every attempt; what `change` throws; as ``set(_:_:expiresIn:)``.
    @discardableResult
    public func update<Value>(_ key: Key<Value>, attempts: Int = 100, _ change: (inout Value) throws -> Void) throws -> Value {
        try flushSynchronously()
        var lastConflict: PrefsError?
        for _ in 0..<max(attempts, 1) {
            let entry = try storedEntry(in: key.domain, forKey: key.name)
            var value = key.defaultValue
            if let entry {
                let reading = Self.decoded(try entry.value(), origin: .store, for: key)
                if let failure = reading.failure { throw failure }
                value = reading.value
            }
            try change(&value)
            let json = try TypedCoding.encode(value, for: key)
            do {
                try set(json, in: key.domain, forKey: key.name, if: entry.map { .version($0.version) } ?? .absent, expiresIn: nil)
                return value
            } catch let error as PrefsError where error.kind == .preconditionFailed {
                lastConflict = error
            }
        }
        throw lastConflict
            ?? PrefsError(.preconditionFailed, "\(key.domain.name)/\(key.name) kept changing", domain: key.domain, key: key.name)
    }

    /// Removes a typed key's stored value, so its default answers again; commits before
    /// returning (logged as `reset`). Returns whether a value was stored.
    ///
    /// ```swift
    /// try stack.reset(.volume)
    /// ```
    /// - Throws: `PrefsError` of kind `cannotWrite` when the store cannot be written.
    @discardableResult
    public func reset(_ key: Keys) throws -> Bool {
        try !reset(in: key.domain, keys: [key.name]).isEmpty
    }

    // MARK: - Defaults

    /// Registers the keys' defaults in code (so ``value(in:forKey:)``, ``resolve(in:forKey:)``
    /// and exports agree with typed reads) and, with `inStoredSchema`, also in the store's
    /// schema, so other processes (`prefs get`, `prefs describe`) see the same defaults.
    ///
    /// A key the schema does not mention is added with its JSON type; one it mentions gets
    /// its `default` replaced. The stored schema is rewritten only when something changed.
    ///
    /// ```swift
    /// try stack.registerDefaults(of: [Keys.volume, Keys.theme], inStoredSchema: true)
    /// ```
    /// - Throws: `PrefsError`: `invalidValue` when a default breaks the schema's rule for
    ///   its key; `cannotWrite` when the store cannot be written.
    public func registerDefaults(of keys: [Keys], inStoredSchema: Bool = false) throws {
        var byDomain: [Domain: [String: JSONValue]] = [:]
        for key in keys { if let json = key.defaultJSON { byDomain[key.domain, default: [:]][key.name] = json } }
        registerDefaults(byDomain)
        guard inStoredSchema else { return }
        let current = try schema()
        var document = current.document
        var changed = false
        for key in keys {
            guard let json = key.defaultJSON else { continue }
            if let spec = current.spec(in: key.domain, forKey: key.name), !spec.isPrefix {
                if spec.defaultValue == json { continue }
                document = Self.setting(document, key.domain.name, key.name, "default", json)
            } else {
                document = Self.setting(
                    document, key.domain.name, key.name, nil, ["type": .string(Self.schemaType(of: json)), "default": json])
            }
            changed = true
        }
        if changed { try loadSchema(document) }
    }

    private static func schemaType(of json: JSONValue) -> String {
        switch json {
        case .null: "any"
        case .bool: "boolean"
        case .number: json.isIntegerNumber ? "integer" : "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }

    /// `document[domain][key]` (or its member `field`) set to `value`, members kept in order.
    private static func setting(_ document: JSONValue, _ domain: String, _ key: String, _ field: String?, _ value: JSONValue) -> JSONValue {
        func put(_ object: JSONValue, _ name: String, _ transform: (JSONValue?) -> JSONValue) -> JSONValue {
            var members = object.objectMembers ?? []
            if let index = members.lastIndex(where: { $0.key == name }) {
                members[index].value = transform(members[index].value)
            } else {
                members.append(.init(name, transform(nil)))
            }
            return .object(members)
        }
        return put(document, domain) { domainObject in
            put(domainObject ?? .object([]), key) { spec in
                guard let field else { return value }
                return put(spec ?? .object([]), field) { _ in value }
            }
        }
    }
}
