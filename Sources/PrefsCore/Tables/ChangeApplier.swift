/// Applies changes of keys inside one ``WriteTransaction``: the one place that readies a
/// domain's table (purging its expired keys, logged as `expire`, or creating it), reads the
/// previous value, stores, removes and increments, and names each change's op in the change
/// log. The queue flush, import, reset, refresh and removing a domain apply lists of
/// ``PendingChange`` (``apply(_:op:requireExisting:events:check:)``); `perform` applies
/// operations with conditions (``perform(_:schema:)``); a sync pull stores and removes the
/// winning operations (``prepare(_:create:purge:)``, ``store(_:in:forKey:expiresAt:old:updatedAt:)``,
/// ``remove(in:forKey:old:)``).
final class ChangeApplier {
    /// Checks the final value of a queued increment against the schema at flush time.
    typealias IncrementCheck = @Sendable (Domain, String, JSONValue) -> PrefsError?

    let transaction: WriteTransaction
    /// The write time of every change of the transaction (one clock reading).
    let now: Int64
    /// Domains whose table exists and has been readied in this transaction.
    private var ready = Set<Domain>()

    init(_ transaction: WriteTransaction, now: Int64 = WallClock.nowMilliseconds()) {
        self.transaction = transaction
        self.now = now
    }

    private var db: Database { transaction.db }

    // MARK: - One key

    /// Readies a domain's table once per transaction: purges its expired keys (logged as
    /// `expire`) unless `purge` is false, or creates it when it does not exist and `create`
    /// is true. Returns false when there is no table.
    func prepare(_ domain: Domain, create: Bool, purge: Bool = true) throws -> Bool {
        if ready.contains(domain) { return true }
        if try DomainTable.mayExist(db, domain) {
            // Naming the op dirties `log_context`'s page: only when there is something to
            // purge, so a plain set writes its key's page and its log record's, no third.
            if purge, try DomainTable(domain).hasExpired(db, now: now) {
                try transaction.setOp(.expire)
                _ = try DomainTable(domain).purgeExpired(db, now: now)
            }
        } else if create {
            try DomainTable.create(db, domain)
        } else {
            return false
        }
        ready.insert(domain)
        return true
    }

    /// The live entry under `key` (an expired one counts as missing).
    func entry(in domain: Domain, forKey key: String) throws -> Entry? {
        try DomainTable(domain).row(db, key: key, now: now)
    }

    /// Stores `json` under `key` with the transaction's time as its version (and as its
    /// update time unless `updatedAt` is given); returns the event.
    @discardableResult
    func store(_ json: String, in domain: Domain, forKey key: String, expiresAt: Int64?, old: Entry?, updatedAt: Int64? = nil) throws
        -> ChangeEvent
    {
        try DomainTable(domain).upsert(db, key: key, json: json, now: now, updatedAt: updatedAt, expiresAt: expiresAt)
        return ChangeEvent(kind: old == nil ? .insert : .update, domain: domain, key: key, json: json, oldJSON: old?.json)
    }

    /// Removes `key`; returns the event.
    @discardableResult
    func remove(in domain: Domain, forKey key: String, old: Entry?) throws -> ChangeEvent {
        _ = try DomainTable(domain).delete(db, key: key)
        return ChangeEvent(kind: .delete, domain: domain, key: key, json: nil, oldJSON: old?.json)
    }

    /// The version a key gets when it is stored now.
    func newVersion(after old: Entry?) -> Int64 {
        // A tampered store can hold Int64.max: stay there rather than overflow.
        let (next, overflow) = (old?.version ?? 0).addingReportingOverflow(1)
        return max(overflow ? .max : next, now)
    }

    // MARK: - Lists of changes

