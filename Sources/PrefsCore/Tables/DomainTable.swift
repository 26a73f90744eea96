import CSQLite
import FoundationEssentials
import Glibc

/// SQL for one domain's rows. The built-in domains (and the memory tier's `memory`) have a
/// table each, `kv_<domain>`; every custom domain's rows live in the one shared table
/// `kv_custom`, keyed by (domain, key), so a store's schema (which SQLite parses on every
/// open) is the same size whatever the number of domains. Domain names reach SQL only after
/// ``Domain`` validated them (`[a-z][a-z0-9_-]*`), as quoted identifiers or string literals;
/// keys and values are always bound parameters.
struct DomainTable {
    let domain: Domain
    /// The quoted name of the table that holds the domain's rows.
    let table: String
    /// Whether the rows live in ``sharedTableName`` (a custom domain).
    let isShared: Bool
    /// The condition that picks the domain's rows in its table, followed by AND: empty for a
    /// table of its own.
    let scope: String

    init(_ domain: Domain) {
        self.domain = domain
        isShared = Self.isShared(domain)
        table = isShared ? Self.sharedTableName : Self.tableName(domain.name)
        scope = isShared ? "domain = '\(domain.name)' AND " : ""
    }

    /// The shared table of the custom domains. No domain's own table can have this name: a
    /// domain name starts with a letter.
    static let sharedTableName = "kv__custom"

    /// Whether a domain's rows live in the shared table: every domain but the built-in ones
    /// and `memory`.
    static func isShared(_ domain: Domain) -> Bool {
        domain != .memory && !Domain.builtInPersistent.contains(domain)
    }

    /// The quoted name of a domain's own table (`kv_<domain>`): a built-in domain's, or a
    /// custom domain's in stores of schema version 3 and older.
    static func tableName(_ domainName: String) -> String {
        ("kv_" + domainName).quotedDatabaseIdentifier
    }

    /// ``scope`` for a table named by `alias` in a join.
    func joinScope(_ alias: String) -> String {
        isShared ? "\(alias).domain = '\(domain.name)' AND " : ""
    }

    /// The condition that picks a key's live (not expired) row: the key is `?1`, the time
    /// now in milliseconds `?2`. ``QuickRead`` reads with it too.
    static let liveRowCondition = "key = ?1 AND (expires_at IS NULL OR expires_at > ?2)"

    /// Makes a built-in domain's table (a custom domain's rows go to the shared table, which
    /// the migrations make) and registers the domain.
    static func create(_ db: Database, _ domain: Domain) throws {
        let table = DomainTable(domain)
        if !table.isShared {
            try db.execute(
                sql: """
                    CREATE TABLE IF NOT EXISTS \(table.table) (
                        key TEXT PRIMARY KEY NOT NULL,
                        value TEXT NOT NULL,
                        version INTEGER NOT NULL,
                        updated_at INTEGER NOT NULL,
                        expires_at INTEGER
                    ) WITHOUT ROWID
                    """)
        }
        try db.execute(
            sql: "INSERT OR IGNORE INTO domains (name, created_at) VALUES (?, ?)",
            arguments: [domain.name, WallClock.nowMilliseconds()])
        if !table.isShared {
            try db.execute(sql: expiryIndexSQL(domain))
        }
    }

