/// Which domains a store syncs.
enum SyncDomains: Sendable, Equatable {
    /// Every persistent domain except `user` (the default; custom domains included).
    case allExceptUser
    /// These domains only.
    case only(Set<String>)

    /// Reads `sync_config.domains`: NULL, or names separated by commas.
    init(stored: String?) {
        if let stored {
            self = .only(Set(stored.split(separator: ",").map(String.init)))
        } else {
            self = .allExceptUser
        }
    }

    func contains(_ domain: String) -> Bool {
        switch self {
        case .allExceptUser: domain != Domain.user.name && domain != Domain.memory.name
        case .only(let names): names.contains(domain)
        }
    }
}

/// Records a write transaction's changes of synced domains as pending sync operations, in
/// that transaction: ``start(_:)`` notes where the change log stands when the transaction
/// begins (only when the store has a remote, so stores without one pay one lookup), and
/// ``record(_:)`` copies the log records written since then — one set-based statement per
/// domain — each with a new operation id, a hybrid logical clock timestamp and this store's
/// node id. Records of `sync` (applied from the remote), `expire` (each store purges
/// expired keys itself; the expiry travels with the value) and `refresh` (each store fetches
/// its server-fed domains from their source itself: a stale copy on one machine must not
/// replace a fresher one elsewhere) are not pushed.
struct SyncRecorder: Sendable {
    let startSeq: Int64
    let domains: SyncDomains

    /// A random version 4 UUID, computed by SQLite for each row.
    static let uuidSQL = """
        lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2) || '-' \
        || substr('89ab', 1 + (abs(random()) % 4), 1) || substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6)))
        """

    /// The ops whose records are not pushed, as an SQL list.
    static let unpushedOps = "(" + [LogOperation.sync, .expire, .refresh].map { "'\($0.rawValue)'" }.joined(separator: ", ") + ")"

    /// How ``start(_:)`` asks whether the store syncs.
    static let configSQL = "SELECT domains FROM sync_config WHERE id = 1"

    static func start(_ db: Database) throws -> SyncRecorder? {
        guard let row = try Row.fetchOne(db.cachedStatement(sql: configSQL)) else { return nil }
        let seq = try Int64.fetchOne(db.cachedStatement(sql: "SELECT COALESCE(max(seq), 0) FROM changelog")) ?? 0
        return SyncRecorder(startSeq: seq, domains: SyncDomains(stored: row[0]))
    }

    func record(_ db: Database) throws {
        let touched = try String.fetchAll(
            db.cachedStatement(sql: "SELECT DISTINCT domain FROM changelog WHERE seq > ? AND op NOT IN \(Self.unpushedOps)"),
            arguments: [startSeq])
        let synced = touched.filter { domains.contains($0) }.compactMap { try? Domain($0) }
        guard !synced.isEmpty else { return }
        let endSeq = try Int64.fetchOne(db.cachedStatement(sql: "SELECT max(seq) FROM changelog")) ?? startSeq
        let node = try SyncLedger.node(db)
        // One clock reading for the transaction; its records get consecutive timestamps.
        let base = try SyncLedger.reserve(db, count: endSeq - startSeq)
        let pendingStart = try Int64.fetchOne(db.cachedStatement(sql: "SELECT COALESCE(max(seq), 0) FROM sync_pending")) ?? 0
        for domain in synced {
            try db.execute(
                sql: """
                    INSERT INTO sync_pending (op_id, domain, key, value, expires_at, hlc, node, actor)
                    SELECT \(Self.uuidSQL), c.domain, c.key, c.new, CASE WHEN c.new IS NULL THEN NULL ELSE t.expires_at END,
                        ?1 + c.seq - ?2 - 1, ?3, c.actor
                    FROM changelog c LEFT JOIN \(DomainTable(domain).table) t ON \(DomainTable(domain).joinScope("t"))t.key = c.key
                    WHERE c.seq > ?2 AND c.domain = ?4 AND c.op NOT IN \(Self.unpushedOps)
                    ORDER BY c.seq
                    """,
                arguments: [base, startSeq, node, domain.name])
        }
        try db.execute(
            sql: """
                INSERT INTO sync_keys (domain, key, hlc, node)
                SELECT domain, key, max(hlc), ?2 FROM sync_pending WHERE seq > ?1 GROUP BY domain, key
                ON CONFLICT (domain, key) DO UPDATE SET hlc = excluded.hlc, node = excluded.node
                """,
            arguments: [pendingStart, node])
        try compact(db, after: pendingStart)
    }

    /// Every this many pending operations the queue keeps only the newest of each key.
    static let compactionInterval: Int64 = 1024

    /// Drops the pending operations a newer pending write of the same key supersedes, each
    /// time the queue's sequence passes a multiple of ``compactionInterval``: a store that
    /// cannot reach its remote for long, rewriting the same keys, queues at most its keys plus
    /// ``compactionInterval`` operations, not one per write. Under last-writer-wins only the
    /// newest write of a key decides it (the highest timestamp; this store's own timestamps
    /// rise with `seq`), so what the remote and every other store end with is unchanged; the
    /// intermediate values are not sent. One pass over the queue (amortized over 1,024 writes).
    func compact(_ db: Database, after pendingStart: Int64) throws {
        let pendingEnd = try Int64.fetchOne(db.cachedStatement(sql: "SELECT COALESCE(max(seq), 0) FROM sync_pending")) ?? 0
        guard pendingEnd / Self.compactionInterval > pendingStart / Self.compactionInterval else { return }
        try db.execute(sql: "DELETE FROM sync_pending WHERE seq NOT IN (SELECT max(seq) FROM sync_pending GROUP BY domain, key)")
    }
}

/// Reading and advancing the sync bookkeeping inside a transaction.
enum SyncLedger {
    /// This store's node id: the store id made when the store was created.
    static func node(_ db: Database) throws -> String {
        guard let id = try StoreMeta.value(db, .storeID) else {
            throw PrefsError(.storeUnreadable, "store has no store id")
        }
        return id
    }

    /// Reserves `count` consecutive hybrid logical clock timestamps and returns the first:
    /// the larger of the wall clock (milliseconds, shifted left 16 bits) and the last
    /// timestamp issued or seen + 1.
    static func reserve(_ db: Database, count: Int64) throws -> Int64 {
        let last = try Int64.fetchOne(db.cachedStatement(sql: "SELECT hlc FROM sync_clock WHERE id = 1")) ?? 0
        let (next, overflow) = last.addingReportingOverflow(max(count, 1))
        guard !overflow else { throw PrefsError(.cannotWrite, "the sync clock of this store is exhausted (\(last))") }
        let base = max(WallClock.nowMilliseconds() << 16, next - max(count, 1) + 1)
        try db.cachedStatement(sql: "UPDATE sync_clock SET hlc = ? WHERE id = 1").execute(arguments: [base + max(count, 1) - 1])
        return base
    }

    /// How far ahead of the wall clock a timestamp seen from another node may move this
    /// store's clock: one node with a wrong clock (or a forged operation) must not pin every
    /// store's clock in the far future, nor run it out of numbers.
    static let maximumDrift: Int64 = 7 * 86_400_000

    /// Moves the clock past a timestamp seen from another node (at most ``maximumDrift``
    /// ahead of the wall clock; the operation itself still counts by its own timestamp).
    static func observe(_ db: Database, hlc: Int64) throws {
        let bound = (WallClock.nowMilliseconds() + maximumDrift) << 16
        try db.cachedStatement(sql: "UPDATE sync_clock SET hlc = max(hlc, ?) WHERE id = 1").execute(arguments: [min(hlc, bound)])
    }
}