    /// Applies changes in order; returns the events, in order, and the queued increments it
    /// had to skip (each with its reason). Removing from a domain that has no table is a
    /// no-op and creates nothing. Each domain's expired keys are purged first. With
    /// `events` false (nobody observes) plain sets skip reading the previous value and are
    /// written in bulk. `op` names the changes in the log (default: `set`/`rm`).
    ///
    /// - Throws: ``PrefsError`` of kind `notFound` when `requireExisting` and a removed key
    ///   is missing.
    func apply(
        _ changes: some Collection<(PendingKey, PendingChange)>, op: LogOperation? = nil, requireExisting: Bool,
        events wantEvents: Bool = true,
        check: IncrementCheck? = nil
    ) throws -> (events: [ChangeEvent], rejected: [String]) {
        try refuseLocked(changes.lazy.map(\.0), op: op)
        var outcome = (events: [ChangeEvent](), rejected: [String]())
        if wantEvents { outcome.events.reserveCapacity(changes.count) }
        let unlogged = try unloggedHead(of: changes, events: wantEvents)
        var suspended = false
        if unlogged > 0 {
            // Tables are created and expired keys purged first: those records stay in the log.
            var previous: Domain?
            for (target, _) in changes where target.domain != previous {
                previous = target.domain
                _ = try prepare(target.domain, create: true)
            }
            try transaction.suspendLogging()
            suspended = true
        }
        defer {
            // Triggers are a setting of the connection, not of the transaction: always back on.
            if suspended { try? transaction.resumeLogging(op: op ?? .set, skipping: 0) }
        }
        var bulk = BulkRows()
        var lastDomain: Domain?
        for (index, (target, change)) in changes.enumerated() {
            let domain = target.domain
            let domainChanged = domain != lastDomain
            let bulkSet = wantEvents ? nil : change.plainSet
            // Queued bulk rows are written before anything else happens (another domain,
            // another op in the log's write context, a row read); a writer serves one domain.
            if domainChanged {
                try bulk.end()
            } else if bulkSet == nil {
                try bulk.write()
            }
            if suspended && index == unlogged {
                try bulk.end()  // the rows written while the log was off
                try transaction.resumeLogging(op: op ?? .set, skipping: unlogged)
                suspended = false
            }
            if domainChanged, try !prepare(domain, create: change != .remove) {
                if requireExisting { throw Self.notFound(target) }
                continue
            }
            lastDomain = domain
            let logAs = op ?? (change == .remove ? .rm : .set)
            if let bulkSet {
                if index >= unlogged { try transaction.setOp(logAs) }
                try bulk.add(db, domain, key: target.key, json: bulkSet.json, now: now, expiresAt: bulkSet.expiresAt)
                continue
            }
            try apply(change, to: target, logAs: logAs, requireExisting: requireExisting, check: check, into: &outcome)
        }
        try bulk.end()
        return outcome
    }

    /// How many plain sets at the head of a bulk are not logged: when a bulk of plain sets
    /// writes more records than the log keeps, the head's records would be pruned at commit,
    /// so they are not written at all. (Not while the store syncs: pending sync operations
    /// are made from the log records.)
    private func unloggedHead(of changes: some Collection<(PendingKey, PendingChange)>, events: Bool) throws -> Int {
        guard !events, changes.count > 1, !transaction.recordsSync, changes.allSatisfy({ $0.1.isPlainSet }) else { return 0 }
        return max(0, changes.count - (try transaction.retention()))
    }

    /// Applies one change, reading the previous value. The op is named only when a row
    /// changes: naming it writes `log_context`'s page, and a removal of a missing key (or a
    /// skipped increment) must leave the store untouched, its commit writing nothing.
    private func apply(
        _ change: PendingChange, to target: PendingKey, logAs: LogOperation, requireExisting: Bool, check: IncrementCheck?,
        into outcome: inout (events: [ChangeEvent], rejected: [String])
    ) throws {
        let (domain, key) = (target.domain, target.key)
        let old = try entry(in: domain, forKey: key)
        switch change {
        case .set(let json, let expiresAt):
            try transaction.setOp(logAs)
            outcome.events.append(try store(json, in: domain, forKey: key, expiresAt: expiresAt, old: old))
        case .remove:
            guard let old else {
                if requireExisting { throw Self.notFound(target) }
                return
            }
            try transaction.setOp(logAs)
            outcome.events.append(try remove(in: domain, forKey: key, old: old))
        case .increment(let delta, _):
            // Apply the delta to the committed value. When another process has stored a
            // non-integer meanwhile (or the sum overflows, or the schema refuses the sum),
            // skip it and report it: never overwrite that process's value with a stale one.
            let sum: Int64
            do {
                sum = try Increment.sum(try Increment.base(old.map { try $0.value() }, domain: domain, key: key), delta)
                if let problem = check?(domain, key, .number(String(sum))) { throw problem }
            } catch let error as PrefsError {
                outcome.rejected.append("increment of \(domain.name)/\(key) skipped: \(error.message)")
                return
            }
            try transaction.setOp(logAs)
            outcome.events.append(try store(String(sum), in: domain, forKey: key, expiresAt: old?.expiresAt, old: old))
        }
    }

    /// The lock hook: refuses the whole write when a change touches a key a system lock
    /// covers. A sync pull and a refresh are not refused: what they store stays shadowed by
    /// the lock (reads answer the system value) and shows again when the lock goes.
    private func refuseLocked(_ targets: some Sequence<PendingKey>, op: LogOperation?) throws {
        guard !transaction.locks.isEmpty, op != .sync, op != .refresh else { return }
        for target in targets {
            if let lock = transaction.locks.first(where: { $0.covers(target.domain, target.key) }) {
                throw lock.refusal(target.domain, target.key)
            }
        }
    }

