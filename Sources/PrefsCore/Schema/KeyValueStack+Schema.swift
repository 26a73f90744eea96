import FoundationEssentials
import Glibc
import Synchronization

/// Defaults registered in code, and the cached schema of the store.
final class DefaultsRegistry: Sendable {
    private struct State {
        var registered: [Domain: [BytewiseString: JSONValue]] = [:]
        var schema: Schema?
        /// The stored document ``schema`` was parsed from (nil: none stored).
        var schemaText: String?
        /// The store's commit stamp when ``schemaText`` was read (nil: check again).
        var schemaStamp: StoreDatabase.CommitStamp?
        /// Counts this stack's own schema changes (loads, restores): its own commits do not
        /// move `data_version`, so a read that started before one must not cache what it read.
        var schemaChanges = 0
        /// The schema ``KeyValueStack/withSchemaSnapshot(_:)`` holds while its body runs.
        var pinned: Schema?
    }

    private let state = Mutex(State())

    func register(_ defaults: [Domain: [String: JSONValue]]) {
        state.withLock { state in
            for (domain, values) in defaults {
                for (key, value) in values { state.registered[domain, default: [:]][BytewiseString(key)] = value }
            }
        }
    }

    func registered(in domain: Domain, forKey key: String) -> JSONValue? {
        state.withLock { $0.registered[domain]?[BytewiseString(key)] }
    }

    func registered(in domain: Domain) -> [String: JSONValue] {
        state.withLock { state in
            var result: [String: JSONValue] = [:]
            for (key, value) in state.registered[domain] ?? [:] { result[key.value] = value }
            return result
        }
    }

    var registeredDomains: [Domain] { state.withLock { Array($0.registered.keys) } }

    /// The schema as last read, whatever has been committed since.
    var cachedSchema: Schema? { state.withLock { $0.schema } }

    /// The schema held by ``KeyValueStack/withSchemaSnapshot(_:)``, if one is.
    var pinnedSchema: Schema? { state.withLock { $0.pinned } }

    /// Holds `schema` (nil: lets go).
    func pin(_ schema: Schema?) {
        state.withLock { $0.pinned = schema }
    }

    /// The cached schema when no other connection has committed since it was read (`stamp`).
    func cachedSchema(at stamp: StoreDatabase.CommitStamp?) -> Schema? {
        state.withLock { state in
            guard let stamp, stamp == state.schemaStamp else { return nil }
            return state.schema
        }
    }

    /// The cached schema when it was parsed from `text`, now known current at `stamp`.
    func cachedSchema(text: String?, at stamp: StoreDatabase.CommitStamp?) -> Schema? {
        state.withLock { state in
            guard let schema = state.schema, state.schemaText == text else { return nil }
            state.schemaStamp = stamp
            return schema
        }
    }

    /// Caches `schema`, parsed from `text`, as current at `stamp`, unless this stack changed
    /// the schema since `changes` (``schemaChanges``) was read.
    func cache(_ schema: Schema, text: String?, at stamp: StoreDatabase.CommitStamp?, ifChangesAre changes: Int? = nil) {
        state.withLock { state in
            if let changes, changes != state.schemaChanges { return }
            state.schema = schema
            state.schemaText = text
            state.schemaStamp = stamp
        }
    }

    /// How many times this stack changed the schema (see ``invalidateSchema()``).
    var schemaChanges: Int { state.withLock { $0.schemaChanges } }

    /// Forgets the cached schema: this stack is about to change it (or just did).
    func invalidateSchema() {
        state.withLock { state in
            state.schemaChanges += 1
            state.schema = nil
            state.schemaText = nil
            state.schemaStamp = nil
        }
    }
}

/// Where a value read came from, in lookup order.
public enum ValueOrigin: String, Sendable {
    /// A per-invocation override (`--override`, `PREFS_OVERRIDES`, ``KeyValueStack/Options/overrides``).
    case override
    /// The user's store.
    case store
    /// The project layer (`.prefs.json`; see ``Layers``).
    case project
    /// The system layer (`/etc/prefs/*.json`).
    case system
    /// The system layer's value of a key a lock covers (`/etc/prefs/locks/*`).
    case locked
    /// A default registered in code (``KeyValueStack/registerDefaults(_:)``, a typed
    /// ``Key``'s default).
    case `default`
    /// The `default` of the schema loaded into the store.
    case schema
    /// The caller's own fallback (`get --default`).
    case fallback
}

