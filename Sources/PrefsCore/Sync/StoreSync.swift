import FoundationEssentials
import Glibc

/// A store's remote: where it syncs and which domains.
public struct SyncRemote: Sendable, Equatable {
    /// The PostgreSQL URL (never with a password).
    public var url: RemoteURL
    /// The synced domains; nil means every persistent domain except `user`, custom domains
    /// included.
    public var domains: [Domain]?

    /// Whether a domain's writes are synced.
    public func syncs(_ domain: Domain) -> Bool {
        domain.isPersistent && (domains.map { $0.contains(domain) } ?? (domain != .user))
    }
}

/// What `prefs sync --status` shows.
public struct SyncStatus: Sendable {
    /// The remote, or nil when none is set.
    public var remote: SyncRemote?
    /// This store's node id (its store id); nil before the store exists.
    public var node: String?
    /// Operations waiting to be pushed.
    public var pending: Int
    /// The remote sequence number up to which operations have been pulled.
    public var lastRemoteSeq: Int64
    /// When the last sync completed (milliseconds since 1970).
    public var lastSuccessAt: Int64?
    /// When the last sync failed, and why.
    public var lastFailureAt: Int64?
    /// The cause of the last failure.
    public var lastFailure: String?
    /// Pulled operations skipped because a local write would refuse them (see
    /// ``SyncOperation/problem``), since the remote was set.
    public var skipped: Int = 0
}

/// One operation on one key, as pushed to and pulled from the remote.
public struct SyncOperation: Sendable, Equatable {
    /// A UUID, unique across stores: pushing an operation twice stores it once.
    public var id: String
    /// The domain name.
    public var domain: String
    /// The key.
    public var key: String
    /// The new value as JSON text (kept byte for byte); nil for a deletion (a tombstone).
    public var json: String?
    /// When the value expires (milliseconds since 1970), if it does.
    public var expiresAt: Int64?
    /// The hybrid logical clock timestamp: wall-clock milliseconds shifted left 16 bits
    /// plus a counter, never lower than any timestamp the writing store had seen.
    public var hlc: Int64
    /// The writing store's node id.
    public var node: String
    /// Who made the change (the change log's actor on the writing store).
    public var actor: String
    /// The local order of a pending operation (0 for pulled ones).
    public var localSeq: Int64

    /// Creates an operation.
    public init(
        id: String, domain: String, key: String, json: String?, expiresAt: Int64?, hlc: Int64, node: String, actor: String,
        localSeq: Int64 = 0
    ) {
        self.id = id
        self.domain = domain
        self.key = key
        self.json = json
        self.expiresAt = expiresAt
        self.hlc = hlc
        self.node = node
        self.actor = actor
        self.localSeq = localSeq
    }

    /// The largest value (JSON text, in bytes) applied from the remote.
    public static let maximumValueSize = 16 * 1_048_576
    /// The longest actor (in Unicode scalars) applied from the remote.
    public static let maximumActorLength = 256
    /// The longest node id (in bytes) applied from the remote.
    public static let maximumNodeLength = 64
    /// The most domains a store may hold for a pull to create another one.
    public static let maximumDomains = 1_000

    /// Why a local write would refuse this pulled operation, or nil when it would not: a
    /// bad domain name or key, a value that is not JSON (or is nested too deep) or is larger
    /// than ``maximumValueSize``, an actor longer than ``maximumActorLength`` or with a
    /// control character, a node id that is empty, too long or not printable.
    public var problem: String? {
        if (try? Domain(domain)) == nil { return "bad domain name" }
        if (try? KeyName.validate(key)) == nil { return "bad key" }
        if let json {
            if json.utf8.count > Self.maximumValueSize { return "value larger than \(Self.maximumValueSize / 1_048_576) MiB" }
            if (try? JSONValue(parsing: json)) == nil { return "value is not JSON" }
        }
        if actor.unicodeScalars.count > Self.maximumActorLength || actor.unicodeScalars.contains(where: Self.isControl) {
            return "actor too long or with a control character"
        }
        if node.isEmpty || node.utf8.count > Self.maximumNodeLength || node.unicodeScalars.contains(where: Self.isControl) {
            return "bad node id"
        }
        return nil
    }

    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F..<0xA0).contains(scalar.value)
    }

    /// The last-writer-wins order: by timestamp, then node id (bytewise).
    public func wins(over hlc: Int64, node: String) -> Bool {
        self.hlc != hlc ? self.hlc > hlc : node.utf8.lexicographicallyPrecedes(self.node.utf8)
    }
}

