import CPrefsSQLite
import CSQLite
import Glibc

/// One stored value read straight through the SQLite C API, for `prefs get`'s start-up path.
///
/// It answers only the plain cases: an existing store of the current schema version holding
/// a live (not expired) value for the key, or none (an expired value reads as none, as
/// everywhere). Everything else — a missing store or table, a store of another version, a
/// busy or damaged database — returns nil, and the caller takes the full path through
/// ``KeyValueStack``, which reports those cases.
/// It opens the file read-only, hardened as every connection is (`trusted_schema` off,
/// `SQLITE_DBCONFIG_DEFENSIVE`), and never creates or changes anything.
package enum QuickRead {
    /// What an existing store of the current version holds for a key.
    package enum Lookup: Equatable {
        /// The compact JSON text stored for the key.
        case stored([UInt8])
        /// No live value (none, or an expired one).
        case absent
    }

    /// What the store holds for `key` in `domain`, or nil when the full path must answer.
    ///
    /// - Parameters:
    ///   - path: The store file.
    ///   - domain: A domain name; anything but a valid persistent domain name returns nil.
    ///   - key: The key, compared bytewise as the store does.
    ///   - busyTimeout: How long to wait for a lock, in milliseconds.
    ///   - leavingOpen: Leave the connection open when a value is returned, for a process that
    ///     ends right after printing it (the `prefs` executable): closing frees the schema
    ///     SQLite parsed (0.2 M instructions), and a read-only connection has nothing to do at
    ///     close (it cannot checkpoint; `-wal` and `-shm` stay as they are), so the exit
    ///     releases its locks and mapping as a close would. The connection is closed unless a
    ///     value is returned.
    package static func lookup(
        path: String, domain: String, key: String, busyTimeout: Int32, leavingOpen: Bool = false
    ) -> Lookup? {
        guard let named = try? Domain(domain), named != .memory else { return nil }
        let table = DomainTable(named)
        // A file another user prepared or can change: the full path refuses it (checked again
        // after the read, once SQLite has opened -wal and -shm).
        let path = StoreLocation.resolvingSymbolicLinks(path)
        guard (try? StoreDatabase.checkOwnership(path)) != nil else { return nil }
        var handle: OpaquePointer?
        var header: OpaquePointer?
        var version: OpaquePointer?
        var prepared: OpaquePointer?
        var answered = false
        defer {
            if answered && leavingOpen {
                leftOpen = (handle, [prepared, version, header])
            } else {
                sqlite3_finalize(prepared)
                sqlite3_finalize(version)
                sqlite3_finalize(header)
                sqlite3_close_v2(handle)
            }
        }
        // A -shm file left by an earlier connection is opened read-only (SQLite's
        // `readonly_shm`): with no other connection attached, SQLite reads the database under
        // a read lock of the -shm instead of truncating it, growing it page by page and
        // mapping it to rebuild its index (an ftruncate and 8 writes on the file system per
        // get, milliseconds when the disk is busy); with a writer attached, it reads the
        // writer's index. Without one, the plain read-only open makes -wal and -shm (and a
        // read-only connection leaves them). One connection, used by this thread only: no
        // connection mutex.
        var shm = stat()
        let reuse = lstat(path + "-shm", &shm) == 0 && (shm.st_mode & S_IFMT) == S_IFREG
        let target = reuse ? StoreDatabase.fileURI(path, query: "readonly_shm=1") : path
        let flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX | (reuse ? SQLITE_OPEN_URI : 0)
        guard sqlite3_open_v2(target, &handle, flags, nil) == SQLITE_OK, let db = handle else { return nil }
        // The file is data, as on every connection prefs opens (``Database``): a planted
        // view or trigger may call only innocuous functions, so this path answers no more
        // than the full one, which then reports the store as damaged.
        guard prefs_sqlite_harden(db) == SQLITE_OK else { return nil }
        sqlite3_busy_timeout(db, busyTimeout)
        // The header first: PRAGMA application_id and user_version read it without the schema,
        // and a statement kept at its row holds the read transaction, so the row below comes
        // from the same snapshot. (Subqueries on pragma_application_id and pragma_user_version
        // in the SELECT cost 0.13 M instructions more.)
        guard sqlite3_prepare_v2(db, "PRAGMA application_id", -1, &header, nil) == SQLITE_OK, header != nil,
            sqlite3_step(header) == SQLITE_ROW, sqlite3_column_int64(header, 0) == Int64(StoreDatabase.mainApplicationID),
            sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &version, nil) == SQLITE_OK, version != nil,
            sqlite3_step(version) == SQLITE_ROW, sqlite3_column_int64(version, 0) == Int64(StoreDatabase.schemaVersion)
        else { return nil }
        // The domain name is validated above ([a-z][a-z0-9_-]*); the table and the condition
        // are DomainTable's.
        let sql = "SELECT value FROM \(table.table) WHERE \(table.scope)\(DomainTable.liveRowCondition)"
        guard sqlite3_prepare_v2(db, sql, -1, &prepared, nil) == SQLITE_OK, let statement = prepared else { return nil }
        let bound = key.utf8.withContiguousStorageIfAvailable { bytes in
            sqlite3_bind_text(
                statement, 1, bytes.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) }, Int32(bytes.count),
                sqliteTransient)
        }
        guard bound == SQLITE_OK, sqlite3_bind_int64(statement, 2, WallClock.nowMilliseconds()) == SQLITE_OK else { return nil }
        let answer: Lookup
        switch sqlite3_step(statement) {
        case SQLITE_ROW:
            guard let text = sqlite3_column_text(statement, 0) else { return nil }
            answer = .stored(Array(UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(statement, 0)))))
        case SQLITE_DONE:
            answer = .absent
        default:
            return nil
        }
        guard (try? StoreDatabase.checkOwnership(path)) != nil else { return nil }
        if case .stored = answer { answered = true }
        return answer
    }

    /// The connection and statements ``lookup(path:domain:key:busyTimeout:leavingOpen:)`` left
    /// open, until the process exits or ``closeLeftOpen()`` (the executable's main thread only).
    nonisolated(unsafe) private static var leftOpen: (OpaquePointer?, [OpaquePointer?])?

    /// Closes what a lookup left open: for a caller that, after all, does not exit at once
    /// (it hands the command to the full path, whose connection must not find a read
    /// transaction of this one holding the WAL).
    package static func closeLeftOpen() {
        guard let (handle, statements) = leftOpen else { return }
        leftOpen = nil
        for statement in statements { sqlite3_finalize(statement) }
        sqlite3_close_v2(handle)
    }

    /// For the `prefs` executable, before SQLite is first used: the process-wide settings of
    /// a program that runs one command (`prefs_sqlite_configure_one_shot`: no memory
    /// statistics, whose global mutex every allocation took, and no page-cache block
    /// allocated up front). Not for the library: `sqlite3_config` is the whole process's.
    package static func configureOneShotProcess() {
        prefs_sqlite_configure_one_shot()
    }

    /// SQLITE_TRANSIENT: SQLite copies the bound bytes.
    private static let sqliteTransient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}