extension KeyValueStack {
    // MARK: - Defaults and lookup

    /// Registers default values in code: a key with no stored value reads as its default
    /// (after overrides and stored values, before the schema's defaults).
    ///
    /// ```swift
    /// stack.registerDefaults([.user: ["theme": .string("light")]])
    /// ```
    public func registerDefaults(_ defaults: [Domain: [String: JSONValue]]) {
        self.defaults.register(defaults)
    }

    /// The value of a key by the lookup order — override, stored, project, system,
    /// registered default — with its origin; nil when none answers. A key a system lock
    /// covers answers the system value (origin `locked`), else its default, whatever the
    /// override, the store and the project hold.
    ///
    /// ```swift
    /// if let (value, origin) = try stack.resolve(in: .user, forKey: "theme") { print(value, origin) }
    /// ```
    /// - Throws: `PrefsError`: `usage` for a bad key; `storeUnreadable`.
    public func resolve(in domain: Domain, forKey key: String) throws -> (value: JSONValue, origin: ValueOrigin)? {
        try resolution(in: domain, forKey: key, withEntry: false).map { ($0.value, $0.origin) }
    }

    /// The one lookup order behind ``resolve(in:forKey:)`` (override, store, project, system,
    /// default; a locked key answers the system value); with `withEntry`, a stored value comes
    /// with its entry (version and times, for `get --show-meta`).
    package func resolution(in domain: Domain, forKey key: String, withEntry: Bool) throws -> (
        value: JSONValue, origin: ValueOrigin, entry: Entry?
    )? {
        if layers.lock(in: domain, forKey: key) != nil {
            try KeyName.validate(key)
            if let value = layers.system[domain]?[key] { return (value.value, .locked, nil) }
            if let (value, origin) = try defaultResolution(in: domain, forKey: key) { return (value, origin, nil) }
            return nil
        }
        if let value = overrides[domain]?[key] { return (value, .override, nil) }
        if withEntry {
            if let entry = try entry(in: domain, forKey: key) { return (try entry.value(), .store, entry) }
        } else if let value = try storedValue(in: domain, forKey: key) {
            return (value, .store, nil)
        }
        if let (value, origin) = layers.layered(in: domain, forKey: key) { return (value.value, origin, nil) }
        if let (value, origin) = try defaultResolution(in: domain, forKey: key) { return (value, origin, nil) }
        return nil
    }

    /// The file behind an answer of ``resolve(in:forKey:)`` with this origin: the project or
    /// system file of a `project` or `system` value, the lock file of a `locked` one; nil for
    /// the other origins.
    public func layerFile(of origin: ValueOrigin, in domain: Domain, forKey key: String) -> String? {
        switch origin {
        case .project: layers.project[domain]?[key]?.file
        case .system: layers.system[domain]?[key]?.file
        case .locked: layers.lock(in: domain, forKey: key)?.file
        default: nil
        }
    }

    /// The registered default of a key: from code first, else from the schema.
    ///
    /// - Throws: `PrefsError` of kind `storeUnreadable` when the schema cannot be read.
    public func defaultValue(in domain: Domain, forKey key: String) throws -> JSONValue? {
        try defaultResolution(in: domain, forKey: key)?.value
    }

    /// The registered default of a key and where it comes from: `default` (code) first,
    /// else `schema`.
    func defaultResolution(in domain: Domain, forKey key: String) throws -> (value: JSONValue, origin: ValueOrigin)? {
        if let value = defaults.registered(in: domain, forKey: key) { return (value, .default) }
        return try schema().spec(in: domain, forKey: key)?.defaultValue.map { ($0, .schema) }
    }

    // MARK: - Schema

