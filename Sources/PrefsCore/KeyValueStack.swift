import Foundation
import GRDB

/// The prefs store: domains of keys with JSON values, on one SQLite file, plus the RAM-only
/// `memory` domain.
///
/// Open a stack on a path (nothing is created until the first write), then read and write:
///
/// ```swift
/// let stack = try KeyValueStack(path: "/tmp/app/prefs.db")
/// try stack.set(.string("dark"), in: .user, forKey: "theme")
/// let theme = try stack.value(in: .user, forKey: "theme")  // .string("dark")
/// ```
///
/// Every write is committed before the call returns. Several processes may use the same
/// store at once: SQLite's WAL journal lets readers run beside a writer, and writers wait
/// for each other up to ``Options/busyTimeout``.
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
        /// How long a write waits for another process's lock before failing, in seconds.
        public var busyTimeout: TimeInterval
        /// The environment used to find the RAM-backed directory of the shared memory tier.
        public var environment: [String: String]

        /// Creates options.
        ///
        /// ```swift
        /// let stack = try KeyValueStack(path: path, options: .init(memoryTier: .shared))
        /// ```
        public init(
            memoryTier: MemoryTier = .inProcess,
            busyTimeout: TimeInterval = 5,
            environment: [String: String] = ProcessInfo.processInfo.environment
        ) {
            self.memoryTier = memoryTier
            self.busyTimeout = busyTimeout
            self.environment = environment
        }
    }

    /// The store file's path.
    public let path: String
    let main: StoreDatabase
    let memory: StoreDatabase

    /// Opens the store at `path`. Nothing is read or created until the first call that needs
    /// it; a store that does not exist reads as empty.
    ///
    /// ```swift
    /// let stack = try KeyValueStack(path: StoreLocation.resolve(explicit: nil, environment: env))
    /// ```
    /// - Throws: ``PrefsError`` of kind ``PrefsError/Kind/usage`` for an empty path.
    public init(path: String, options: Options = Options()) throws {
        guard !path.isEmpty else { throw PrefsError(.usage, "store path is empty") }
        self.path = path
        self.main = StoreDatabase(location: .file(path), kind: .main, busyTimeout: options.busyTimeout)
        switch options.memoryTier {
        case .inProcess:
            self.memory = StoreDatabase(location: .inProcess, kind: .memoryTier, busyTimeout: options.busyTimeout)
        case .shared:
            let file = StoreLocation.memoryFile(forStore: path, environment: options.environment)
            self.memory = StoreDatabase(location: .file(file), kind: .memoryTier, busyTimeout: options.busyTimeout)
        }
    }

    func database(for domain: Domain) -> StoreDatabase {
        domain.isPersistent ? main : memory
    }

    // MARK: - Reading

    /// The entry (value and metadata) stored under `key`, or nil.
    ///
    /// ```swift
    /// if let entry = try stack.entry(in: .user, forKey: "theme") { print(entry.version) }
    /// ```
    /// - Throws: ``PrefsError``: `usage` for a bad key, `storeUnreadable` when the store
    ///   cannot be read.
    public func entry(in domain: Domain, forKey key: String) throws -> Entry? {
        try Key.validate(key)
        let database = database(for: domain)
        guard let reader = try database.reader() else { return nil }
        do {
            return try reader.read { db in
                if !Domain.builtInPersistent.contains(domain), domain != .memory, try !DomainTable.exists(db, domain) {
                    return nil
                }
                return try DomainTable(domain).row(db, key: key, now: Clock.nowMilliseconds())
            }
        } catch {
            throw PrefsError.database(error, path: database.displayPath, writing: false)
        }
    }

    /// The value stored under `key`, or nil.
    ///
    /// ```swift
    /// let theme = try stack.value(in: .user, forKey: "theme")
    /// ```
    /// - Throws: ``PrefsError``: `usage` for a bad key, `storeUnreadable` when the store
    ///   cannot be read.
    public func value(in domain: Domain, forKey key: String) throws -> JSONValue? {
        try entry(in: domain, forKey: key)?.value()
    }

    /// The domains that exist: the built-in ones (including `memory`) and every custom
    /// domain that has been written to, sorted by name.
    ///
    /// - Throws: ``PrefsError`` of kind `storeUnreadable` when the store cannot be read.
    public func domains() throws -> [Domain] {
        var result = Set(Domain.builtInPersistent + [.memory])
        if let reader = try main.reader() {
            do {
                result.formUnion(try reader.read { try DomainTable.all($0) })
            } catch {
                throw PrefsError.database(error, path: main.displayPath, writing: false)
            }
        }
        return result.sorted()
    }

    /// Visits entries in domain-name order, then key order (bytewise UTF-8), without loading
    /// them all at once.
    ///
    /// ```swift
    /// try stack.forEachEntry(in: .user, prefix: "onboarding.") { print($0.key) }
    /// ```
    /// - Parameters:
    ///   - domain: one domain, or nil for every domain including `memory`.
    ///   - prefix: only keys starting with this text (raw key text, no wildcards).
    /// - Throws: ``PrefsError`` when the store cannot be read, or what `body` throws.
    public func forEachEntry(in domain: Domain? = nil, prefix: String? = nil, _ body: (Entry) throws -> Void) throws {
        let domains = try domain.map { [$0] } ?? self.domains()
        let now = Clock.nowMilliseconds()
        for domain in domains {
            let database = database(for: domain)
            guard let reader = try database.reader() else { continue }
            do {
                try reader.read { db in
                    if domain != .memory, !Domain.builtInPersistent.contains(domain), try !DomainTable.exists(db, domain) {
                        return
                    }
                    try DomainTable(domain).forEach(db, prefix: prefix, now: now, body)
                }
            } catch let error as PrefsError {
                throw error
            } catch let error as DatabaseError {
                throw PrefsError.database(error, path: database.displayPath, writing: false)
            }
        }
    }

    /// The entries of one domain, or of all, in key order.
    ///
    /// ```swift
    /// let all = try stack.entries()
    /// ```
    /// - Throws: ``PrefsError`` when the store cannot be read.
    public func entries(in domain: Domain? = nil, prefix: String? = nil) throws -> [Entry] {
        var result: [Entry] = []
        try forEachEntry(in: domain, prefix: prefix) { result.append($0) }
        return result
    }

    // MARK: - Writing

    /// A condition a write checks, in its transaction, before it changes anything.
    public enum Precondition: Sendable, Equatable {
        /// No condition.
        case none
        /// The key must not exist.
        case absent
        /// The key must exist with this version.
        case version(Int64)
        /// The key must exist with this value (compared as compact JSON text).
        case value(JSONValue)
    }

    /// Stores `value` under `key`, replacing what was there, and commits before returning.
    /// Returns the key's new version.
    ///
    /// ```swift
    /// try stack.set(.bool(true), in: .user, forKey: "onboarding.shown")
    /// try stack.set(.number("2"), in: .user, forKey: "step", if: .version(1))  // compare-and-set
    /// ```
    /// - Throws: ``PrefsError``: `usage` for a bad key, `preconditionFailed` when `condition`
    ///   does not hold (nothing is written), `cannotWrite` when the store cannot be written,
    ///   `storeUnreadable` when it is damaged.
    @discardableResult
    public func set(_ value: JSONValue, in domain: Domain, forKey key: String, if condition: Precondition = .none) throws -> Int64 {
        try Key.validate(key)
        let json = value.compactText
        return try write(domain) { db in
            let table = DomainTable(domain)
            let now = Clock.nowMilliseconds()
            if condition != .none {
                try Self.check(condition, table.row(db, key: key, now: now), domain: domain, key: key)
            }
            return try table.upsert(db, key: key, json: json, now: now)
        }
    }

    static func check(_ condition: Precondition, _ current: Entry?, domain: Domain, key: String) throws {
        let name = "\(domain.name)/\(key)"
        switch condition {
        case .none:
            return
        case .absent:
            if current != nil { throw PrefsError(.preconditionFailed, "\(name) already exists") }
        case .version(let expected):
            guard let current else { throw PrefsError(.preconditionFailed, "\(name) does not exist (expected version \(expected))") }
            if current.version != expected {
                throw PrefsError(.preconditionFailed, "\(name) is at version \(current.version), not \(expected)")
            }
        case .value(let expected):
            guard let current else { throw PrefsError(.preconditionFailed, "\(name) does not exist") }
            if current.json != expected.compactText {
                throw PrefsError(.preconditionFailed, "\(name) does not hold the expected value")
            }
        }
    }

    /// Removes keys in one transaction; returns the keys that existed.
    ///
    /// Removing a missing key is not an error unless `mustExist` is true, in which case
    /// nothing is removed and the error names the first missing key.
    ///
    /// ```swift
    /// try stack.remove(in: .user, keys: ["a", "b"])
    /// ```
    /// - Throws: ``PrefsError``: `usage` for a bad key, `notFound` when `mustExist` and a key
    ///   is missing, `cannotWrite` when the store cannot be written.
    @discardableResult
    public func remove(in domain: Domain, keys: [String], mustExist: Bool = false) throws -> [String] {
        for key in keys { try Key.validate(key) }
        let database = database(for: domain)
        if try database.reader() == nil {
            if mustExist, let first = keys.first { throw PrefsError(.notFound, "\(domain.name)/\(first) not found") }
            return []
        }
        return try write(domain) { db in
            let table = DomainTable(domain)
            var removed: [String] = []
            for key in keys {
                if try table.delete(db, key: key) {
                    removed.append(key)
                } else if mustExist {
                    throw PrefsError(.notFound, "\(domain.name)/\(key) not found")
                }
            }
            return removed
        }
    }

    /// Removes every key of `domain` that starts with `prefix`; returns how many were removed.
    ///
    /// ```swift
    /// try stack.remove(in: .user, prefix: "onboarding.")
    /// ```
    /// - Throws: ``PrefsError``: `cannotWrite` when the store cannot be written.
    @discardableResult
    public func remove(in domain: Domain, prefix: String) throws -> Int {
        guard try database(for: domain).reader() != nil else { return 0 }
        return try write(domain) { db in
            try DomainTable(domain).delete(db, prefix: prefix)
        }
    }

    /// Runs `body` in one immediate transaction on the database that holds `domain`,
    /// creating the domain's table first when needed.
    func write<T>(_ domain: Domain, _ body: (Database) throws -> T) throws -> T {
        let database = database(for: domain)
        do {
            return try database.writer().write { db in
                if !Domain.builtInPersistent.contains(domain), domain != .memory, try !DomainTable.exists(db, domain) {
                    try DomainTable.create(db, domain)
                }
                return try body(db)
            }
        } catch {
            throw PrefsError.database(error, path: database.displayPath, writing: true)
        }
    }
}
