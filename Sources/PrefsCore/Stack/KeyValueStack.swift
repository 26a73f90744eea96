import FoundationEssentials
import Glibc

/// The prefs store: domains of keys with JSON values, on one SQLite file, plus the RAM-only
/// `memory` domain.
///
/// Open a stack on a path (nothing is created until the first write), then read and write:
///
/// ```swift
/// let stack = try KeyValueStack(path: "/tmp/app/prefs.db")
/// try stack.set("dark", in: .user, forKey: "theme")         // visible at once
/// let theme = try stack.value(in: .user, forKey: "theme")   // .string("dark")
/// try await stack.flush()                                   // durable now
/// ```
///
/// Plain writes go through the debounce queue: they are visible to reads of this stack at
/// once and written together, in one transaction, one ``Options/window`` after the first of
/// them (or at ``flush()``/``close()``). Conditional writes, prefix removals and imports
/// flush the queue and commit before they return. Several processes may use one store at
/// once: SQLite's WAL journal lets readers run beside a writer, and writers wait for each
/// other up to ``Options/busyTimeout``.
public final class KeyValueStack: Sendable {
    /// Where the `memory` domain lives.
    public enum MemoryTier: Sendable, Equatable {
        /// In a file under a RAM-backed directory (`$XDG_RUNTIME_DIR/prefs` or
        /// `/dev/shm/prefs-UID`), shared by every process of this user using the same store,
        /// gone after a reboot (or when the login session's runtime directory is removed).
        case shared
        /// Inside this process only, gone when the stack is released.
        case inProcess
    }

    /// How a stack is opened.
    public struct Options: Sendable {
        /// Where the `memory` domain lives. Default ``MemoryTier/inProcess``.
        public var memoryTier: MemoryTier
        /// How long a write waits for another process's lock before failing, in seconds
        /// (clamped to 0 ... ``maximumBusyTimeout``; not a number counts as the default, 5).
        public var busyTimeout: TimeInterval

        /// The longest lock wait a stack accepts: one day.
        public static let maximumBusyTimeout: TimeInterval = 86_400

        /// The options of the package's programs (`prefs`, `prefs-sync`, `prefs-serve`): the
        /// memory tier shared between processes and `PREFS_BUSY_TIMEOUT` from `environment`.
        /// - Throws: ``PrefsError`` of kind `usage` for an invalid `PREFS_BUSY_TIMEOUT`.
        package static func commandLine(window: Duration = .seconds(1), environment: [String: String]) throws -> Options {
            var options = Options(memoryTier: .shared, window: window, environment: environment)
            if let seconds = try busyTimeoutFromEnvironment(environment) { options.busyTimeout = seconds }
            return options
        }