    /// The schema loaded into the store (empty when none). Cached by the stack, and read
    /// again once another process (or stack) has committed a new one: a long-lived process
    /// applies the defaults and constraints of a `prefs schema load` made after it started.
    ///
    /// - Throws: `PrefsError` of kind `storeUnreadable` when the store cannot be read.
    public func schema() throws -> Schema {
        if let pinned = defaults.pinnedSchema { return pinned }
        // Taken before the document is read: a commit in between is seen at the next call.
        let changes = defaults.schemaChanges
        let stamp = try main.commitStamp()
        if let cached = defaults.cachedSchema(at: stamp) { return cached }
        let text = try main.read({ try StoreMeta.value($0, .schema) }) ?? nil
        if let cached = defaults.cachedSchema(text: text, at: stamp) { return cached }
        var schema = Schema()
        if let text {
            do {
                schema = try Schema(parsing: try JSONValue(parsing: text, wrappingLevels: 4), checkingPatterns: false)
            } catch {
                throw PrefsError(.storeUnreadable, "the schema stored in \(main.displayPath) is damaged: \(error)")
            }
        }
        defaults.cache(schema, text: text, at: stamp, ifChangesAre: changes)
        return schema
    }

    /// Runs `body` with the schema read once, when it starts: the writes it queues are checked
    /// against that schema without asking the store whether another process changed it for
    /// each one (`prefs batch` runs the lines of one read of its input in here). A schema
    /// loaded meanwhile applies from the next call.
    ///
    /// - Throws: what `body` throws; `PrefsError` when the schema cannot be read.
    package func withSchemaSnapshot<T>(_ body: () throws -> T) throws -> T {
        defaults.pin(try schema())
        defer { defaults.pin(nil) }
        return try body()
    }

    /// Checks a schema document, stores it as the active schema, and returns the stored
    /// values that break it (one message each, e.g. `user/theme: enum: "blue" is not one of
    /// "light", "dark"`). A document with an error is refused and the previous schema stays.
    ///
    /// - Throws: `PrefsError`: `invalidValue` with the JSON path of the problem;
    ///   `cannotWrite`.
    @discardableResult
    public func loadSchema(_ document: JSONValue) throws -> [String] {
        let schema = try Schema(parsing: document)
        try flushSynchronously()
        let text = document.compactText
        defaults.invalidateSchema()
        try main.write { try StoreMeta.set($0, .schema, text) }
        defaults.invalidateSchema()
        defaults.cache(schema, text: text, at: nil)
        var violations: [String] = []
        for domain in schema.domains.keys.sorted() {
            try forEachEntry(in: domain) { entry in
                do {
                    try schema.validate(try entry.value(), in: domain, forKey: entry.key)
                } catch let error as PrefsError {
                    violations.append(error.message)
                }
            }
        }
        return violations
    }

    /// Checks a value against the schema unless ``validatesWrites`` is off; `value` is
    /// evaluated only when the schema has a rule for the key.
    func validateWrite(_ value: @autoclosure () throws -> JSONValue, in domain: Domain, forKey key: String) throws {
        guard validatesWrites else { return }
        try schema().validate(value(), in: domain, forKey: key)
    }

    // MARK: - Reset

    /// Removes stored values so defaults answer again, in one transaction logged as `reset`;
    /// returns the keys removed.
    ///
    /// ```swift
    /// try stack.reset(in: .user, keys: ["theme"])
    /// ```
    /// - Parameters:
    ///   - keys: these keys; nil with `prefix` nil resets the whole domain.
    ///   - domain: the domain.
    ///   - prefix: every key starting with this text.
    /// - Throws: `PrefsError`: `usage` for a bad key; `cannotWrite`.
    @discardableResult
    public func reset(in domain: Domain, keys: [String]? = nil, prefix: String? = nil) throws -> [String] {
        for key in keys ?? [] { try KeyName.validate(key) }
        try flushSynchronously()
        var targets: [String] = keys ?? []
        if keys == nil || prefix != nil {
            try forEachEntry(in: domain, prefix: prefix) { targets.append($0.key) }
        }
        guard !targets.isEmpty, try database(for: domain).reader() != nil else { return [] }
        let database = database(for: domain)
        let events = try WriteTransaction.run(on: database, op: .reset) { transaction in
            try ChangeApplier(transaction).apply(
                targets.map { (PendingKey(domain: domain, key: $0), PendingChange.remove) }, op: .reset,
                requireExisting: false
            ).events
        }
        observers.deliver(events)
        return events.map(\.key)
    }
}

