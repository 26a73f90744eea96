import FoundationEssentials
import Glibc

extension StoreSync {
    /// After loading the remote's snapshot (the current state of every key, tombstones
    /// younger than the log's horizon included): removes the keys this store had synced —
    /// it holds their sync state — that the snapshot does not hold and that have no pending
    /// operation. Their deletes were compacted away with the log; without this a store that
    /// was offline past the horizon would keep them. Keys with pending writes stay: those
    /// writes are pushed next. Logged as `sync`, never recorded as pending.
    ///
    /// - Parameters:
    ///   - present: the snapshot's keys, each `domain + "\u{0}" + key`.
    ///   - domains: only these domains (nil: every synced domain).
    ///   - remoteSeq: the remote sequence the snapshot reaches; recorded as pulled up to
    ///     there unless nil.
    /// - Returns: how many local keys were removed.
    /// - Throws: `PrefsError`: `usage` when no remote is set, `cannotWrite`.
    public func forgetSyncedKeys(notIn present: Set<String>, in domains: Set<Domain>? = nil, through remoteSeq: Int64?) throws -> Int {
        // Queued writes first: they record their pending operations when they commit.
        _ = try stack.flushSynchronously()
        return try WriteTransaction.run(on: stack.main, op: .sync) { transaction in
            let db = transaction.db
            guard let stored = try Row.fetchOne(db, sql: "SELECT domains FROM sync_config") else {
                throw PrefsError(.usage, "no remote set (prefs remote set postgres://USER@HOST:PORT/DB)")
            }
            let synced = SyncDomains(stored: stored[0])
            let existing = Set(try DomainTable.all(db))
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT k.domain, k.key FROM sync_keys k
                    WHERE NOT EXISTS (SELECT 1 FROM sync_pending p WHERE p.domain = k.domain AND p.key = k.key)
                    """)
            var removed = 0
            for row in rows {
                let name: String = try row[0]
                let key: String = try row[1]
                guard synced.contains(name), !present.contains(name + "\u{0}" + key), let domain = try? Domain(name),
                    domains?.contains(domain) ?? true
                else { continue }
                if existing.contains(domain), try DomainTable(domain).delete(db, key: key) { removed += 1 }
                try db.execute(sql: "DELETE FROM sync_keys WHERE domain = ? AND key = ?", arguments: [name, key])
            }
            if let remoteSeq {
                try db.execute(sql: "UPDATE sync_config SET last_remote_seq = max(last_remote_seq, ?)", arguments: [remoteSeq])
            }
            return removed
        }
    }
}
