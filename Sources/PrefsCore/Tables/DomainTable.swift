import CSQLite
import FoundationEssentials
import Glibc

/// SQL for one domain's table. Domain names reach SQL only after ``Domain`` validated them,
/// and always as quoted identifiers; keys and values are always bound parameters.
struct DomainTable {
    let domain: Domain
    let table: String

    init(_ domain: Domain) {
        self.domain = domain
        self.table = Self.tableName(domain.name)
    }

    /// The quoted table name of a domain whose name ``Domain`` validated.
    static func tableName(_ domainName: String) -> String {
        ("kv_" + domainName).quotedDatabaseIdentifier
    }

    /// The condition that picks a key's live (not expired) row: the key is `?1`, the time
    /// now in milliseconds `?2`. ``QuickRead`` reads with it too.
    static let liveRowCondition = "key = ?1 AND (expires_at IS NULL OR expires_at > ?2)"

    static func create(_ db: Database, _ domain: Domain) throws {
        let table = DomainTable(domain).table
        try db.execute(
            sql: """
                CREATE TABLE IF NOT EXISTS \(table) (
                    key TEXT PRIMARY KEY NOT NULL,
                    value TEXT NOT NULL,
                    version INTEGER NOT NULL,
                    updated_at INTEGER NOT NULL,
                    expires_at INTEGER
                ) WITHOUT ROWID
                """)
        try db.execute(
            sql: "INSERT OR IGNORE INTO domains (name, created_at) VALUES (?, ?)",
            arguments: [domain.name, WallClock.nowMilliseconds()])
        try ChangeLog.createTriggers(db, domain)
    }

    static func exists(_ db: Database, _ domain: Domain) throws -> Bool {
        try Bool.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM domains WHERE name = ?"), arguments: [domain.name]) ?? false
    }

    /// Whether the domain's table may exist: the memory tier's and the built-in domains'
    /// always do; a custom domain's when it is registered.
    static func mayExist(_ db: Database, _ domain: Domain) throws -> Bool {
        try domain == .memory || Domain.builtInPersistent.contains(domain) || exists(db, domain)
    }

    static func all(_ db: Database) throws -> [Domain] {
        try String.fetchAll(db, sql: "SELECT name FROM domains ORDER BY name").compactMap { try? Domain($0) }
    }

    func row(_ db: Database, key: String, now: Int64) throws -> Entry? {
        let statement = try db.cachedStatement(
            sql: "SELECT value, version, updated_at, expires_at FROM \(table) WHERE \(Self.liveRowCondition)")
        guard let row = try Row.fetchOne(statement, arguments: [key, now]) else { return nil }
        return try Entry(domain: domain, key: key, json: row[0], version: row[1], updatedAt: row[2], expiresAt: row[3])
    }

    /// Inserts or replaces a value (and its expiry). The version becomes the larger of the
    /// previous version + 1 and the write time in milliseconds, so it grows with every write
    /// and a key removed and written again never gets a version it had before (no ABA for
    /// compare-and-set).
    ///
    /// `updatedAt` defaults to `now`; a value pulled from the sync remote keeps its writer's
    /// time there.
    func upsert(_ db: Database, key: String, json: String, now: Int64, updatedAt: Int64? = nil, expiresAt: Int64?) throws {
        let statement = try db.cachedStatement(sql: upsertSQL(rows: 1))
        statement.setUncheckedArguments([key, json, now, updatedAt ?? now, expiresAt])
        try statement.execute()
    }

    /// The one upsert statement, for `rows` rows of (key, value, version, updated_at,
    /// expires_at): a new key is inserted with the version given; an existing key gets the
    /// larger of its version + 1 and the version given (a tampered store's Int64.max stays: SQLite
    /// would turn the overflow into a REAL).
    func upsertSQL(rows: Int) -> String {
        // Not `joined(separator:)`: its first call in a process costs more than the statement.
        let values = String(repeating: "(?, ?, ?, ?, ?), ", count: rows - 1) + "(?, ?, ?, ?, ?)"
        return """
            INSERT INTO \(table) (key, value, version, updated_at, expires_at) VALUES \(values)
            ON CONFLICT (key) DO UPDATE SET value = excluded.value,
                version = max(CASE WHEN version >= 9223372036854775807 THEN version ELSE version + 1 END, excluded.version),
                updated_at = excluded.updated_at, expires_at = excluded.expires_at
            """
    }

    /// Whether a key has expired by `now` (milliseconds) and is still stored. Reads the
    /// expiry index only, so a write that has nothing to purge leaves `write_context` alone.
    func hasExpired(_ db: Database, now: Int64) throws -> Bool {
        let statement = try db.cachedStatement(
            sql: "SELECT 1 FROM \(table) WHERE expires_at IS NOT NULL AND expires_at <= ? LIMIT 1")
        return try Bool.fetchOne(statement, arguments: [now]) ?? false
    }

    /// Deletes a key; returns whether it existed.
    func delete(_ db: Database, key: String) throws -> Bool {
        try db.cachedStatement(sql: "DELETE FROM \(table) WHERE key = ?").execute(arguments: [key])
        return db.changesCount > 0
    }

    /// Visits the keys of live entries in key order (bytewise UTF-8, the primary key's own
    /// order), reading no value: names only, for a "did you mean" among them.
    func forEachKey(_ db: Database, now: Int64, _ body: (String) throws -> Void) throws {
        let statement = try db.makeStatement(sql: "SELECT key FROM \(table) WHERE expires_at IS NULL OR expires_at > ? ORDER BY key")
        try statement.bind([now])
        defer { statement.reset() }
        // Straight from the column: a `Row` per key would cost more than SQLite's step.
        while try statement.step() {
            let count = Int(sqlite3_column_bytes(statement.handle, 0))
            guard let text = sqlite3_column_text(statement.handle, 0) else { continue }
            try body(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
        }
    }

    /// Visits live entries in key order (bytewise UTF-8), optionally only those with a prefix.
    func forEach(_ db: Database, prefix: String?, now: Int64, _ body: (Entry) throws -> Void) throws {
        let columns = "SELECT key, value, version, updated_at, expires_at FROM \(table)"
        let live = "(expires_at IS NULL OR expires_at > ?)"
        let cursor: RowCursor
        if let prefix, !prefix.isEmpty {
            let (lower, upper) = KeyRange.prefix(prefix)
            if let upper {
                cursor = try Row.fetchCursor(
                    db, sql: "\(columns) WHERE key >= ? AND key < ? AND \(live) ORDER BY key", arguments: [lower, upper, now])
            } else {
                cursor = try Row.fetchCursor(db, sql: "\(columns) WHERE key >= ? AND \(live) ORDER BY key", arguments: [lower, now])
            }
        } else {
            cursor = try Row.fetchCursor(db, sql: "\(columns) WHERE \(live) ORDER BY key", arguments: [now])
        }
        while let row = try cursor.next() {
            try body(Entry(domain: domain, key: row[0], json: row[1], version: row[2], updatedAt: row[3], expiresAt: row[4]))
        }
    }
}