/// A store's sync, its local side: the remote, the pending operations, applying pulled ones
/// and the outcome of the last sync (`PrefsSync` adds `run(domains:timeout:)`, the exchange
/// with PostgreSQL). Held apart from ``KeyValueStack`` (as GRDB keeps `DatabaseMigrator` apart from
/// `DatabaseQueue`): an app that only reads and writes settings never meets it.
///
/// ```swift
/// let sync = StoreSync(stack)   // or stack.sync
/// print(try sync.status().pending)
/// ```
public struct StoreSync: Sendable {
    /// The stack whose store syncs.
    public let stack: KeyValueStack

    /// The sync of `stack`'s store.
    public init(_ stack: KeyValueStack) {
        self.stack = stack
    }

    /// Sets the remote this store syncs to and queues the current content of the synced
    /// domains as pending operations (the initial push), each stamped with its last write
    /// time, so a later write anywhere wins over it. Nothing connects: the first
    /// `sync` creates the remote schema. From now on every write of a synced domain records
    /// a pending operation in its own transaction.
    ///
    /// ```swift
    /// try stack.sync.setRemote(try RemoteURL(parsing: "postgres://prefs@db:5432/prefs"), domains: nil)
    /// ```
    /// - Parameters:
    ///   - url: the PostgreSQL database, without a password.
    ///   - domains: the synced domains; nil for every persistent domain except `user`.
    /// - Returns: how many operations were queued.
    /// - Throws: `PrefsError`: `usage` for the `memory` domain, `cannotWrite`.
    @discardableResult
    public func setRemote(_ url: RemoteURL, domains: [Domain]?) throws -> Int {
        if domains?.contains(.memory) == true { throw PrefsError(.usage, "the memory domain is never synced") }
        try stack.flushSynchronously()
        let remote = SyncRemote(url: url, domains: domains.map { Array(Set($0)).sorted() })
        return try WriteTransaction.run(on: stack.main, op: .remote) { transaction in
            let db = transaction.db
            let current = try String.fetchOne(db, sql: "SELECT url FROM sync_config WHERE id = 1")
            if current == url.description {
                // The same remote again (for example with other domains): keep what this
                // store knows of it — pending operations (deletes too), per-key winners and
                // the pulled sequence — so nothing deleted elsewhere comes back.
                try db.execute(
                    sql: "UPDATE sync_config SET domains = ? WHERE id = 1",
                    arguments: [remote.domains?.map(\.name).joined(separator: ",")])
                // Operations of domains no longer synced are not pushed.
                for name in try String.fetchAll(db, sql: "SELECT DISTINCT domain FROM sync_pending") {
                    let synced = (try? Domain(name)).map { remote.syncs($0) } ?? false
                    if !synced { try db.execute(sql: "DELETE FROM sync_pending WHERE domain = ?", arguments: [name]) }
                }
            } else {
                try db.execute(sql: "DELETE FROM sync_pending")
                try db.execute(sql: "DELETE FROM sync_keys")
                try StoreMeta.remove(db, .syncSkipped)
                try db.execute(
                    sql: """
                        INSERT OR REPLACE INTO sync_config (id, url, domains, last_remote_seq) VALUES (1, ?, ?, 0)
                        """,
                    arguments: [url.description, remote.domains?.map(\.name).joined(separator: ",")])
            }
            let node = try SyncLedger.node(db)
            let now = WallClock.nowMilliseconds()
            let queuedAfter = try Int64.fetchOne(db, sql: "SELECT COALESCE(max(seq), 0) FROM sync_pending") ?? 0
            // Keys this store has no sync state for are queued, stamped with their last write.
            for domain in try DomainTable.all(db) where remote.syncs(domain) {
                try db.execute(
                    sql: """
                        INSERT INTO sync_pending (op_id, domain, key, value, expires_at, hlc, node, actor)
                        SELECT \(SyncRecorder.uuidSQL), ?1, t.key, t.value, t.expires_at, t.updated_at << 16, ?2, ?3
                        FROM \(DomainTable(domain).table) t
                        WHERE \(DomainTable(domain).joinScope("t"))(t.expires_at IS NULL OR t.expires_at > ?4)
                            AND NOT EXISTS (SELECT 1 FROM sync_keys k WHERE k.domain = ?1 AND k.key = t.key)
                        ORDER BY t.key
                        """,
                    arguments: [domain.name, node, transaction.actor, now])
            }
            try db.execute(
                sql: """
                    INSERT INTO sync_keys (domain, key, hlc, node) SELECT domain, key, hlc, node FROM sync_pending WHERE seq > ?
                    ON CONFLICT (domain, key) DO UPDATE SET hlc = excluded.hlc, node = excluded.node
                    """,
                arguments: [queuedAfter])
            // Later local writes must be stamped after these.
            if let newest = try Int64.fetchOne(db, sql: "SELECT max(hlc) FROM sync_pending WHERE seq > ?", arguments: [queuedAfter]) {
                try SyncLedger.observe(db, hlc: newest)
            }
            return try Int.fetchOne(db, sql: "SELECT count(*) FROM sync_pending WHERE seq > ?", arguments: [queuedAfter]) ?? 0
        }
    }

