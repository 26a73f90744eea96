/// The owner of the `meta` table's keys: every read and write of a `meta` row goes through
/// here (the released migrations keep their frozen SQL).
enum StoreMeta {
    /// A key of the `meta` table.
    enum Key: String, Sendable {
        /// The schema version as text (also in `PRAGMA user_version`).
        case schemaVersion = "schema_version"
        /// The store's UUID; also its sync node id.
        case storeID = "store_id"
        /// `store` or `memory`.
        case kind
        /// For a memory tier: the store file it belongs to.
        case storePath = "store_path"
        /// How many change-log records are kept (`prefs log --retain`).
        case logRetain = "log_retain"
        /// The loaded schema document (compact JSON).
        case schema
        /// The `fractional` hashing version of flag evaluation.
        case flagFractionalVersion = "flag_fractional_version"
        /// How many pulled sync operations were skipped since the remote was set.
        case syncSkipped = "sync_skipped"
    }

    /// The value stored under `key`, or nil.
    static func value(_ db: Database, _ key: Key) throws -> String? {
        try String.fetchOne(db.cachedStatement(sql: "SELECT value FROM meta WHERE key = ?"), arguments: [key.rawValue])
    }

    /// The value under `key` read as an integer, or nil.
    static func integer(_ db: Database, _ key: Key) throws -> Int? {
        try Int.fetchOne(db, sql: "SELECT CAST(value AS INTEGER) FROM meta WHERE key = ?", arguments: [key.rawValue])
    }

    /// SQL for the integer under `key`, or `fallback` when it is missing (for use inside a
    /// statement).
    static func integerSQL(_ key: Key, default fallback: Int) -> String {
        "COALESCE((SELECT CAST(value AS INTEGER) FROM meta WHERE key = '\(key.rawValue)'), \(fallback))"
    }

    /// Stores `value` under `key`, replacing what was there.
    static func set(_ db: Database, _ key: Key, _ value: String) throws {
        try db.execute(sql: "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", arguments: [key.rawValue, value])
    }

    /// Adds `count` to the integer under `key` (a missing key counts as 0).
    static func add(_ db: Database, _ key: Key, _ count: Int) throws {
        try db.execute(
            sql: """
                INSERT INTO meta (key, value) VALUES (?, ?)
                ON CONFLICT (key) DO UPDATE SET value = CAST(CAST(value AS INTEGER) + ? AS TEXT)
                """, arguments: [key.rawValue, String(count), count])
    }

    /// Removes `key`.
    static func remove(_ db: Database, _ key: Key) throws {
        try db.execute(sql: "DELETE FROM meta WHERE key = ?", arguments: [key.rawValue])
    }
}