    private static func notFound(_ target: PendingKey) -> PrefsError {
        PrefsError(.notFound, "\(target.domain.name)/\(target.key) not found", domain: target.domain, key: target.key)
    }

    // MARK: - Operations with conditions

    /// Performs operations in order, all or none: each condition is checked against the
    /// state the earlier operations produced; values and increments are checked against
    /// `schema`. Errors name the operation (1-based) when there are several.
    ///
    /// - Throws: ``PrefsError``: `preconditionFailed`, `invalidValue`.
    func perform(_ operations: [KeyValueStack.Operation], schema: Schema) throws -> (
        results: [KeyValueStack.OperationResult], events: [ChangeEvent]
    ) {
        var results: [KeyValueStack.OperationResult] = []
        var events: [ChangeEvent] = []
        for (index, operation) in operations.enumerated() {
            /// Names the operation in an error when there are several.
            func numbered<T>(_ body: () throws -> T) throws -> T {
                do {
                    return try body()
                } catch let error as PrefsError where operations.count > 1 {
                    throw error.prefixed("operation \(index + 1): ")
                }
            }
            let (domain, key) = (operation.domain, operation.key)
            try numbered { try refuseLocked(CollectionOfOne(PendingKey(domain: domain, key: key)), op: nil) }
            let exists = try prepare(domain, create: operation.action != .remove)
            let old = exists ? try entry(in: domain, forKey: key) : nil
            if let condition = operation.precondition {
                try numbered { try KeyValueStack.check(condition, old, domain: domain, key: key) }
            }
            let json: String
            switch operation.action {
            case .set(let value, let lifetime):
                try numbered { try schema.validate(value, in: domain, forKey: key) }
                json = value.compactText
                try transaction.setOp(.set)
                events.append(try store(json, in: domain, forKey: key, expiresAt: KeyValueStack.expiry(lifetime), old: old))
            case .remove:
                if let old {
                    try transaction.setOp(.rm)
                    events.append(try remove(in: domain, forKey: key, old: old))
                }
                results.append(KeyValueStack.OperationResult(json: old?.json, version: 0))
                continue
            case .setMember(let pointer, let member):
                let whole = try numbered {
                    do {
                        guard let current = try old?.value() else {
                            if pointer.tokens.isEmpty { return member }
                            throw PrefsError(.notFound, "not found", domain: domain, key: key)
                        }
                        return try pointer.setting(member, in: current)
                    } catch let error as PrefsError where error.kind == .notFound {
                        throw PrefsError(.notFound, "\(domain.name)/\(key): \(error.message)", domain: domain, key: key)
                    }
                }
                try numbered { try schema.validate(whole, in: domain, forKey: key) }
                json = whole.compactText
                // A member set deep inside may take the whole value past the nesting every reader
                // accepts (``JSONParser/maximumDepth``): refused as `set` refuses such a value.
                try numbered { _ = try JSONValue(parsing: json) }
                try transaction.setOp(.set)
                events.append(try store(json, in: domain, forKey: key, expiresAt: old?.expiresAt, old: old))
            case .increment(let delta):
                let base = try numbered { try Increment.base(old.map { try $0.value() }, domain: domain, key: key) }
                json = String(try Increment.sum(base, delta, domain: domain, key: key))
                try numbered { try schema.validate(.number(json), in: domain, forKey: key) }
                try transaction.setOp(.set)
                events.append(try store(json, in: domain, forKey: key, expiresAt: old?.expiresAt, old: old))
            }
            results.append(KeyValueStack.OperationResult(json: json, version: newVersion(after: old)))
        }
        return (results, events)
    }

    /// Plain sets of one domain waiting in a ``BulkUpsert``.
    private struct BulkRows {
        private var upsert: BulkUpsert?

        /// Queues a row, preparing the statements for the domain's table on the first.
        mutating func add(_ db: Database, _ domain: Domain, key: String, json: String, now: Int64, expiresAt: Int64?) throws {
            if upsert == nil { upsert = try BulkUpsert(db, table: DomainTable(domain)) }
            try upsert?.run(key: key, json: json, now: now, expiresAt: expiresAt)
        }

        /// Writes the rows still queued (before anything else reads or writes the table).
        func write() throws {
            try upsert?.finish()
        }

        /// Writes the rows still queued and forgets the statements (another domain follows, or
        /// the triggers changed).
        mutating func end() throws {
            try upsert?.finish()
            upsert = nil
        }
    }
}

extension PendingChange {
    /// The value and expiry of a plain set (nil for anything else).
    fileprivate var plainSet: (json: String, expiresAt: Int64?)? {
        if case .set(let json, let expiresAt) = self { (json, expiresAt) } else { nil }
    }

    /// Whether this is a plain set.
    fileprivate var isPlainSet: Bool {
        if case .set = self { true } else { false }
    }
}