    /// The expiry index of a domain's own table.
    static func expiryIndexSQL(_ domain: Domain) -> String {
        let name = "kv_" + domain.name
        return
            "CREATE INDEX IF NOT EXISTS \((name + "_expiry").quotedDatabaseIdentifier) ON \(name.quotedDatabaseIdentifier) (expires_at) WHERE expires_at IS NOT NULL;"
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

    /// Prepares (and caches) the statements a write of one key runs: the expiry check, the
    /// read of the previous value and the one-row upsert.
    func prepareStatements(_ db: Database) throws {
        try ChangeLog.installTriggers(db, on: self)
        for sql in [hasExpiredSQL, rowSQL, upsertSQL(rows: 1)] { _ = try db.cachedStatement(sql: sql) }
    }

    private var rowSQL: String {
        "SELECT value, version, updated_at, expires_at FROM \(table) WHERE \(scope)\(Self.liveRowCondition)"
    }

    private var hasExpiredSQL: String {
        "SELECT 1 FROM \(table) WHERE \(scope)expires_at IS NOT NULL AND expires_at <= ? LIMIT 1"
    }

    func row(_ db: Database, key: String, now: Int64) throws -> Entry? {
        let statement = try db.cachedStatement(sql: rowSQL)
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
        try ChangeLog.installTriggers(db, on: self)
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
        let row = isShared ? "('\(domain.name)', ?, ?, ?, ?, ?)" : "(?, ?, ?, ?, ?)"
        let values = String(repeating: row + ", ", count: rows - 1) + row
        return """
            INSERT INTO \(table) (\(isShared ? "domain, " : "")key, value, version, updated_at, expires_at) VALUES \(values)
            ON CONFLICT (\(isShared ? "domain, " : "")key) DO UPDATE SET value = excluded.value,
                version = max(CASE WHEN version >= 9223372036854775807 THEN version ELSE version + 1 END, excluded.version),
                updated_at = excluded.updated_at, expires_at = excluded.expires_at
            """
    }

    /// The domain's greatest key (in the primary key's order), expired or not.
    var lastKeySQL: String {
        "SELECT key FROM \(table) \(isShared ? "WHERE domain = '\(domain.name)' " : "")ORDER BY key DESC LIMIT 1"
    }

    /// Whether a key has expired by `now` (milliseconds) and is still stored. Reads the
    /// expiry index only, so a write that has nothing to purge leaves `log_context` alone.
    func hasExpired(_ db: Database, now: Int64) throws -> Bool {
        let statement = try db.cachedStatement(sql: hasExpiredSQL)
        return try Bool.fetchOne(statement, arguments: [now]) ?? false
    }

    /// Deletes the keys that have expired by `now`; returns how many there were.
    func purgeExpired(_ db: Database, now: Int64) throws -> Int {
        try ChangeLog.installTriggers(db, on: self)
        try db.execute(sql: "DELETE FROM \(table) WHERE \(scope)expires_at IS NOT NULL AND expires_at <= ?", arguments: [now])
        return db.changesCount
    }

    /// `FROM` the table `WHERE` the domain's rows: every row of a table of its own.
    var allRows: String {
        isShared ? "\(table) WHERE domain = '\(domain.name)'" : table
    }

    /// Whether the table that holds the domain's rows exists (a store of schema version 3
    /// and older has no shared table).
    func tableExists(_ db: Database) throws -> Bool {
        try db.tableExists(isShared ? Self.sharedTableName : "kv_" + domain.name)
    }

    /// The keys of every row, expired ones included, in key order.
    func allKeys(_ db: Database) throws -> [String] {
        try String.fetchAll(db, sql: "SELECT key FROM \(allRows) ORDER BY key")
    }

    /// Whether the domain holds any row (expired ones included).
    func hasRows(_ db: Database) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT 1 FROM \(allRows) LIMIT 1") ?? false
    }

    /// Deletes a key; returns whether it existed.
    func delete(_ db: Database, key: String) throws -> Bool {
        try ChangeLog.installTriggers(db, on: self)
        try db.cachedStatement(sql: "DELETE FROM \(table) WHERE \(scope)key = ?").execute(arguments: [key])
        return db.changesCount > 0
    }

