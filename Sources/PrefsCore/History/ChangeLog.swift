import CPrefsSQLite
import CSQLite

/// The change log: the `changelog` table, filled by TEMP triggers of the writing connection
/// on every domain table (``installTriggers(_:on:)``) in the writing transaction itself, and the
/// one-row `log_context` (`write_context` before schema 5) table that tells the triggers the op (``LogOperation``) and the
/// actor of the write in progress. Updating
/// `log_context` inside the writing transaction keeps it private to that transaction.
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

    private static let beginSQL = "UPDATE log_context SET op = ?, actor = ?"
    private static let nameSQL = "UPDATE log_context SET op = ?"
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
        try db.cachedStatement(sql: "UPDATE log_context SET actor = ?")
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

    /// Turns the change log off or on again, for the connection: its TEMP triggers ask
    /// `prefs_logging()` when they run, which answers this setting
    /// (`SQLITE_DBCONFIG_ENABLE_TRIGGER`, which SQLite applies to the persistent triggers of
    /// statements prepared from now on, and not to TEMP triggers).
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

    /// Makes the change log's three TEMP triggers on the table that holds `table`'s rows, on
    /// this connection, unless it has them: in the connection's private `temp` schema, never
    /// in the store's (schema 5). A store's schema, which SQLite parses at every open, then
    /// holds no trigger; a connection that only reads (every `get`) never makes one, and a
    /// write makes those of the table it writes, before it prepares the statements that
    /// write it (``DomainTable``), so they fire in them. Writes made outside prefs (the
    /// `sqlite3` shell) are not logged.
    static func installTriggers(_ db: Database, on table: DomainTable) throws {
        let name = triggerTable(table)
        guard !db.changeLogTables.contains(name) else { return }
        if !db.changeLogFunction {
            guard prefs_sqlite_register_logging(db.sqliteConnection) == SQLITE_OK else {
                throw DatabaseError(resultCode: .misuse, message: "cannot register the change log's function")
            }
            db.changeLogFunction = true
        }
        try db.execute(sql: triggersSQL(table: name, domain: table.isShared ? nil : table.domain))
        db.changeLogTables.insert(name)
    }

    /// Drops the change log's TEMP triggers on the table that holds `table`'s rows, on this
    /// connection: a bulk that writes the records itself (``BulkUpsert``). The next write of the
    /// table by another path makes them again (``installTriggers(_:on:)``); SQLite prepares
    /// again the statements that carried them. A transaction that rolls back brings them back,
    /// and the connection's record of them with it (``Database/inTransaction(_:_:)``).
    static func removeTriggers(_ db: Database, on table: DomainTable) throws {
        let name = triggerTable(table)
        try db.execute(
            sql: "DROP TRIGGER IF EXISTS temp.\((name + "_log_insert").quotedDatabaseIdentifier);"
                + "DROP TRIGGER IF EXISTS temp.\((name + "_log_update").quotedDatabaseIdentifier);"
                + "DROP TRIGGER IF EXISTS temp.\((name + "_log_delete").quotedDatabaseIdentifier);")
        db.changeLogTables.remove(name)
    }

    /// Whether this connection has made the triggers on the table that holds `table`'s rows.
    static func hasTriggers(_ db: Database, on table: DomainTable) -> Bool {
        db.changeLogTables.contains(triggerTable(table))
    }

    /// Whether the log is on for the connection (what the triggers' `prefs_logging()` answers).
    static func isLogging(_ db: Database) -> Bool {
        prefs_sqlite_triggers_enabled(db.sqliteConnection) != 0
    }

    /// The name of the table that holds `table`'s rows, which its triggers are named after.
    private static func triggerTable(_ table: DomainTable) -> String {
        table.isShared ? DomainTable.sharedTableName : "kv_" + table.domain.name
    }

    /// The statement that writes the records of `rows` rows of `table` stored by an upsert
    /// that runs next, exactly as the insert and update triggers write them (same columns,
    /// the op and actor of `log_context`, numbered in the rows' order): bind each row's
    /// update time, key and value. `readingOld`: the previous value is read from the table
    /// (NULL for a key not there, as an insert logs); else every key must be new.
    /// (`log_context` always holds its one row.)
    static func recordsSQL(_ table: DomainTable, rows: Int, readingOld: Bool) -> String {
        let old = readingOld ? "(SELECT value FROM main.\(table.table) WHERE \(table.scope)key = column2)" : "NULL"
        let values = String(repeating: "(?, ?, ?), ", count: rows - 1) + "(?, ?, ?)"
        // Domain names are validated: [a-z0-9_-] only.
        return "INSERT INTO changelog (at, domain, key, op, old, new, actor) SELECT column1, '\(table.domain.name)', column2, "
            + "(SELECT op FROM log_context), \(old), column3, (SELECT actor FROM log_context) FROM (VALUES \(values))"
    }

    /// The three TEMP triggers that append every insert, update and delete of `table` to the
    /// change log, in the same transaction, with the op and actor of `log_context`, while
    /// the log is on (``enableTriggers(_:_:)``). `domain`: the domain of a table of its own;
    /// nil: the shared table, whose rows name theirs.
    private static func triggersSQL(table: String, domain: Domain?) -> String {
        // Domain names are validated: [a-z0-9_-] only.
        let (new, old) = domain.map { ("'" + $0.name + "'", "'" + $0.name + "'") } ?? ("new.domain", "old.domain")
        let target = "main." + table.quotedDatabaseIdentifier
        let insert = "INSERT INTO changelog (at, domain, key, op, old, new, actor) SELECT"
        let deletedAt = "CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)"
        func trigger(_ event: String, _ values: String) -> String {
            let name = (table + "_log_" + event.lowercased()).quotedDatabaseIdentifier
            return "CREATE TEMP TRIGGER IF NOT EXISTS \(name) AFTER \(event) ON \(target) WHEN prefs_logging() BEGIN "
                + "\(insert) \(values), actor FROM log_context; END;\n"
        }
        return trigger("INSERT", "new.updated_at, \(new), new.key, op, NULL, new.value")
            + trigger("UPDATE", "new.updated_at, \(new), new.key, op, old.value, new.value")
            + trigger("DELETE", "\(deletedAt), \(old), old.key, op, old.value, NULL")
    }

    /// Migration 2's persistent triggers on a domain's own table (frozen: released migrations
    /// are never edited), which migration 5 drops, and the table's expiry index, which stays.
    static func createPersistentTriggers(_ db: Database, _ domain: Domain) throws {
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
                \(DomainTable.expiryIndexSQL(domain))
                """)
    }

    /// The names of the persistent triggers schema 2 to 4 put on `table` (migration 5 drops them).
    static func persistentTriggerNames(_ table: String) -> [String] {
        ["_log_insert", "_log_update", "_log_delete"].map { table + $0 }
    }
}