extension KeyValueStack {
    /// The domains that exist for reads: ``domains()`` (the built-in ones, `memory` and every
    /// custom domain written to) and those an override, a registered default or the schema
    /// names, sorted. `prefs export` and `list` of any other domain are exit 1 (not found).
    ///
    /// - Throws: `PrefsError` of kind `storeUnreadable` when the store cannot be read.
    public func knownDomains() throws -> [Domain] {
        var result = Set(try domains())
        result.formUnion(overrides.keys)
        result.formUnion(layers.domains)
        result.formUnion(defaults.registeredDomains)
        result.formUnion(try schema().domains.keys)
        return result.sorted()
    }

    /// Visits what reads would answer, key by key: stored entries, overrides in their place
    /// or added, and registered defaults (exact keys of code and schema) for keys with no
    /// stored value — each with its origin, in domain then key order.
    ///
    /// ```swift
    /// try stack.forEachEffectiveEntry(in: .user) { entry, origin in print(entry.key, origin) }
    /// ```
    /// - Throws: `PrefsError` when the store cannot be read, or what `body` throws.
    public func forEachEffectiveEntry(
        in domain: Domain? = nil, prefix: String? = nil, _ body: (Entry, ValueOrigin) throws -> Void
    ) throws {
        let schema = try self.schema()
        for each in try effectiveDomains(domain, schema) {
            try forEachEffectiveEntry(of: each, listingAll: domain == nil, schema: schema, prefix: prefix, body)
        }
    }

    /// Visits each entry's domain, key, value and origin as ``forEachEffectiveEntry(in:prefix:_:)``
    /// does, the key and value as UTF-8 bytes valid only during the call: a domain where only
    /// stored values answer (no override, default, layer file or lock) is read straight from
    /// SQLite's rows, with no `String` per entry (`list`).
    package func forEachEffectiveRow(
        in domain: Domain? = nil, prefix: String? = nil,
        _ body: (Domain, UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>, ValueOrigin) throws -> Void
    ) throws {
        let schema = try self.schema()
        for each in try effectiveDomains(domain, schema) {
            let extras = try effectiveExtras(of: each, schema: schema, prefix: prefix)
            let storedOnly = extras.isEmpty && !layers.locks.contains { $0.domain == each }
            if storedOnly {
                var delivered = false
                do {
                    try forEachRow(in: each, prefix: prefix) { domain, key, json in
                        delivered = true
                        try body(domain, key, json, .store)
                    }
                } catch let error as PrefsError where !delivered && domain == nil && each == .memory && error.kind != .notFound {
                    // Listing everything: an unusable memory tier does not hide the store file
                    // (once an entry of it was given, its error is the caller's: output began).
                }
                continue
            }
            try forEachEffectiveEntry(of: each, listingAll: domain == nil, schema: schema, prefix: prefix) { entry, origin in
                var entry = entry
                try entry.key.withUTF8 { key in try entry.json.withUTF8 { json in try body(each, key, json, origin) } }
            }
        }
    }

    /// The domains ``forEachEffectiveEntry(in:prefix:_:)`` visits, sorted.
    private func effectiveDomains(_ domain: Domain?, _ schema: Schema) throws -> [Domain] {
        var domains = Set(try domain.map { [$0] } ?? self.domains())
        if domain == nil {
            domains.formUnion(layers.domains)
            domains.formUnion(overrides.keys)
            domains.formUnion(defaults.registeredDomains)
            domains.formUnion(schema.domains.keys)
        }
        return domains.sorted()
    }