    /// Visits the keys of live entries in key order (bytewise UTF-8, the primary key's own
    /// order), reading no value: names only, for a "did you mean" among them.
    func forEachKey(_ db: Database, now: Int64, _ body: (String) throws -> Void) throws {
        let statement = try db.makeStatement(
            sql: "SELECT key FROM \(table) WHERE \(scope)(expires_at IS NULL OR expires_at > ?) ORDER BY key")
        try statement.bind([now])
        defer { statement.reset() }
        // Straight from the column: a `Row` per key would cost more than SQLite's step.
        while try statement.step() {
            let count = Int(sqlite3_column_bytes(statement.handle, 0))
            guard let text = sqlite3_column_text(statement.handle, 0) else { continue }
            try body(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
        }
    }

    /// Visits the keys of at most `limit` live entries before `name` and `limit` from `name`
    /// on, in key order (two seeks on the primary key): the neighbours of a name, whatever
    /// the size of the domain.
    func forEachKey(_ db: Database, now: Int64, around name: String, limit: Int, _ body: (String) throws -> Void) throws {
        let live = "\(scope)(expires_at IS NULL OR expires_at > ?)"
        for sql in [
            "SELECT key FROM \(table) WHERE key < ? AND \(live) ORDER BY key DESC LIMIT ?",
            "SELECT key FROM \(table) WHERE key >= ? AND \(live) ORDER BY key LIMIT ?",
        ] {
            let statement = try db.cachedStatement(sql: sql)
            try statement.bind([name, now, limit])
            defer { statement.reset() }
            while try statement.step() {
                let count = Int(sqlite3_column_bytes(statement.handle, 0))
                guard let text = sqlite3_column_text(statement.handle, 0) else { continue }
                try body(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
            }
        }
    }

    /// Visits live entries in key order (bytewise UTF-8), optionally only those with a prefix.
    func forEach(_ db: Database, prefix: String?, now: Int64, _ body: (Entry) throws -> Void) throws {
        let statement = try liveRows(db, prefix: prefix, now: now)
        defer { statement.reset() }
        var names: [String]?
        while try statement.step() {
            // Straight from the columns (a `Row` per entry cost more than SQLite's step); a row
            // of other types (a store edited by hand) takes the `Row` conversions and errors.
            if let entry = plainEntry(statement.handle) {
                try body(entry)
                continue
            }
            try body(rowEntry(statement, names: &names))
        }
    }

    /// Visits the key and value of live entries as ``forEach(_:prefix:now:_:)`` does, as the
    /// UTF-8 bytes SQLite holds (valid only during the call): no `String` per row. A row that
    /// is not plain text or not valid UTF-8 (a store edited by hand) gives the bytes of the
    /// entry ``forEach(_:prefix:now:_:)`` would give.
    func forEachRow(
        _ db: Database, prefix: String?, now: Int64, _ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>) throws -> Void
    ) throws {
        let statement = try liveRows(db, prefix: prefix, now: now)
        defer { statement.reset() }
        var names: [String]?
        while try statement.step() {
            let handle = statement.handle
            let expiry = sqlite3_column_type(handle, 4)
            if let key = Self.plainBytes(handle, 0), let json = Self.plainBytes(handle, 1),
                sqlite3_column_type(handle, 2) == SQLITE_INTEGER, sqlite3_column_type(handle, 3) == SQLITE_INTEGER,
                expiry == SQLITE_NULL || expiry == SQLITE_INTEGER
            {
                try body(key, json)
                continue
            }
            var entry = try plainEntry(handle) ?? rowEntry(statement, names: &names)
            try entry.key.withUTF8 { key in try entry.json.withUTF8 { json in try body(key, json) } }
        }
    }

    /// The statement of live rows in key order (bound, to be reset by the caller).
    private func liveRows(_ db: Database, prefix: String?, now: Int64) throws -> Statement {
        let columns = "SELECT key, value, version, updated_at, expires_at FROM \(table)"
        let live = "\(scope)(expires_at IS NULL OR expires_at > ?)"
        let statement: Statement
        if let prefix, !prefix.isEmpty {
            let (lower, upper) = KeyRange.prefix(prefix)
            if let upper {
                statement = try db.makeStatement(sql: "\(columns) WHERE key >= ? AND key < ? AND \(live) ORDER BY key")
                try statement.bind([lower, upper, now])
            } else {
                statement = try db.makeStatement(sql: "\(columns) WHERE key >= ? AND \(live) ORDER BY key")
                try statement.bind([lower, now])
            }
        } else {
            statement = try db.makeStatement(sql: "\(columns) WHERE \(live) ORDER BY key")
            try statement.bind([now])
        }
        return statement
    }

    /// The current row by the `Row` conversions (which report a row of other types).
    private func rowEntry(_ statement: Statement, names: inout [String]?) throws -> Entry {
        if names == nil { names = statement.columnNames }
        let row = Row(statement, columnNames: names ?? [])
        return try Entry(domain: domain, key: row[0], json: row[1], version: row[2], updatedAt: row[3], expiresAt: row[4])
    }

    /// The current row of `forEach`'s statement as an entry when its columns have the types
    /// prefs writes (text without NUL, integers, an integer or NULL expiry): the entry the
    /// `Row` conversions would give. Nil otherwise.
    private func plainEntry(_ handle: OpaquePointer) -> Entry? {
        guard let key = Self.plainText(handle, 0), let json = Self.plainText(handle, 1),
            sqlite3_column_type(handle, 2) == SQLITE_INTEGER, sqlite3_column_type(handle, 3) == SQLITE_INTEGER
        else { return nil }
        let expiresAt: Int64?
        switch sqlite3_column_type(handle, 4) {
        case SQLITE_NULL: expiresAt = nil
        case SQLITE_INTEGER: expiresAt = sqlite3_column_int64(handle, 4)
        default: return nil
        }
        return Entry(
            domain: domain, key: key, json: json, version: sqlite3_column_int64(handle, 2), updatedAt: sqlite3_column_int64(handle, 3),
            expiresAt: expiresAt)
    }

    /// A text column without NUL bytes as a `String` (decoded as `String(cString:)` would);
    /// nil for another type.
    private static func plainText(_ handle: OpaquePointer, _ column: Int32) -> String? {
        guard sqlite3_column_type(handle, column) == SQLITE_TEXT, let text = sqlite3_column_text(handle, column) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, column))
        guard memchr(text, 0, count) == nil else { return nil }
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    /// A text column without NUL bytes that is valid UTF-8, as its bytes (what ``plainText(_:_:)``
    /// would decode unchanged); nil otherwise.
    private static func plainBytes(_ handle: OpaquePointer, _ column: Int32) -> UnsafeBufferPointer<UInt8>? {
        guard sqlite3_column_type(handle, column) == SQLITE_TEXT, let text = sqlite3_column_text(handle, column) else { return nil }
        let bytes = UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(handle, column)))
        if UTF8Bytes.isPrintableASCII(bytes) { return bytes }
        guard memchr(text, 0, bytes.count) == nil, UTF8Bytes.isValid(bytes) else { return nil }
        return bytes
    }
}