        /// `PREFS_BUSY_TIMEOUT` from `environment`: nil when unset or empty.
        ///
        /// ```swift
        /// var options = KeyValueStack.Options()
        /// options.busyTimeout = try KeyValueStack.Options.busyTimeoutFromEnvironment(ProcessEnvironment.current()) ?? 5
        /// ```
        /// - Throws: `PrefsError` of kind `usage` unless it is a plain decimal number of
        ///   seconds from 0 to ``maximumBusyTimeout`` (no `inf`, `nan`, hex or exponent).
        public static func busyTimeoutFromEnvironment(_ environment: [String: String]) throws -> TimeInterval? {
            guard let text = environment["PREFS_BUSY_TIMEOUT"], !text.isEmpty else { return nil }
            let plain = text.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2E } && text.utf8.count <= 16
            guard plain, let seconds = Double(text), seconds <= maximumBusyTimeout else {
                throw PrefsError(
                    .usage,
                    "PREFS_BUSY_TIMEOUT must be a number of seconds from 0 to \(Int(maximumBusyTimeout)), got \(text.debugDescription)"
                )
            }
            return seconds
        }
        /// The debounce window: queued writes are written this long after the first of them.
        /// Default one second; at least one millisecond.
        public var window: Duration
        /// When this many keys are pending, a flush starts before the window ends (default
        /// 10,000): it bounds the queue's memory and lets a writer thread overlap the caller.
        public var maximumPending: Int
        /// Called after every flush, successful or not, on the flushing thread.
        public var onFlush: (@Sendable (FlushReport) -> Void)?
        /// The environment used to find the RAM-backed directory of the shared memory tier.
        public var environment: [String: String]
        /// Who the change log names for this stack's writes; nil means `PREFS_ACTOR` from
        /// ``environment``, else `USER@HOST`.
        public var actor: String?
        /// Values to read instead of the stored ones, per domain and key; never written
        /// (the CLI's `--override` and `PREFS_OVERRIDES`).
        public var overrides: [Domain: [String: JSONValue]] = [:]
        /// Whether writes are checked against the loaded schema (default true; the CLI's
        /// `--force` turns it off).
        public var validatesWrites = true
        /// Whether queued writes are flushed when the window ends (default true). A one-shot
        /// command that flushes before it exits turns it off: arming the timer starts
        /// libdispatch's manager thread and event loop, which such a command never needs.
        package var flushesOnTimer = true
        /// The project and system layers; nil (the default) reads them for ``environment``
        /// and the current directory (``Layers/current(environment:workingDirectory:)``), ``Layers/none``
        /// turns them off.
        public var layers: Layers?

