/// One write transaction of a store database, the only way prefs changes keys:
/// ``run(on:op:_:)`` begins an immediate transaction, names its op in the change log, notes
/// where the log stands when the store syncs, runs the body, then (before the commit) turns
/// the transaction's log records of synced domains into pending sync operations and applies
/// the log's retention. Database errors are mapped once, by ``StoreDatabase/write(_:)``.
/// When the body throws, the transaction rolls back: no key, log record or sync operation
/// of it remains.
///
/// The body changes keys through ``ChangeApplier`` (or SQL of its own) and names what it
/// does with ``setOp(_:)``.
final class WriteTransaction {
    /// The connection, inside the transaction.
    let db: Database
    private let log: ChangeLog
    /// The op `log_context` names now.
    private var op: LogOperation
    /// Set when the store syncs, until the sync capture has run.
    private var recorder: SyncRecorder?
    /// Set when a placeholder stands for skipped records: retention must remove it (and the
    /// records before it) at this commit, not in a later batch.
    private(set) var prunesExactly = false
    /// The system layer's locks of the store (``StoreDatabase/locks``).
    let locks: [LayerLock]

    private init(_ db: Database, log: ChangeLog, op: LogOperation, recordsSync: Bool, locks: [LayerLock]) throws {
        self.db = db
        self.locks = locks
        self.log = log
        self.op = op
        try ChangeLog.checkRoom(db)
        try log.begin(db, op: op)
        recorder = recordsSync ? try SyncRecorder.start(db) : nil
    }

    /// Runs `body` in one write transaction of `database`, its changes logged as `op`.
    ///
    /// The statements every transaction runs, and those of `domains`' tables, are prepared
    /// first, outside the transaction, after the change log's TEMP triggers are made on the
    /// connection: a one-shot command would otherwise parse them (and the triggers the upsert
    /// carries) while it holds the store's write lock, which every other writer is waiting for.
    ///
    /// - Throws: what `body` throws; database errors as ``PrefsError`` (`cannotWrite`,
    ///   `storeUnreadable`).
    static func run<T>(
        on database: StoreDatabase, op: LogOperation, preparing domains: [Domain] = [],
        _ body: (WriteTransaction) throws -> T
    ) throws -> T {
        database.prepareStatements { db in
            _ = try db.cachedStatement(sql: "BEGIN IMMEDIATE TRANSACTION")
            _ = try db.cachedStatement(sql: "COMMIT TRANSACTION")
            try ChangeLog.prepareStatements(db)
            if database.recordsSync { _ = try db.cachedStatement(sql: SyncRecorder.configSQL) }
            _ = try db.cachedStatement(sql: freePagesSQL)
            for domain in domains { try DomainTable(domain).prepareStatements(db) }
        }
        return try database.write { db in
            let transaction = try WriteTransaction(
                db, log: database.changeLog, op: op, recordsSync: database.recordsSync, locks: database.locks)
            let result = try body(transaction)
            try transaction.captureSync()
            if database.kind == .memoryTier {
                // `memory` is not logged: nothing reads the memory tier's log, whose records
                // (old and new values, up to retention) would stay in RAM until reboot.
                try db.execute(sql: "DELETE FROM changelog")
            } else {
                try ChangeLog.prune(db, exact: transaction.prunesExactly)
                try giveBackFreePages(db)
            }
            return result
        }
    }

    /// Free pages (of removed keys and pruned log records) kept beyond this many, and beyond
    /// a tenth of the file, go back to the file system in the same transaction.
    static let keptFreePages = 64

    private static let freePagesSQL = "PRAGMA freelist_count"

    /// Moves the last pages of the file into its free pages and truncates it (`PRAGMA
    /// incremental_vacuum`) once more than a tenth of the file is free. A no-op in a store made
    /// before schema 4's incremental auto-vacuum until ``StoreMaintenance/compact()`` switches it.
    private static func giveBackFreePages(_ db: Database) throws {
        let free = try Int.fetchOne(db.cachedStatement(sql: freePagesSQL)) ?? 0
        guard free > keptFreePages else { return }
        let pages = try Int.fetchOne(db.cachedStatement(sql: "PRAGMA page_count")) ?? 0
        guard free * 10 > pages else { return }
        try db.execute(sql: "PRAGMA incremental_vacuum")
    }

    /// Who the log records of this transaction name.
    var actor: String { log.actor }

    /// Whether this transaction turns its change-log records into pending sync operations
    /// (the store has a remote): then every record must be written.
    var recordsSync: Bool { recorder != nil }

    /// Names the op of the statements that follow (a no-op when it is unchanged).
    func setOp(_ op: LogOperation) throws {
        guard op != self.op else { return }
        try ChangeLog.name(db, op)
        self.op = op
    }

    /// How many records the log keeps.
    func retention() throws -> Int {
        try ChangeLog.retention(db)
    }

    /// Stops the change log's triggers from now on (in every statement, whenever prepared),
    /// for the head of a transaction whose records retention would delete at commit anyway. Call
    /// ``resumeLogging(op:skipping:)`` before the transaction ends, whatever happens.
    func suspendLogging() throws {
        try ChangeLog.enableTriggers(db, false)
    }

    /// Logs again after ``suspendLogging()``, numbering the next record as if the `skipped`
    /// records had been written: a placeholder takes the last skipped number, and retention
    /// removes it at commit with the records it stands for, so the log ends exactly as if
    /// every record had been written and pruned, and a watcher sees the gap.
    func resumeLogging(op: LogOperation, skipping skipped: Int) throws {
        try ChangeLog.enableTriggers(db, true)
        try setOp(op)
        guard skipped > 0 else { return }
        try log.placeholder(db, .skipped, offset: Int64(skipped))
        prunesExactly = true
    }

    /// Records the pending sync operations of the changes made so far, now rather than at
    /// the end (for a body that must do it before it drops a table the capture reads).
    func captureSync() throws {
        guard let started = recorder else { return }
        recorder = nil
        try started.record(db)
    }
}
