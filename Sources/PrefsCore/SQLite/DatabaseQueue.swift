import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// One connection used by one thread at a time, as GRDB's `DatabaseQueue` was: every call
/// holds a lock for its duration (calls are not reentrant). The write queue's timer thread
/// and the caller's thread share a store's queue.
package final class DatabaseQueue: @unchecked Sendable {
    private let database: Database
    private let lock: UnsafeMutablePointer<pthread_mutex_t>
    /// The thread that holds `lock` (0: none), for ``readJoining(_:)``.
    private let holder = Atomic<UInt>(0)

    /// Opens the database at `path` (a file name or a `file:` URI).
    ///
    /// - Throws: ``DatabaseError`` when SQLite cannot open it or it is not a database.
    package init(path: String, configuration: Configuration = Configuration()) throws {
        database = try Database(path: path, configuration: configuration)
        lock = .allocate(capacity: 1)
        pthread_mutex_init(lock, nil)
    }

    /// Opens a private in-memory database.
    package convenience init(configuration: Configuration = Configuration()) throws {
        try self.init(path: ":memory:", configuration: configuration)
    }

    deinit {
        database.close()
        pthread_mutex_destroy(lock)
        lock.deallocate()
    }

    /// Runs `body` with the connection, holding the lock.
    private func sync<T>(_ body: (Database) throws -> T) rethrows -> T {
        pthread_mutex_lock(lock)
        holder.store(UInt(pthread_self()), ordering: .relaxed)
        defer {
            holder.store(0, ordering: .relaxed)
            pthread_mutex_unlock(lock)
        }
        return try body(database)
    }

    /// ``read(_:)``, or, called inside a call on this queue on the same thread (which holds
    /// the lock), in that call's transaction: what `body` reads comes from the snapshot the
    /// outer read took (an export of several domains reads one state of the store).
    package func readJoining<T>(_ body: (Database) throws -> T) throws -> T {
        if holder.load(ordering: .relaxed) == UInt(pthread_self()) { return try database.readOnlyTransaction(body) }
        return try read(body)
    }

    /// Runs `body` in a deferred transaction with writes refused (`PRAGMA query_only`).
    package func read<T>(_ body: (Database) throws -> T) throws -> T {
        try sync { try $0.readOnlyTransaction(body) }
    }

    /// Runs `body` in a transaction (`BEGIN IMMEDIATE`, or `DEFERRED` on a read-only
    /// connection) and commits; rolls back when it throws.
    package func write<T>(_ body: (Database) throws -> T) throws -> T {
        try sync { db in
            var result: T?
            try db.inTransaction {
                result = try body(db)
                return .commit
            }
            guard let result else { throw DatabaseError(resultCode: .misuse, message: "no result") }
            return result
        }
    }

    /// Runs `body` with the connection outside any transaction of its own (statements
    /// autocommit unless `body` begins one).
    package func writeWithoutTransaction<T>(_ body: (Database) throws -> T) rethrows -> T {
        try sync(body)
    }

    /// Same as ``writeWithoutTransaction(_:)``.
    package func inDatabase<T>(_ body: (Database) throws -> T) rethrows -> T {
        try sync(body)
    }

    /// Copies this whole database into `destination` with SQLite's online backup (in one
    /// step), reading in a read transaction here, outside any transaction there.
    ///
    /// - Throws: ``DatabaseError``.
    package func backup(to destination: DatabaseQueue) throws {
        try destination.writeWithoutTransaction { target in
            try read { source in try source.backup(to: target) }
        }
    }

    /// Closes the connection now (later calls fail with `SQLITE_MISUSE`).
    package func close() throws {
        sync { $0.close() }
    }
}