    /// What answers in `domain` besides its stored values, for keys with `prefix`, in key
    /// order: schema and code defaults, layer files, overrides, and what a lock answers.
    private func effectiveExtras(
        of domain: Domain, schema: Schema, prefix: String?
    ) throws -> [(key: String, value: JSONValue, origin: ValueOrigin)] {
        var extras: [BytewiseString: (JSONValue, ValueOrigin)] = [:]
        for spec in schema.domains[domain] ?? [] where !spec.isPrefix {
            if let value = spec.defaultValue { extras[BytewiseString(spec.key)] = (value, .schema) }
        }
        for (key, value) in defaults.registered(in: domain) { extras[BytewiseString(key)] = (value, .default) }
        for (key, value) in layers.system[domain] ?? [:] { extras[BytewiseString(key)] = (value.value, .system) }
        for (key, value) in layers.project[domain] ?? [:] { extras[BytewiseString(key)] = (value.value, .project) }
        for (key, value) in overrides[domain] ?? [:] { extras[BytewiseString(key)] = (value, .override) }
        // A locked key answers the system value, else its default, else nothing: the visit
        // skips the stored row of a locked key that no entry here answers.
        if !layers.locks.isEmpty {
            for (key, _) in extras where layers.lock(in: domain, forKey: key.value) != nil {
                if let value = layers.system[domain]?[key.value] {
                    extras[key] = (value.value, .locked)
                } else if let (value, origin) = try defaultResolution(in: domain, forKey: key.value) {
                    extras[key] = (value, origin)
                } else {
                    extras[key] = nil
                }
            }
        }
        return extras.filter { prefix == nil || $0.key.value.utf8.starts(with: prefix!.utf8) }
            .map { (key: $0.key.value, value: $0.value.0, origin: $0.value.1) }
            .sorted { BytewiseString.precedes($0.key, $1.key) }
    }

    /// One domain's part of ``forEachEffectiveEntry(in:prefix:_:)``.
    private func forEachEffectiveEntry(
        of domain: Domain, listingAll: Bool, schema: Schema, prefix: String?, _ body: (Entry, ValueOrigin) throws -> Void
    ) throws {
        var pending = try effectiveExtras(of: domain, schema: schema, prefix: prefix)[...]
        let locks = layers.locks.filter { $0.domain == domain }
        func extraEntry(_ item: (key: String, value: JSONValue, origin: ValueOrigin)) -> Entry {
            Entry(domain: domain, key: item.key, json: item.value.compactText, version: 0, updatedAt: 0)
        }
        let visit = { (body: (Entry) throws -> Void) throws in
            var delivered = false
            do {
                try self.forEachEntry(in: domain, prefix: prefix) { entry in
                    delivered = true
                    try body(entry)
                }
            } catch let error as PrefsError where !delivered && listingAll && domain == .memory && error.kind != .notFound {
                // Listing everything: an unusable memory tier does not hide the store file
                // (once an entry of it was given, its error is the caller's: output began).
            }
        }
        try visit { entry in
            while let next = pending.first, BytewiseString.precedes(next.key, entry.key) {
                pending.removeFirst()
                try body(extraEntry(next), next.origin)
            }
            let locked = !locks.isEmpty && locks.contains { $0.covers(domain, entry.key) }
            if let next = pending.first, BytewiseString.equal(next.key, entry.key) {
                pending.removeFirst()
                if next.origin == .override || locked {
                    try body(extraEntry(next), next.origin)
                    return
                }
            }
            if locked { return }  // no system value nor default: the stored row is not read
            try body(entry, .store)
        }
        for item in pending { try body(extraEntry(item), item.origin) }
    }
}

extension KeyValueStack {
    /// Whether `domain` is one ``knownDomains()`` lists, asked of this one domain: a built-in
    /// domain, one with queued writes, a custom domain written to, an override's, a registered
    /// default's or the schema's. One indexed lookup, however many domains the store holds
    /// (the CLI asks it before every write that could create a domain).
    package func knowsDomain(_ domain: Domain) throws -> Bool {
        if domain == .memory || Domain.builtInPersistent.contains(domain) { return true }
        if overrides[domain] != nil || defaults.registeredDomains.contains(domain) { return true }
        if !queue.overlay(domain: domain).isEmpty { return true }
        if try main.read({ try DomainTable.exists($0, domain) }) == true { return true }
        return try schema().domains[domain] != nil
    }
}
