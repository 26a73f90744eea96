import Dispatch
import FoundationEssentials
import Glibc

extension KeyValueStack {
    /// A condition a write checks, in its transaction, before it changes anything.
    public enum Precondition: Sendable, Equatable {
        /// The key must not exist.
        case absent
        /// The key must exist with this version.
        case version(Int64)
        /// The key must exist with an equivalent value (object members in any order, numbers
        /// by value; see `JSONValue/isEquivalent(to:)`).
        case value(JSONValue)
    }

    // MARK: - Queued writes

    /// Queues `value` under `key`. Reads of this stack see it at once; it is written with the
    /// rest of the queue one window later, or at ``flush()``.
    ///
    /// ```swift
    /// try stack.set(.bool(true), in: .user, forKey: "onboarding.shown")
    /// ```
    /// - Parameters:
    ///   - value: the new value.
    ///   - domain: the domain (not read-only).
    ///   - key: the key.
    ///   - lifetime: when given, the key expires this long after the call: it is
    ///     invisible to reads from then on and purged (logged as `expire`) at the next write
    ///     to its domain.
    /// - Throws: `PrefsError`: `usage` for a bad key; `invalidValue` when the value breaks
    ///   the schema; `storeUnreadable` or `cannotWrite` when the store cannot be opened for
    ///   writing.
    public func set(_ value: JSONValue, in domain: Domain, forKey key: String, expiresIn lifetime: Duration? = nil) throws {
        try queueSet(value.compactText, value, in: domain, forKey: key, expiresIn: lifetime)
    }

    /// Queues a value given as compact JSON, as ``set(_:in:forKey:expiresIn:)-(JSONValue,_,_,_)``
    /// does; its tree is built only when the schema has a rule for the key.
    ///
    /// ```swift
    /// try stack.set(try CompactJSON(parsing: "[1, 2]"), in: .user, forKey: "recent")
    /// ```
    /// - Throws: `PrefsError`, as the `JSONValue` form.
    public func set(_ json: CompactJSON, in domain: Domain, forKey key: String, expiresIn lifetime: Duration? = nil) throws {
        try queueSet(json.text, try json.value(), in: domain, forKey: key, expiresIn: lifetime)
    }

    private func queueSet(
        _ text: String, _ value: @autoclosure () throws -> JSONValue, in domain: Domain, forKey key: String, expiresIn lifetime: Duration?
    ) throws {
        try KeyName.validate(key)
        try refuseLocked(domain, key)
        _ = try database(for: domain).writer()  // a damaged or newer store fails here, not at the flush
        try validateWrite(value(), in: domain, forKey: key)
        queue.enqueue(PendingKey(domain: domain, key: key), .set(text, expiresAt: Self.expiry(lifetime)))
    }

    static func expiry(_ lifetime: Duration?) -> Int64? {
        guard let lifetime else { return nil }
        let milliseconds = lifetime.components.seconds * 1000 + lifetime.components.attoseconds / 1_000_000_000_000_000
        return WallClock.nowMilliseconds() + max(milliseconds, 0)
    }

    /// Queues the removal of keys; returns the keys that existed (as this stack sees them).
    ///
    /// With `mustExist`, the queue is flushed and the removal commits at once, in one
    /// transaction that removes nothing when a key is missing.
    ///
    /// ```swift
    /// try stack.remove(in: .user, keys: ["a", "b"])
    /// ```
    /// - Throws: `PrefsError`: `usage` for a bad key, `notFound` when `mustExist` and a key
    ///   is missing, `cannotWrite` when the store cannot be written.
    @discardableResult
    public func remove(in domain: Domain, keys: [String], mustExist: Bool = false) throws -> [String] {
        for key in keys {
            try KeyName.validate(key)
            try refuseLocked(domain, key)
        }
        if mustExist {
            try flushSynchronously()
            let changes = keys.map { (PendingKey(domain: domain, key: $0), PendingChange.remove) }
            return try commitAndDeliver(changes, requireExisting: true).map(\.key)
        }
        guard try database(for: domain).reader() != nil else { return [] }
        var existed: [String] = []
        for key in keys {
            if try storedValue(in: domain, forKey: key) != nil { existed.append(key) }
            queue.enqueue(PendingKey(domain: domain, key: key), .remove)
        }
        return existed
    }

