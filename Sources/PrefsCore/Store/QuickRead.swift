import CPrefsSQLite
import CSQLite

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
    package static func lookup(path: String, domain: String, key: String, busyTimeout: Int32) -> Lookup? {
        guard let named = try? Domain(domain), named != .memory else { return nil }
        let table = DomainTable(named)
        // A file another user prepared or can change: the full path refuses it (checked again
        // after the read, once SQLite has opened -wal and -shm).
        let path = StoreLocation.resolvingSymbolicLinks(path)
        guard (try? StoreDatabase.checkOwnership(path)) != nil else { return nil }
        var handle: OpaquePointer?
        defer { sqlite3_close_v2(handle) }
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READONLY, nil) == SQLITE_OK, let db = handle else { return nil }
        // The file is data, as on every connection prefs opens (``Database``): a planted
        // view or trigger may call only innocuous functions, so this path answers no more
        // than the full one, which then reports the store as damaged.
        guard prefs_sqlite_harden(db) == SQLITE_OK else { return nil }
        sqlite3_busy_timeout(db, busyTimeout)
        // The domain name is validated above ([a-z][a-z0-9_-]*); the table and the condition
        // are DomainTable's. One row whether or not the key has one: NULL for none (the
        // column is NOT NULL), with the store's identity beside it.
        let sql = """
            SELECT (SELECT value FROM \(table.table) WHERE \(table.scope)\(DomainTable.liveRowCondition)),
            (SELECT application_id FROM pragma_application_id), (SELECT user_version FROM pragma_user_version)
            """
        var prepared: OpaquePointer?
        defer { sqlite3_finalize(prepared) }
        guard sqlite3_prepare_v2(db, sql, -1, &prepared, nil) == SQLITE_OK, let statement = prepared else { return nil }
        let bound = key.utf8.withContiguousStorageIfAvailable { bytes in
            sqlite3_bind_text(
                statement, 1, bytes.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) }, Int32(bytes.count),
                sqliteTransient)
        }
        guard bound == SQLITE_OK, sqlite3_bind_int64(statement, 2, WallClock.nowMilliseconds()) == SQLITE_OK else { return nil }
        guard sqlite3_step(statement) == SQLITE_ROW,
            sqlite3_column_int64(statement, 1) == Int64(StoreDatabase.mainApplicationID),
            sqlite3_column_int64(statement, 2) == Int64(StoreDatabase.schemaVersion)
        else { return nil }
        let answer: Lookup
        if let text = sqlite3_column_text(statement, 0) {
            answer = .stored(Array(UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(statement, 0)))))
        } else {
            answer = .absent
        }
        guard (try? StoreDatabase.checkOwnership(path)) != nil else { return nil }
        return answer
    }

    /// SQLITE_TRANSIENT: SQLite copies the bound bytes.
    private static let sqliteTransient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}
