extension StoreDatabase {
    /// Maps an error of this database to a ``PrefsError`` (the one place that does).
    func failure(_ error: any Error, writing: Bool) -> PrefsError {
        PrefsError.database(error, path: displayPath, writing: writing)
    }

    /// Which connection, and its `PRAGMA data_version`: equal stamps mean no other
    /// connection (another process, another stack) has committed in between.
    struct CommitStamp: Equatable, Sendable {
        /// ``StoreDatabase/connectionNumber`` when the stamp was taken, not the connection's
        /// address: a connection opened after a reopen or a restore may reuse the old one's
        /// memory, and its `data_version` starts again low.
        let connection: Int
        let version: Int
    }

    /// The commit stamp now (one pragma outside any transaction); nil when nothing has
    /// been stored yet.
    ///
    /// - Throws: database errors mapped by ``failure(_:writing:)``.
    func commitStamp() throws -> CommitStamp? {
        guard let reader = try reader() else { return nil }
        // Read after the reader is taken: never older than it (a newer number only misses).
        let number = connectionNumber
        do {
            let version = try reader.inDatabase { try Int.fetchOne($0.cachedStatement(sql: "PRAGMA data_version")) } ?? 0
            return CommitStamp(connection: number, version: version)
        } catch {
            throw failure(error, writing: false)
        }
    }

    /// Runs `body` in a read transaction (within a read under way on this connection, in that
    /// read's transaction: one snapshot, `DatabaseQueue.readJoining`); nil when nothing
    /// has been stored yet.
    ///
    /// - Throws: what `body` throws, database errors mapped by ``failure(_:writing:)``.
    func read<T>(_ body: (Database) throws -> T) throws -> T? {
        guard let reader = try reader() else { return nil }
        do {
            return try reader.readJoining(body)
        } catch {
            throw failure(error, writing: false)
        }
    }

    /// Runs `prepare` on the writing connection outside any transaction (the statements it
    /// caches are then ready before a write transaction takes the lock). Errors are ignored:
    /// the transaction that runs the statements reports them.
    func prepareStatements(_ prepare: (Database) throws -> Void) {
        guard let queue = try? writer() else { return }
        queue.inDatabase { db in
            guard !db.isInsideTransaction else { return }
            _ = try? prepare(db)
        }
    }

    /// Runs `body` in a write transaction that changes no keys (the `meta` table, sync
    /// bookkeeping): no change-log op, no sync capture. Key changes go through
    /// ``WriteTransaction``, which runs in here.
    ///
    /// - Throws: what `body` throws, database errors mapped by ``failure(_:writing:)``.
    func write<T>(_ body: (Database) throws -> T) throws -> T {
        do {
            return try writer().write(body)
        } catch {
            throw failure(error, writing: true)
        }
    }
}
