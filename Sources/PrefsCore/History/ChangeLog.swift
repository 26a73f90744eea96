import CPrefsSQLite
import CSQLite

/// The change log: the `changelog` table, filled by triggers on every domain table in the
/// writing transaction itself, and the one-row `write_context` table that tells the
/// triggers the op (``LogOperation``) and the actor of the write in progress. Updating
/// `write_context` inside the writing transaction keeps it private to that transaction.
///
/// Writers never call this directly: ``WriteTransaction`` names the op, captures sync and
/// applies retention.
struct ChangeLog: Sendable {
    /// How many records the log keeps unless `prefs log --retain` says otherwise.
    static let defaultRetention = 10_000

    /// Who the records of this database's writes name.
    let actor: String

    /// Starts a write: names its op and actor.
    func begin(_ db: Database, op: LogOperation) throws {
        try db.cachedStatement(sql: Self.beginSQL).execute(arguments: [op.rawValue, actor])
    }

    private static let beginSQL = "UPDATE write_context SET op = ?, actor = ?"
    private static let nameSQL = "UPDATE write_context SET op = ?"
    private static let latestSQL = "SELECT max(seq) FROM changelog"

    /// Names the op of the statements that follow.
    static func name(_ db: Database, _ op: LogOperation) throws {
        try db.cachedStatement(sql: nameSQL).execute(arguments: [op.rawValue])
    }

    /// Prepares (and caches) the statements every write transaction runs, so that a one-shot
    /// command parses them before it takes the write lock rather than while it holds it.
    static func prepareStatements(_ db: Database) throws {
        for sql in [beginSQL, nameSQL, latestSQL, pruneSQL] { _ = try db.cachedStatement(sql: sql) }
    }

    /// A statement that names the actor of the statements that follow (bind the actor).
    static func actorStatement(_ db: Database) throws -> Statement {
        try db.cachedStatement(sql: "UPDATE write_context SET actor = ?")
    }

    /// SQL for how many records the log keeps.
    private static let retentionSQL = StoreMeta.integerSQL(.logRetain, default: defaultRetention)