        /// Creates options.
        ///
        /// ```swift
        /// let stack = try KeyValueStack(path: path, options: .init(memoryTier: .shared, window: .milliseconds(250)))
        /// ```
        public init(
            memoryTier: MemoryTier = .inProcess,
            busyTimeout: TimeInterval = 5,
            window: Duration = .seconds(1),
            maximumPending: Int = 10_000,
            onFlush: (@Sendable (FlushReport) -> Void)? = nil,
            environment: [String: String] = ProcessEnvironment.current(),
            actor: String? = nil
        ) {
            self.actor = actor
            self.memoryTier = memoryTier
            self.busyTimeout = busyTimeout
            self.window = max(window, .milliseconds(1))
            self.maximumPending = max(maximumPending, 1)
            self.onFlush = onFlush
            self.environment = environment
        }
    }

    /// The store file's path.
    public let path: String
    let main: StoreDatabase
    let memory: StoreDatabase
    let queue: WriteQueue
    let observers: ChangeObservers
    let defaults: DefaultsRegistry
    let typed = TypedState()
    /// Values this stack reads instead of the stored ones (never written).
    public let overrides: [Domain: [String: JSONValue]]
    /// Whether writes are checked against the schema (``Options/validatesWrites``).
    public let validatesWrites: Bool
    /// The project and system layers this stack reads beneath the store, and their locks
    /// (read again by ``reloadLayers()``).
    public var layers: Layers { layerState.current }
    let layerState: LayerState

    /// Opens the store at `path`. Nothing is read or created until the first call that needs
    /// it; a store that does not exist reads as empty.
    ///
    /// ```swift
    /// let stack = try KeyValueStack(path: StoreLocation.resolve(explicit: nil, environment: env))
    /// ```
    /// - Throws: `PrefsError` of kind `PrefsError/Kind/usage` for an empty path, or an
    ///   actor with a control character or longer than 256 characters.
    public init(path: String, options: Options = Options()) throws {
        guard !path.isEmpty else { throw PrefsError(.usage, "store path is empty") }
        self.path = path
        let actor = options.actor ?? Self.defaultActor(environment: options.environment)
        // The change log shows the actor and sync passes it on: the same rule as for pulled
        // operations (printable, at most 256 characters).
        if actor.unicodeScalars.count > SyncOperation.maximumActorLength || actor.unicodeScalars.contains(where: SyncOperation.isControl) {
            throw PrefsError(
                .usage,
                "the actor (--actor or PREFS_ACTOR) must be printable text of at most \(SyncOperation.maximumActorLength) characters")
        }
        // SQLite names -wal and -shm after the file a symbolic link leads to: so do the checks.
        let resolved = StoreLocation.resolvingSymbolicLinks(path)
        let layers = options.layers ?? Layers.current(environment: options.environment)
        let layerState = LayerState(layers, environment: options.layers == nil ? options.environment : nil)
        self.layerState = layerState
        let main = StoreDatabase(
            location: .file(resolved), kind: .main, busyTimeout: options.busyTimeout, actor: actor, linkPath: path,
            layers: layerState)
        let memory: StoreDatabase
        switch options.memoryTier {
        case .inProcess:
            memory = StoreDatabase(
                location: .inProcess, kind: .memoryTier, busyTimeout: options.busyTimeout, actor: actor, layers: layerState)
        case .shared:
            let file = StoreLocation.memoryFile(forStore: resolved, environment: options.environment)
            memory = StoreDatabase(
                location: .file(file), kind: .memoryTier, busyTimeout: options.busyTimeout, actor: actor,
                ownerPath: StoreLocation.absolutePath(resolved), layers: layerState)
        }
        let observers = ChangeObservers()
        self.main = main
        self.memory = memory
        self.observers = observers
        let defaults = DefaultsRegistry()
        self.defaults = defaults
        self.overrides = options.overrides
        self.validatesWrites = options.validatesWrites
        // Increments are checked again when they are written: the stored value they add to
        // may have changed since they were queued. The schema is the one this stack read.
        var check: ChangeApplier.IncrementCheck?
        if options.validatesWrites {
            check = { (domain: Domain, key: String, value: JSONValue) -> PrefsError? in
                do {
                    try defaults.cachedSchema?.validate(value, in: domain, forKey: key)
                    return nil
                } catch let error as PrefsError {
                    return error
                } catch {
                    return PrefsError(.invalidValue, "\(error)")
                }
            }
        }
        let incrementCheck = check
        self.queue = WriteQueue(
            window: options.flushesOnTimer ? options.window : nil,
            maximumPending: options.maximumPending,
            apply: { batch in try KeyValueStack.applyBatch(batch, main: main, memory: memory, observers: observers, check: incrementCheck)
            },
            onFlush: options.onFlush)
    }

    /// `PREFS_ACTOR`, else `USER@HOST` (the user from `USER`/`LOGNAME`, else the uid).
    public static func defaultActor(environment: [String: String]) -> String {
        if let actor = environment["PREFS_ACTOR"], !actor.isEmpty { return actor }
        let user = environment["USER"].flatMap { $0.isEmpty ? nil : $0 } ?? environment["LOGNAME"] ?? "uid\(getuid())"
        var name = [CChar](repeating: 0, count: 256)
        let host =
            gethostname(&name, name.count) == 0
            ? String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : "localhost"
        return user + "@" + host
    }

    /// Releasing a stack drains its queue; a failure is reported through
    /// ``Options/onFlush`` (call ``close()`` to see it as an error).
    deinit {
        _ = try? queue.flush()
        observers.finishAll()
    }

    func database(for domain: Domain) -> StoreDatabase {
        domain.isPersistent ? main : memory
    }

    // MARK: - Reading

    /// The committed entry for a key, ignoring the queue.
    func storedEntry(in domain: Domain, forKey key: String) throws -> Entry? {
        try database(for: domain).read { db in
            guard try DomainTable.mayExist(db, domain) else { return nil }
            return try DomainTable(domain).row(db, key: key, now: WallClock.nowMilliseconds())
        } ?? nil
    }

    /// The entry (value and metadata) under `key`, or nil. A queued write shows with a
    /// provisional version and the current time (the flush assigns the real ones).
    ///
    /// ```swift
    /// if let entry = try stack.entry(in: .user, forKey: "theme") { print(entry.version) }
    /// ```
    /// - Throws: `PrefsError`: `usage` for a bad key, `storeUnreadable` when the store
    ///   cannot be read.
    public func entry(in domain: Domain, forKey key: String) throws -> Entry? {
        try KeyName.validate(key)
        // The overlay first: a flush that commits after this look-up is seen by the read of
        // the store below; the other order could miss a write between the two.
        let overlay = queue.overlay(PendingKey(domain: domain, key: key))
        let stored = try storedEntry(in: domain, forKey: key)
        if let change = overlay {
            let now = WallClock.nowMilliseconds()
            guard let json = change.visibleJSON(at: now) else { return nil }
            return Entry(
                domain: domain, key: key, json: json, version: max((stored?.version ?? 0) + 1, now), updatedAt: now,
                expiresAt: change.expiresAt)
        }
        return stored
    }

    /// The value of a key by the lookup order: an override, else the stored value (queued
    /// writes included), else a registered default; nil when none answers.
    ///
    /// ```swift
    /// let theme = try stack.value(in: .user, forKey: "theme")
    /// ```
    /// - Throws: `PrefsError`: `usage` for a bad key, `storeUnreadable` when the store
    ///   cannot be read.
    public func value(in domain: Domain, forKey key: String) throws -> JSONValue? {
        try resolve(in: domain, forKey: key)?.value
    }

    /// The stored value of a key (queued writes included), ignoring overrides and defaults.
    ///
    /// ```swift
    /// let stored = try stack.storedValue(in: .user, forKey: "theme")
    /// ```
    /// - Throws: `PrefsError`: `usage` for a bad key, `storeUnreadable` when the store
    ///   cannot be read.
    public func storedValue(in domain: Domain, forKey key: String) throws -> JSONValue? {
        try KeyName.validate(key)
        if let change = queue.overlay(PendingKey(domain: domain, key: key)) {
            return try change.visibleJSON(at: WallClock.nowMilliseconds()).map { try JSONValue(parsing: $0) }
        }
        return try storedEntry(in: domain, forKey: key)?.value()
    }

    /// The domains that exist: the built-in ones (including `memory`) and every custom
    /// domain that has been written to, sorted by name.
    ///
    /// - Throws: `PrefsError` of kind `storeUnreadable` when the store cannot be read.
    public func domains() throws -> [Domain] {
        var result = Set(Domain.builtInPersistent + [.memory])
        result.formUnion(queue.overlay(domain: nil).keys.map(\.domain))
        result.formUnion(try main.read(DomainTable.all) ?? [])
        return result.sorted()
    }

    /// Visits entries in domain-name order, then key order (bytewise UTF-8), without loading
    /// them all at once. Queued writes are included.
    ///
    /// ```swift
    /// try stack.forEachEntry(in: .user, prefix: "onboarding.") { print($0.key) }
    /// ```
    /// - Parameters:
    ///   - domain: one domain, or nil for every domain including `memory`.
    ///   - body: called with each entry in key order; an error it throws ends the visit.
    ///   - prefix: only keys starting with this text (raw key text, no wildcards).
    /// - Throws: `PrefsError` when the store cannot be read, or what `body` throws.
    public func forEachEntry(in domain: Domain? = nil, prefix: String? = nil, _ body: (Entry) throws -> Void) throws {
        let domains = try domain.map { [$0] } ?? self.domains()
        let now = WallClock.nowMilliseconds()
        for each in domains {
            try forEachEntry(of: each, listingAll: domain == nil, prefix: prefix, now: now, body)
        }
    }

    /// Visits each entry's domain, key and value as ``forEachEntry(in:prefix:_:)`` does, the key
    /// and value as UTF-8 bytes that are valid only during the call: a domain without queued
    /// writes is read straight from SQLite's rows, with no `String` per entry (`list`, `export`).
    package func forEachRow(
        in domain: Domain? = nil, prefix: String? = nil,
        _ body: (Domain, UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>) throws -> Void
    ) throws {
        let domains = try domain.map { [$0] } ?? self.domains()
        let now = WallClock.nowMilliseconds()
        for each in domains {
            if queue.overlay(domain: each).isEmpty {
                try readDomain(each, listingAll: domain == nil) { db in
                    try DomainTable(each).forEachRow(db, prefix: prefix, now: now) { key, json in try body(each, key, json) }
                }
                continue
            }
            try forEachEntry(of: each, listingAll: domain == nil, prefix: prefix, now: now) { entry in
                var entry = entry
                try entry.key.withUTF8 { key in try entry.json.withUTF8 { json in try body(each, key, json) } }
            }
        }
    }

    /// One domain's part of ``forEachEntry(in:prefix:_:)``: its rows with its queued writes.
    private func forEachEntry(of domain: Domain, listingAll all: Bool, prefix: String?, now: Int64, _ body: (Entry) throws -> Void) throws {
        var overlay = queue.overlay(domain: domain)
            .filter { prefix == nil || $0.key.key.utf8.starts(with: prefix!.utf8) }
            .map { ($0.key.key, $0.value) }
            .sorted { $0.0.utf8.lexicographicallyPrecedes($1.0.utf8) }[...]
        func emitOverlay(before key: String?) throws {
            while let (pendingKey, change) = overlay.first {
                if let key, !pendingKey.utf8.lexicographicallyPrecedes(key.utf8) { return }
                overlay.removeFirst()
                if let json = change.visibleJSON(at: now) {
                    try body(
                        Entry(domain: domain, key: pendingKey, json: json, version: 1, updatedAt: now, expiresAt: change.expiresAt))
                }
            }
        }
        try readDomain(domain, listingAll: all) { db in
            try DomainTable(domain).forEach(db, prefix: prefix, now: now) { entry in
                try emitOverlay(before: entry.key)
                if let (pendingKey, change) = overlay.first, pendingKey.utf8.elementsEqual(entry.key.utf8) {
                    overlay.removeFirst()
                    if let json = change.visibleJSON(at: now) {
                        var updated = entry
                        updated.json = json
                        updated.version = max(updated.version == .max ? .max : updated.version + 1, now)
                        updated.updatedAt = now
                        updated.expiresAt = change.expiresAt
                        try body(updated)
                    }
                    return
                }
                try body(entry)
            }
        }
        try emitOverlay(before: nil)
    }

    /// Runs `read` in a read of the database that holds `domain`, when its table may exist.
    /// Listing every domain (`all`), an unusable memory tier reads as empty: it does not hide
    /// the store file.
    private func readDomain(_ domain: Domain, listingAll all: Bool, _ read: (Database) throws -> Void) throws {
        let database = database(for: domain)
        let opened: DatabaseQueue?
        do {
            opened = try database.reader()
        } catch let error as PrefsError where all && domain == .memory {
            _ = error
            opened = nil
        }
        guard let reader = opened else { return }
        do {
            try reader.readJoining { db in
                guard try DomainTable.mayExist(db, domain) else { return }
                try read(db)
            }
        } catch let error as DatabaseError {
            throw database.failure(error, writing: false)
        }
    }

    /// The entries of one domain, or of all, in key order; queued writes included.
    ///
    /// ```swift
    /// let all = try stack.entries()
    /// ```
    /// - Throws: `PrefsError` when the store cannot be read.
    public func entries(in domain: Domain? = nil, prefix: String? = nil) throws -> [Entry] {
        var result: [Entry] = []
        try forEachEntry(in: domain, prefix: prefix) { result.append($0) }
        return result
    }

    // MARK: - Observing

    /// Committed changes, as they commit: every change of this stack (queued or direct),
    /// optionally only of one domain and/or key. The stream ends when the stack is closed.
    ///
    /// ```swift
    /// Task {
    ///     for await event in stack.changes(in: .switch) { print(event.key, event.kind) }
    /// }
    /// ```
    public func changes(in domain: Domain? = nil, forKey key: String? = nil) -> AsyncStream<ChangeEvent> {
        observers.stream(domain: domain, key: key)
    }
}
