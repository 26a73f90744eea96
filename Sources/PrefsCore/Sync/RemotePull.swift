/// Operations pulled from the sync remote, applied in one ``WriteTransaction`` logged as
/// `sync` with each writing store's actor: what a local write would refuse is skipped and
/// counted (and never takes part, not even in choosing a winner); among a batch's operations
/// on one key only the winner (by timestamp, then node id) can change it, and only when it
/// also wins over the write that holds the key.
struct RemotePull {
    let operations: [SyncOperation]
    /// The synced domains of the store.
    let synced: SyncDomains
    /// Apply only these domains' operations (nil: every synced domain).
    let only: Set<Domain>?
    let transaction: WriteTransaction
    /// Which operations take part (same indices as ``operations``).
    private(set) var valid: [Bool]
    /// How many operations were refused.
    private(set) var skipped = 0
    /// The newest timestamp among the operations that take part.
    private(set) var seen: Int64 = 0

    init(_ operations: [SyncOperation], synced: SyncDomains, only: Set<Domain>?, in transaction: WriteTransaction) throws {
        self.operations = operations
        self.synced = synced
        self.only = only
        self.transaction = transaction
        valid = [Bool](repeating: true, count: operations.count)
        try screen()
    }

    /// Refuses what a local write would refuse: ``SyncOperation/problem``, a timestamp below 0
    /// or more than ``SyncLedger/maximumDrift`` ahead of this store's wall clock (no local
    /// write gets one; an operation stamped far in the future would win its key against every
    /// later write, while the server's state table keeps what stores pushed since, so stores
    /// that pull the log and stores that load the snapshot would disagree for good), a flag document
    /// whose rules would not compile (a $ref bomb, refused as `flag import` refuses it), and a
    /// new domain beyond ``SyncOperation/maximumDomains`` (a peer cannot create domains
    /// without end).
    private mutating func screen() throws {
        let db = transaction.db
        var domainCount = try DomainTable.all(db).count
        var known = Set<String>()
        let latest = (WallClock.nowMilliseconds() + SyncLedger.maximumDrift) << 16
        for (index, operation) in operations.enumerated() {
            guard synced.contains(operation.domain) else { continue }
            var refused = operation.problem != nil || operation.hlc < 0 || operation.hlc > latest
            if !refused, operation.domain == Domain.switch.name, let text = operation.json, let value = try? JSONValue(parsing: text) {
                refused = !FlagDocument.accepts(value, forKey: operation.key)
            }
            if !refused, operation.json != nil, !known.contains(operation.domain), let domain = try? Domain(operation.domain),
                domain.isPersistent
            {
                if try !DomainTable.mayExist(db, domain) {
                    refused = domainCount >= SyncOperation.maximumDomains
                    if !refused { domainCount += 1 }
                }
                if !refused { known.insert(operation.domain) }
            }
            if refused {
                valid[index] = false
                skipped += 1
            }
        }
    }

    /// The winner among the batch's valid operations on each key (by index), and the newest
    /// timestamp seen.
    private mutating func winners() -> [String: Int] {
        var best: [String: Int] = [:]
        for (index, operation) in operations.enumerated() where valid[index] {
            seen = max(seen, operation.hlc)
            let id = operation.domain + "\u{0}" + operation.key
            if let current = best[id], !operation.wins(over: operations[current].hlc, node: operations[current].node) { continue }
            best[id] = index
        }
        return best
    }

    /// Applies the winners; returns how many changed a key.
    mutating func apply() throws -> Int {
        let db = transaction.db
        let best = winners()
        let applier = ChangeApplier(transaction)
        let lookup = try db.cachedStatement(sql: "SELECT hlc, node FROM sync_keys WHERE domain = ? AND key = ?")
        let mark = try db.cachedStatement(
            sql: """
                INSERT INTO sync_keys (domain, key, hlc, node) VALUES (?, ?, ?, ?)
                ON CONFLICT (domain, key) DO UPDATE SET hlc = excluded.hlc, node = excluded.node
                """)
        let setActor = try ChangeLog.actorStatement(db)
        var actor = transaction.actor
        var applied = 0
        for (index, operation) in operations.enumerated() where valid[index] && best[operation.domain + "\u{0}" + operation.key] == index {
            guard synced.contains(operation.domain), let domain = try? Domain(operation.domain), domain.isPersistent,
                only?.contains(domain) ?? true, (try? KeyName.validate(operation.key)) != nil
            else { continue }
            // Stored as a local write stores it: compact JSON text.
            var json = operation.json
            if let text = json, let value = try? JSONValue(parsing: text) {
                json = value.compactText
            } else if json != nil {
                continue
            }
            if let row = try Row.fetchOne(lookup, arguments: [operation.domain, operation.key]),
                try !operation.wins(over: row[0], node: row[1])
            {
                continue
            }
            if operation.actor != actor {
                try setActor.execute(arguments: [operation.actor])
                actor = operation.actor
            }
            // Each store purges expired keys itself: a pull does not.
            let exists = try applier.prepare(domain, create: json != nil, purge: false)
            if let json {
                // updated_at is the writer's time (the timestamp's wall-clock part), so a
                // later `remote set` stamps this value no newer than its original write.
                try applier.store(
                    json, in: domain, forKey: operation.key, expiresAt: operation.expiresAt, old: nil,
                    updatedAt: min(operation.hlc >> 16, applier.now))
            } else if exists {
                try applier.remove(in: domain, forKey: operation.key, old: nil)
            }
            try mark.execute(arguments: [operation.domain, operation.key, operation.hlc, operation.node])
            applied += 1
        }
        return applied
    }
}
