import CPrefsSQLite
import CSQLite

/// One SQLite connection (`sqlite3*`), opened as GRDB's `Database` was: extended result
/// codes, multi-thread mode (a ``DatabaseQueue`` serializes its use), URI filenames, double-
/// quoted string literals off, the busy timeout, then a query that fails at once for a file
/// that is not a database. Unlike GRDB, the file is treated as data: defensive mode on
/// (`SQLITE_DBCONFIG_DEFENSIVE`) and its schema untrusted (`SQLITE_DBCONFIG_TRUSTED_SCHEMA`
/// off), in one C call.
package final class Database {
    /// How a transaction takes its locks.
    package enum TransactionKind: String, Sendable {
        case deferred = "DEFERRED"
        case immediate = "IMMEDIATE"
        case exclusive = "EXCLUSIVE"
    }

    /// How a transaction body ends.
    package enum TransactionCompletion: Sendable {
        case commit
        case rollback
    }

    /// The connection.
    package let sqliteConnection: OpaquePointer
    /// Opened with `SQLITE_OPEN_READONLY`.
    package let readonly: Bool
    private var statementCache: [String: Statement] = [:]
    /// `PRAGMA query_only` is on (inside ``DatabaseQueue/read(_:)``).
    private var queryOnly = false
    private var closed = false
    /// The tables whose change-log TEMP triggers are made on this connection
    /// (`ChangeLog.installTriggers(_:on:)`, before the first write to each): a connection that
    /// only reads never makes one. A transaction that rolls back takes back the ones it made.
    package var changeLogTables: Set<String> = []
    /// `prefs_logging()`, which the triggers ask, is registered on this connection.
    package var changeLogFunction = false

    /// Opens `path` (a file name, `:memory:` or a `file:` URI) and sets the connection up.
    ///
    /// - Throws: ``DatabaseError`` when SQLite cannot open it or it is not a database.
    init(path: String, configuration: Configuration) throws {
        var flags =
            configuration.readonly
            ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | (configuration.create ? SQLITE_OPEN_CREATE : 0))
        flags |= SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI | Self.extendedResultCodesFlag
        var handle: OpaquePointer?
        let code = sqlite3_open_v2(path, &handle, flags, nil)
        guard code == SQLITE_OK, let handle else {
            sqlite3_close(handle)
            throw DatabaseError(resultCode: ResultCode(rawValue: code))
        }
        sqliteConnection = handle
        readonly = configuration.readonly
        do {
            if let timeout = configuration.busyTimeout {
                // sqlite3_busy_timeout's waits, polled every millisecond instead of sleeping up
                // to 100 ms between tries: writers take the lock in turn as it is let go.
                let code = prefs_sqlite_busy_wait(handle, Int32(timeout * 1000))
                guard code == SQLITE_OK else { throw DatabaseError(resultCode: ResultCode(rawValue: code)) }
            }
            prefs_sqlite_disable_dqs(handle)
            // A store file, a backup and a restored store are data, never code: their
            // triggers and views may call only innocuous functions, and no statement may
            // corrupt the file (writable_schema, journal_mode=OFF).
            if configuration.defensive {
                let hardened = prefs_sqlite_harden(handle)
                guard hardened == SQLITE_OK else { throw DatabaseError(resultCode: ResultCode(rawValue: hardened)) }
            }
            if configuration.foreignKeysEnabled {
                try execute(sql: "PRAGMA foreign_keys = ON")
            }
            let extended = sqlite3_extended_result_codes(handle, 1)
            guard extended == SQLITE_OK else { throw DatabaseError(resultCode: ResultCode(rawValue: extended)) }
            for setup in configuration.setups { try setup(self) }
            // A file that is not a database (or is encrypted) fails here rather than later.
            let probe = try Statement(connection: handle, sql: "SELECT * FROM sqlite_master LIMIT 1")
            _ = try probe.step()
            probe.reset()
        } catch {
            close()
            throw error
        }
    }

    /// SQLITE_OPEN_EXRESCODE (SQLite 3.37): extended result codes from the open on.
    private static let extendedResultCodesFlag: Int32 = 0x0200_0000

    deinit {
        close()
    }

    /// Finalizes the cached statements and closes the connection (`sqlite3_close_v2`: it
    /// closes for good once statements still referenced elsewhere are finalized).
    func close() {
        guard !closed else { return }
        closed = true
        statementCache.removeAll()
        sqlite3_close_v2(sqliteConnection)
    }

    // MARK: - Statements

    private func checkOpen(_ sql: String) throws {
        guard !closed else { throw DatabaseError(resultCode: .misuse, message: "connection is closed", sql: sql) }
    }

    /// Prepares a statement for this call only.
    package func makeStatement(sql: String) throws -> Statement {
        try checkOpen(sql)
        return try Statement(connection: sqliteConnection, sql: sql)
    }

    /// A statement prepared once per connection and kept for the next call with the same
    /// SQL. (The change log's TEMP triggers ask `prefs_logging()` when they run: a cached
    /// statement follows the connection's log switch, whenever it was prepared.)
    package func cachedStatement(sql: String) throws -> Statement {
        if let statement = statementCache[sql] { return statement }
        let statement = try makeStatement(sql: sql)
        statementCache[sql] = statement
        return statement
    }

    /// Runs every statement of `sql` in turn; `arguments` are consumed in order by their
    /// parameters.
    ///
    /// - Throws: ``DatabaseError``; statements before the failing one have run.
    package func execute(sql: String, arguments: StatementArguments = []) throws {
        try checkOpen(sql)
        var consumed = 0
        try sql.withCString { start in
            var next: UnsafePointer<CChar>? = start
            while let current = next, current.pointee != 0 {
                var prepared: OpaquePointer?
                var tail: UnsafePointer<CChar>?
                let code = sqlite3_prepare_v2(sqliteConnection, current, -1, &prepared, &tail)
                guard code == SQLITE_OK else {
                    sqlite3_finalize(prepared)
                    throw DatabaseError(
                        resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(sqliteConnection)), sql: sql)
                }
                next = tail
                guard let handle = prepared else { continue }  // white space or a comment
                defer { sqlite3_finalize(handle) }
                let count = Int(sqlite3_bind_parameter_count(handle))
                guard consumed + count <= arguments.values.count else {
                    throw DatabaseError(resultCode: .misuse, message: "wrong number of statement arguments", sql: sql)
                }
                for index in 0..<count {
                    Statement.bind(arguments.values[consumed + index], to: handle, at: Int32(index + 1))
                }
                consumed += count
                var step = sqlite3_step(handle)
                while step == SQLITE_ROW { step = sqlite3_step(handle) }
                guard step == SQLITE_DONE else {
                    throw DatabaseError(
                        resultCode: ResultCode(rawValue: step), message: String(cString: sqlite3_errmsg(sqliteConnection)),
                        sql: String(cString: sqlite3_sql(handle)))
                }
            }
        }
        guard consumed == arguments.values.count else {
            throw DatabaseError(resultCode: .misuse, message: "wrong number of statement arguments", sql: sql)
        }
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    package var changesCount: Int {
        Int(sqlite3_changes(sqliteConnection))
    }

    /// Whether the main or temp schema has a table `name` (compared without case).
    package func tableExists(_ name: String) throws -> Bool {
        try Bool.fetchOne(
            cachedStatement(
                sql: """
                    SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1 COLLATE NOCASE)
                    OR EXISTS (SELECT 1 FROM sqlite_temp_master WHERE type = 'table' AND name = ?1 COLLATE NOCASE)
                    """),
            arguments: [name]) ?? false
    }

    // MARK: - Backup

    /// Copies this database into `target` (`sqlite3_backup_*`, all pages in one step).
    func backup(to target: Database) throws {
        let destination = target.sqliteConnection
        guard let backup = sqlite3_backup_init(destination, "main", sqliteConnection, "main") else {
            throw DatabaseError(
                resultCode: ResultCode(rawValue: sqlite3_extended_errcode(destination)),
                message: String(cString: sqlite3_errmsg(destination)))
        }
        let step = sqlite3_backup_step(backup, -1)
        guard step == SQLITE_DONE || step == SQLITE_OK else {
            sqlite3_backup_finish(backup)
            throw DatabaseError(resultCode: ResultCode(rawValue: step), message: String(cString: sqlite3_errmsg(destination)))
        }
        let finish = sqlite3_backup_finish(backup)
        guard finish == SQLITE_OK else {
            throw DatabaseError(resultCode: ResultCode(rawValue: finish), message: String(cString: sqlite3_errmsg(destination)))
        }
    }

    // MARK: - Transactions

    /// Whether a transaction is open.
    package var isInsideTransaction: Bool {
        sqlite3_get_autocommit(sqliteConnection) == 0
    }

    /// Whether writes fail: opened read-only, or inside ``DatabaseQueue/read(_:)``.
    package var isReadOnly: Bool {
        readonly || queryOnly
    }

    /// Runs `body` in a transaction: `BEGIN IMMEDIATE` unless the connection is read-only
    /// (`DEFERRED`) or `kind` says otherwise; commits when it returns `.commit`, rolls back
    /// when it returns `.rollback` or throws (the first error is thrown).
    package func inTransaction(_ kind: TransactionKind? = nil, _ body: () throws -> TransactionCompletion) throws {
        try cachedStatement(sql: "BEGIN \((kind ?? (isReadOnly ? .deferred : .immediate)).rawValue) TRANSACTION").execute()
        let loggedTables = changeLogTables
        var firstError: (any Error)?
        var needsRollback = true
        do {
            if try body() == .commit {
                guard isInsideTransaction else {
                    // SQLite rolled back on an error the body caught (SQLITE_FULL, _IOERR…).
                    throw DatabaseError(resultCode: ResultCode(rawValue: SQLITE_ABORT), message: "Transaction was aborted")
                }
                try cachedStatement(sql: "COMMIT TRANSACTION").execute()
                needsRollback = false
            }
        } catch {
            firstError = error
        }
        if needsRollback && isInsideTransaction {
            do {
                try cachedStatement(sql: "ROLLBACK TRANSACTION").execute()
            } catch {
                if firstError == nil { firstError = error }
            }
        }
        // The triggers made in a transaction that did not commit are gone with it.
        if needsRollback { changeLogTables = loggedTables }
        if let firstError { throw firstError }
    }

    /// Runs `body` with writes refused (`PRAGMA query_only`) in a deferred transaction, so
    /// every statement of it reads the same snapshot.
    func readOnlyTransaction<T>(_ body: (Database) throws -> T) throws -> T {
        guard !isInsideTransaction else { return try withQueryOnly { try body(self) } }
        return try withQueryOnly {
            var result: T?
            try inTransaction(.deferred) {
                result = try body(self)
                return .commit
            }
            guard let result else { throw DatabaseError(resultCode: .misuse, message: "no result") }
            return result
        }
    }

    private func withQueryOnly<T>(_ body: () throws -> T) throws -> T {
        guard !readonly, !queryOnly else { return try body() }
        try cachedStatement(sql: "PRAGMA query_only = 1").execute()
        queryOnly = true
        let result: T
        do {
            result = try body()
        } catch {
            queryOnly = false
            try? cachedStatement(sql: "PRAGMA query_only = 0").execute()
            throw error
        }
        queryOnly = false
        try cachedStatement(sql: "PRAGMA query_only = 0").execute()
        return result
    }
}