    /// Queues adding `delta` to the integer under `key` (a missing key counts as 0) and
    /// returns the new value as this stack sees it. The addition is applied to the committed
    /// value inside the flush transaction, so increments from several processes add up.
    ///
    /// ```swift
    /// let launches = try stack.increment(in: .user, forKey: "launches")
    /// ```
    /// - Throws: `PrefsError`: `invalidValue` when the value is not an integer or the sum
    ///   overflows 64 bits; `usage` for a bad key.
    @discardableResult
    public func increment(in domain: Domain, forKey key: String, by delta: Int64 = 1) throws -> Int64 {
        try refuseLocked(domain, key)
        let base = try Increment.base(try storedValue(in: domain, forKey: key), domain: domain, key: key)
        let sum = try Increment.sum(base, delta, domain: domain, key: key)
        _ = try database(for: domain).writer()
        try validateWrite(.number(String(sum)), in: domain, forKey: key)
        queue.enqueue(PendingKey(domain: domain, key: key), .increment(delta: delta, visible: String(sum)))
        return sum
    }

    // MARK: - Flushing

    /// Writes every queued change now and returns when it is committed.
    ///
    /// ```swift
    /// try await stack.flush()
    /// ```
    /// - Throws: `PrefsError` (`cannotWrite`, `storeUnreadable`) when the write fails; the
    ///   changes stay queued and are retried.
    public func flush() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            DispatchQueue.global(qos: .userInitiated).async {
                do {
                    try self.flushSynchronously()
                    continuation.resume()
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }

    /// Writes every queued change now, blocking the calling thread until it is committed.
    ///
    /// - Returns: what the flush wrote.
    /// - Throws: `PrefsError` when the write fails; the changes stay queued.
    @discardableResult
    public func flushSynchronously() throws -> FlushReport {
        try queue.flush()
    }

    /// Drops every queued change that has not started to be written; returns how many keys
    /// were dropped. For a one-shot program that has reported a failed flush and must not
    /// write afterwards (releasing a stack otherwise retries the flush).
    @discardableResult
    public func discardPendingWrites() -> Int {
        queue.discardPending()
    }

    /// How many keys have queued changes not yet committed.
    public var pendingCount: Int { queue.pendingCount }

    /// The error of the last flush, when it failed and nothing has been committed since.
    public var lastFlushError: PrefsError? { queue.lastError }

    /// Sets the marker reported by the next flushes (``FlushReport/marker``), e.g. the
    /// number of the last input line whose write has been queued.
    public func setProgressMarker(_ marker: Int) {
        queue.setMarker(marker)
    }

    /// Flushes the queue, ends the change streams and closes the database connections.
    ///
    /// - Throws: `PrefsError` when the final flush fails (the stack stays usable).
    public func close() throws {
        try flushSynchronously()
        observers.finishAll()
        main.close()
        memory.close()
    }

    // MARK: - Direct writes

    /// Stores `value` under `key` only when `condition` holds, and commits before returning
    /// (queued writes are flushed first). Returns the key's new version.
    ///
    /// ```swift
    /// try stack.set(.number("2"), in: .user, forKey: "step", if: .version(1))
    /// ```
    /// - Throws: `PrefsError`: `preconditionFailed` when `condition` does not hold (nothing
    ///   is written), `usage` for a bad key, `cannotWrite` when the store cannot be written.
    @discardableResult
    public func set(
        _ value: JSONValue, in domain: Domain, forKey key: String, if condition: Precondition, expiresIn lifetime: Duration? = nil
    ) throws -> Int64 {
        let results = try perform([Operation(.set(value, expiresIn: lifetime), in: domain, forKey: key, if: condition)])
        return results.first?.version ?? 0
    }

    /// Removes `key` only when `condition` holds, and commits before returning (queued writes
    /// are flushed first). Returns whether the key existed.
    ///
    /// ```swift
    /// try stack.remove(in: .user, forKey: "lock", if: .value(.string("me")))
    /// ```
    /// - Throws: `PrefsError`: `preconditionFailed` when `condition` does not hold.
    @discardableResult
    public func remove(in domain: Domain, forKey key: String, if condition: Precondition) throws -> Bool {
        try perform([Operation(.remove, in: domain, forKey: key, if: condition)]).first?.json != nil
    }

    /// Adds `delta` to the integer under `key` (a missing key counts as 0) in its own
    /// transaction and returns the committed result; concurrent increments from any number
    /// of processes add up exactly.
    ///
    /// ```swift
    /// let n = try stack.incrementNow(in: .user, forKey: "builds")
    /// ```
    /// - Throws: `PrefsError`: `invalidValue` when the value is not an integer or the sum
    ///   overflows; `cannotWrite` when the store cannot be written.
    @discardableResult
    public func incrementNow(in domain: Domain, forKey key: String, by delta: Int64 = 1) throws -> Int64 {
        let results = try perform([Operation(.increment(by: delta), in: domain, forKey: key)])
        guard let json = results.first?.json, let value = Int64(json) else { return 0 }
        return value
    }

    static func check(_ condition: Precondition, _ current: Entry?, domain: Domain, key: String) throws {
        let name = "\(domain.name)/\(key)"
        switch condition {
        case .absent:
            if current != nil {
                throw PrefsError(.preconditionFailed, "\(name) already exists", reason: .alreadyExists, domain: domain, key: key)
            }
        case .version(let expected):
            guard let current else {
                throw PrefsError(
                    .preconditionFailed, "\(name) does not exist (expected version \(expected))", reason: .versionConflict(current: nil),
                    domain: domain, key: key)
            }
            if current.version != expected {
                throw PrefsError(
                    .preconditionFailed, "\(name) is at version \(current.version), not \(expected)",
                    reason: .versionConflict(current: current.version), domain: domain, key: key)
            }
        case .value(let expected):
            guard let current else {
                throw PrefsError(.preconditionFailed, "\(name) does not exist", reason: .valueMismatch, domain: domain, key: key)
            }
            if !((try? current.value())?.isEquivalent(to: expected) ?? false) {
                throw PrefsError(
                    .preconditionFailed, "\(name) does not hold the expected value", reason: .valueMismatch, domain: domain, key: key)
            }
        }
    }

    /// Removes every key of `domain` that starts with `prefix` and commits before returning
    /// (queued writes are flushed first); returns how many were removed.
    ///
    /// ```swift
    /// try stack.remove(in: .user, prefix: "onboarding.")
    /// ```
    /// - Throws: `PrefsError`: `cannotWrite` when the store cannot be written.
    @discardableResult
    public func remove(in domain: Domain, prefix: String) throws -> Int {
        try flushSynchronously()
        guard try database(for: domain).reader() != nil else { return 0 }
        var keys: [String] = []
        try forEachEntry(in: domain, prefix: prefix) { keys.append($0.key) }
        guard !keys.isEmpty else { return 0 }
        return try commitAndDeliver(keys.map { (PendingKey(domain: domain, key: $0), PendingChange.remove) }).count
    }

    /// Commits changes of one database's domains in one transaction (``commit(_:to:requireExisting:events:rejected:check:)``)
    /// and delivers the events.
    @discardableResult
    func commitAndDeliver(_ changes: [(PendingKey, PendingChange)], requireExisting: Bool = false) throws -> [ChangeEvent] {
        guard let first = changes.first else { return [] }
        var rejected: [String] = []
        let events = try Self.commit(changes, to: database(for: first.0.domain), requireExisting: requireExisting, rejected: &rejected)
        observers.deliver(events)
        return events
    }

    // MARK: - Applying batches

    /// Thrown by ``applyBatch`` when the store file's part committed but the memory tier's
    /// did not.
    struct PartialFlushFailure: Error {
        var committed: Set<PendingKey>
        var error: PrefsError
    }

    /// Writes one flush: the persistent domains in one transaction, then the memory tier.
    static func applyBatch(
        _ batch: [(PendingKey, PendingChange)], main: StoreDatabase, memory: StoreDatabase, observers: ChangeObservers,
        check: ChangeApplier.IncrementCheck? = nil
    ) throws -> [String] {
        var rejected: [String] = []
        // Usually one kind only: no copies then.
        let split = batch.contains { !$0.0.domain.isPersistent }
        let persistent = split ? batch.filter { $0.0.domain.isPersistent } : batch
        let inMemory = split ? batch.filter { !$0.0.domain.isPersistent } : []
        if !persistent.isEmpty {
            observers.deliver(
                try commit(persistent, to: main, requireExisting: false, events: !observers.isEmpty, rejected: &rejected, check: check))
        }
        if !inMemory.isEmpty {
            do {
                observers.deliver(
                    try commit(inMemory, to: memory, requireExisting: false, events: !observers.isEmpty, rejected: &rejected, check: check))
            } catch let error as PrefsError where !persistent.isEmpty {
                throw PartialFlushFailure(committed: Set(persistent.map(\.0)), error: error)
            }
        }
        return rejected
    }

    /// The one committer: applies changes in one immediate transaction (``ChangeApplier``) and
    /// returns the events, in order; keys whose increment was refused go to `rejected`.
    static func commit(
        _ changes: [(PendingKey, PendingChange)], to database: StoreDatabase, requireExisting: Bool, events: Bool = true,
        rejected: inout [String], check: ChangeApplier.IncrementCheck? = nil
    ) throws -> [ChangeEvent] {
        // A bulk (no events, a statement's worth of rows) writes its own log records: making the
        // triggers before it would only have it drop them (``BulkUpsert``).
        let bulk = !events && changes.count >= BulkUpsert.rowsPerStatement
        return try WriteTransaction.run(on: database, op: .set, preparing: bulk ? [] : domains(of: changes)) { transaction in
            let outcome = try ChangeApplier(transaction).apply(changes, requireExisting: requireExisting, events: events, check: check)
            rejected += outcome.rejected
            return outcome.events
        }
    }

    /// The domains of the first changes (a few at most): those whose statements a commit
    /// prepares before it takes the write lock.
    static func domains(of changes: [(PendingKey, PendingChange)]) -> [Domain] {
        var domains: [Domain] = []
        for (target, _) in changes.prefix(64) where !domains.contains(target.domain) {
            domains.append(target.domain)
            if domains.count == 4 { break }
        }
        return domains
    }

    /// Removes a custom domain: every key (each logged as `rm`, and recorded for sync when
    /// the store syncs), then its table, in one transaction. A built-in domain keeps its
    /// table and only loses its keys, and only with `builtIn` set.
    ///
    /// ```swift
    /// let removed = try stack.removeDomain(Domain("scratch"))
    /// ```
    /// - Returns: how many keys were removed.
    /// - Throws: `PrefsError`: `usage` for a built-in domain without `builtIn`; `notFound`
    ///   when the domain does not exist; `cannotWrite`.
    @discardableResult
    public func removeDomain(_ domain: Domain, builtIn: Bool = false) throws -> Int {
        let isBuiltIn = Domain.builtInPersistent.contains(domain) || domain == .memory
        if isBuiltIn && !builtIn {
            throw PrefsError(.usage, "\(domain.name) is a built-in domain: --force removes its keys (the domain stays)")
        }
        try flushSynchronously()
        let database = database(for: domain)
        // A built-in domain always exists: emptying one that holds nothing (a memory tier not
        // created yet) removes nothing and succeeds.
        guard try database.reader() != nil, try isBuiltIn || domains().contains(domain) else {
            if isBuiltIn { return 0 }
            throw PrefsError(.notFound, "domain \(domain.name) does not exist")
        }
        let events = try WriteTransaction.run(on: database, op: .rm) { transaction in
            let db = transaction.db
            // The keys as the transaction sees them: another process's keys go too.
            let table = DomainTable(domain)
            let all = try DomainTable.mayExist(db, domain) ? try table.allKeys(db) : []
            let events = try ChangeApplier(transaction).apply(
                all.map { (PendingKey(domain: domain, key: $0), PendingChange.remove) }, op: .rm,
                requireExisting: false
            ).events
            // Sync capture reads the domain's table: record before the table goes.
            try transaction.captureSync()
            if database === main {
                // A refresh would otherwise answer 304 Not Modified and leave it empty.
                try db.execute(
                    sql: isBuiltIn
                        ? "UPDATE refresh_sources SET etag = NULL, last_modified = NULL, last_success_at = NULL, copy_at = NULL WHERE domain = ?"
                        : "DELETE FROM refresh_sources WHERE domain = ?",
                    arguments: [domain.name])
            }
            if !isBuiltIn {
                // Its rows went with the removals above (expired ones too: every key was removed).
                try db.execute(sql: "DELETE FROM domains WHERE name = ?", arguments: [domain.name])
            }
            return events
        }
        observers.deliver(events)
        return events.count
    }
}