    /// How many records the log keeps.
    static func retention(_ db: Database) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT \(retentionSQL)") ?? defaultRetention
    }

    /// Applies retention: deletes all but the newest records the log keeps. A log that keeps
    /// 1,024 records or more is pruned in batches: the records beyond retention wait until
    /// there are 1/64 of it (156 of 10,000), then go in one statement. Deleting the oldest
    /// record with every write would write the log's oldest page, a third page, with every
    /// set of a store used long enough to fill its log. Readers never see them:
    /// ``KeyValueStack/history(_:limit:since:)`` reads the newest records retention keeps.
    /// `exact` prunes now (a transaction that left a placeholder for skipped records).
    static func prune(_ db: Database, exact: Bool = false) throws {
        try db.cachedStatement(sql: pruneSQL).execute(arguments: [exact])
    }

    private static let pruneSQL = """
        DELETE FROM changelog WHERE seq <= (SELECT max(seq) FROM changelog) - \(retentionSQL)
          AND (?1 OR (SELECT min(seq) FROM changelog) <= (SELECT max(seq) FROM changelog) - \(retentionSQL) - \(slackSQL))
        """

    /// SQL for how many records beyond retention may wait for the next batch.
    private static let slackSQL = "(CASE WHEN \(retentionSQL) >= 1024 THEN \(retentionSQL) / 64 ELSE 0 END)"

    /// SQL for the oldest sequence number a reader shows: the newest records retention keeps.
    static let firstKeptSQL = "(SELECT max(seq) FROM changelog) - \(retentionSQL)"

    /// Keeps only the newest `count` records from now on, and prunes now. Records beyond the
    /// old retention that wait for a batch go first: raising retention must not bring back
    /// records `prefs log` no longer showed.
    static func setRetention(_ db: Database, _ count: Int) throws {
        try prune(db, exact: true)
        try StoreMeta.set(db, .logRetain, String(count))
        try db.execute(sql: "DELETE FROM changelog WHERE seq <= (SELECT max(seq) FROM changelog) - ?", arguments: [count])
    }

    /// Sequence numbers stay below this (2^62). SQLite numbers the next record after the
    /// largest one, and once that is `Int64.max` picks unused numbers at random: a log
    /// numbered this high was tampered with, and writes are refused rather than logged out
    /// of order (``checkRoom(_:)``; `prefs doctor` reports it).
    static let sequenceLimit: Int64 = 1 << 62

    /// Refuses a write when the log's numbers have reached ``sequenceLimit``.
    ///
    /// - Throws: ``PrefsError`` of kind `storeUnreadable`.
    static func checkRoom(_ db: Database) throws {
        let latest = try Int64.fetchOne(db.cachedStatement(sql: latestSQL)) ?? 0
        guard latest < sequenceLimit else {
            throw PrefsError(
                .storeUnreadable,
                "the change log's last record number is \(latest), beyond what prefs writes (the store was tampered with); nothing was written (prefs doctor; restore a backup)"
            )
        }
    }

    /// The newest sequence number (0 when the log is empty).
    static func latestSequence(_ db: Database) throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT max(seq) FROM changelog") ?? 0
    }

    /// Turns the change-log triggers of statements prepared from now on off or on again.
    /// Triggers are a setting of the connection, not of the transaction.
    static func enableTriggers(_ db: Database, _ enabled: Bool) throws {
        guard prefs_sqlite_enable_triggers(db.sqliteConnection, enabled ? 1 : 0) == SQLITE_OK else {
            throw DatabaseError(resultCode: .misuse, message: "cannot \(enabled ? "resume" : "suspend") the change log")
        }
    }

    /// Writes a placeholder record without domain or key: `op` numbered `offset` after the
    /// newest record, or numbered `seq` when given.
    func placeholder(_ db: Database, _ op: LogOperation, offset: Int64 = 1, seq: Int64? = nil) throws {
        let number: Int64 = try seq ?? (Self.latestSequence(db) + offset)
        try db.execute(
            sql: "INSERT INTO changelog (seq, at, domain, key, op, old, new, actor) VALUES (?, ?, '', '', ?, NULL, NULL, ?)",
            arguments: [number, WallClock.nowMilliseconds(), op.rawValue, actor])
    }

    /// Triggers that append every insert, update and delete of the domain's own table
    /// (`kv_<domain>`) to the change log, in the same transaction, with the op and actor of
    /// `write_context`: a built-in domain's (and, in migration 2, every domain's; the shared
    /// table of custom domains gets its own in migration 4).
    static func createTriggers(_ db: Database, _ domain: Domain) throws {
        let name = "kv_" + domain.name
        let table = name.quotedDatabaseIdentifier
        let literal = "'" + domain.name + "'"  // validated: [a-z0-9_-] only
        let insert = "INSERT INTO changelog (at, domain, key, op, old, new, actor) SELECT"
        let deletedAt = "CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)"
        try db.execute(
            sql: """
                CREATE TRIGGER IF NOT EXISTS \((name + "_log_insert").quotedDatabaseIdentifier) AFTER INSERT ON \(table) BEGIN
                    \(insert) new.updated_at, \(literal), new.key, op, NULL, new.value, actor FROM write_context;
                END;
                CREATE TRIGGER IF NOT EXISTS \((name + "_log_update").quotedDatabaseIdentifier) AFTER UPDATE ON \(table) BEGIN
                    \(insert) new.updated_at, \(literal), new.key, op, old.value, new.value, actor FROM write_context;
                END;
                CREATE TRIGGER IF NOT EXISTS \((name + "_log_delete").quotedDatabaseIdentifier) AFTER DELETE ON \(table) BEGIN
                    \(insert) \(deletedAt), \(literal), old.key, op, old.value, NULL, actor FROM write_context;
                END;
                CREATE INDEX IF NOT EXISTS \((name + "_expiry").quotedDatabaseIdentifier) ON \(table) (expires_at) WHERE expires_at IS NOT NULL;
                """)
    }
}