    /// The remote, or nil when none is set.
    ///
    /// - Throws: `PrefsError` of kind `storeUnreadable`.
    public func remote() throws -> SyncRemote? {
        try status().remote
    }

    /// Stops syncing: forgets the remote, the pending operations and the per-key sync
    /// state. Local data is kept. Does nothing when no remote is set.
    ///
    /// - Throws: `PrefsError` of kind `cannotWrite`.
    public func unsetRemote() throws {
        guard try stack.main.reader() != nil else { return }
        try WriteTransaction.run(on: stack.main, op: .remote) { transaction in
            try transaction.db.execute(sql: "DELETE FROM sync_config; DELETE FROM sync_pending; DELETE FROM sync_keys")
            try StoreMeta.remove(transaction.db, .syncSkipped)
        }
    }

    /// The remote, the pending count and the last sync's outcome.
    ///
    /// ```swift
    /// let status = try stack.sync.status()
    /// print(status.pending)
    /// ```
    /// - Throws: `PrefsError` of kind `storeUnreadable`.
    public func status() throws -> SyncStatus {
        var status = SyncStatus(remote: nil, node: nil, pending: 0, lastRemoteSeq: 0)
        _ = try stack.main.read { db in
            status.node = try SyncLedger.node(db)
            status.pending = try Int.fetchOne(db, sql: "SELECT count(*) FROM sync_pending") ?? 0
            status.skipped = try StoreMeta.integer(db, .syncSkipped) ?? 0
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: "SELECT url, domains, last_remote_seq, last_success_at, last_failure_at, last_failure FROM sync_config")
            else { return }
            let domains: String? = row[1]
            status.remote = SyncRemote(
                url: try RemoteURL(parsing: row[0]),
                domains: domains.map { $0.split(separator: ",").compactMap { try? Domain(String($0)) } })
            status.lastRemoteSeq = try row[2]
            status.lastSuccessAt = row[3]
            status.lastFailureAt = row[4]
            status.lastFailure = row[5]
        }
        return status
    }

    /// The pending operations in the order they were written, optionally of some domains.
    ///
    /// - Throws: `PrefsError` of kind `storeUnreadable`.
    public func pendingOperations(in domains: Set<Domain>? = nil) throws -> [SyncOperation] {
        try stack.main.read { db in
            var operations: [SyncOperation] = []
            let rows = try Row.fetchCursor(
                db, sql: "SELECT seq, op_id, domain, key, value, expires_at, hlc, node, actor FROM sync_pending ORDER BY seq")
            while let row = try rows.next() {
                let domain: String = try row[2]
                if let domains, !domains.contains(where: { $0.name == domain }) { continue }
                operations.append(
                    try SyncOperation(
                        id: row[1], domain: domain, key: row[3], json: row[4], expiresAt: row[5], hlc: row[6], node: row[7],
                        actor: row[8], localSeq: row[0]))
            }
            return operations
        } ?? []
    }

    /// Applies operations pulled from the remote in one transaction, logged as `sync` with
    /// the writing store's actor. An operation changes a key only when it wins over the
    /// write that holds the key (by timestamp, then node id), so every store that sees the
    /// same operations ends with the same values, in any order. The clock moves past every
    /// timestamp seen.
    ///
    /// What a local write would refuse (``SyncOperation/problem``), and operations that
    /// would create a domain beyond ``SyncOperation/maximumDomains``, are skipped and
    /// counted (``SyncStatus/skipped``); values are stored as compact JSON text.
    ///
    /// - Parameters:
    ///   - operations: in remote order.
    ///   - remoteSeq: the remote sequence these operations reach; recorded as pulled up to
    ///     there unless nil (a partial pull of some domains).
    ///   - domains: apply only these domains' operations (nil: every synced domain).
    /// - Returns: how many operations changed a key.
    /// - Throws: `PrefsError`: `usage` when no remote is set, `cannotWrite`.
    @discardableResult
    public func applyRemoteOperations(_ operations: [SyncOperation], through remoteSeq: Int64?, in domains: Set<Domain>? = nil) throws
        -> Int
    {
        try applyRemoteOperationsCounting(operations, through: remoteSeq, in: domains).applied
    }

    /// ``applyRemoteOperations(_:through:in:)``, also returning how many operations were
    /// skipped as invalid.
    ///
    /// - Throws: `PrefsError`: `usage` when no remote is set, `cannotWrite`.
    public func applyRemoteOperationsCounting(
        _ operations: [SyncOperation], through remoteSeq: Int64?, in domains: Set<Domain>? = nil
    ) throws -> (applied: Int, skipped: Int) {
        try WriteTransaction.run(on: stack.main, op: .sync) { transaction in
            let db = transaction.db
            guard let stored = try Row.fetchOne(db, sql: "SELECT domains FROM sync_config") else {
                throw PrefsError(.usage, "no remote set (prefs remote set postgres://USER@HOST:PORT/DB)")
            }
            var pull = try RemotePull(operations, synced: SyncDomains(stored: stored[0]), only: domains, in: transaction)
            let applied = try pull.apply()
            try SyncLedger.observe(db, hlc: pull.seen)
            if pull.skipped > 0 { try StoreMeta.add(db, .syncSkipped, pull.skipped) }
            if let remoteSeq {
                try db.execute(
                    sql: "UPDATE sync_config SET last_remote_seq = max(last_remote_seq, ?)", arguments: [remoteSeq])
            }
            return (applied, pull.skipped)
        }
    }

    /// Marks pushed operations done: removes the pending operations up to `localSeq` (of
    /// `domains`, or all), records the sync as successful and, when the push showed that
    /// nobody else wrote in between, that the remote is pulled up to `remoteSeq`.
    ///
    /// - Throws: `PrefsError` of kind `cannotWrite`.
    public func acknowledgePush(through localSeq: Int64, in domains: Set<Domain>? = nil, remoteSeq: Int64? = nil) throws {
        try WriteTransaction.run(on: stack.main, op: .sync) { transaction in
            let db = transaction.db
            if let domains {
                for domain in domains {
                    try db.execute(sql: "DELETE FROM sync_pending WHERE seq <= ? AND domain = ?", arguments: [localSeq, domain.name])
                }
            } else {
                try db.execute(sql: "DELETE FROM sync_pending WHERE seq <= ?", arguments: [localSeq])
            }
            if let remoteSeq {
                try db.execute(
                    sql: "UPDATE sync_config SET last_remote_seq = max(last_remote_seq, ?)", arguments: [remoteSeq])
            }
            try db.execute(
                sql: "UPDATE sync_config SET last_success_at = ?, last_failure = NULL, last_failure_at = NULL",
                arguments: [WallClock.nowMilliseconds()])
        }
    }

    /// Records why a sync failed (shown by `prefs sync --status`).
    ///
    /// - Throws: `PrefsError` of kind `cannotWrite`.
    public func recordFailure(_ cause: String) throws {
        try WriteTransaction.run(on: stack.main, op: .sync) { transaction in
            try transaction.db.execute(
                sql: "UPDATE sync_config SET last_failure_at = ?, last_failure = ?", arguments: [WallClock.nowMilliseconds(), cause])
        }
    }
}

extension KeyValueStack {
    /// The sync of this stack's store (``StoreSync``): remote, pending operations, status.
    ///
    /// ```swift
    /// let pending = try stack.sync.status().pending
    /// ```
    public var sync: StoreSync { StoreSync(self) }
}
