import Foundation
import GRDB
import GRDBSQLite

/// SQL for one domain's table. Domain names reach SQL only after ``Domain`` validated them,
/// and always as quoted identifiers; keys and values are always bound parameters.
struct DomainTable {
    let domain: Domain
    let table: String

    init(_ domain: Domain) {
        self.domain = domain
        self.table = ("kv_" + domain.name).quotedDatabaseIdentifier
    }

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
            arguments: [domain.name, Clock.nowMilliseconds()])
        try createTriggers(db, domain)
    }

    /// Triggers that append every insert, update and delete of the domain's table to the
    /// change log, in the same transaction, with the op and actor of `write_context`.
    static func createTriggers(_ db: Database, _ domain: Domain) throws {
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
                CREATE INDEX IF NOT EXISTS \((name + "_expiry").quotedDatabaseIdentifier) ON \(table) (expires_at) WHERE expires_at IS NOT NULL;
                """)
    }

    static func exists(_ db: Database, _ domain: Domain) throws -> Bool {
        try Bool.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM domains WHERE name = ?"), arguments: [domain.name]) ?? false
    }

    static func all(_ db: Database) throws -> [Domain] {
        try String.fetchAll(db, sql: "SELECT name FROM domains ORDER BY name").compactMap { try? Domain($0) }
    }

    func row(_ db: Database, key: String, now: Int64) throws -> Entry? {
        let statement = try db.cachedStatement(
            sql: "SELECT value, version, updated_at, expires_at FROM \(table) WHERE key = ? AND (expires_at IS NULL OR expires_at > ?)")
        guard let row = try Row.fetchOne(statement, arguments: [key, now]) else { return nil }
        return Entry(domain: domain, key: key, json: row[0], version: row[1], updatedAt: row[2], expiresAt: row[3])
    }

    /// Inserts or replaces a value (and its expiry). The version becomes the larger of the
    /// previous version + 1 and the write time in milliseconds, so it grows with every write
    /// and a key removed and written again never gets a version it had before (no ABA for
    /// compare-and-set).
    func upsert(_ db: Database, key: String, json: String, now: Int64, expiresAt: Int64?) throws {
        let statement = try db.cachedStatement(
            sql: """
                INSERT INTO \(table) (key, value, version, updated_at, expires_at) VALUES (?1, ?2, ?3, ?3, ?4)
                ON CONFLICT (key) DO UPDATE SET value = excluded.value, version = max(version + 1, excluded.version),
                    updated_at = excluded.updated_at, expires_at = excluded.expires_at
                """)
        statement.setUncheckedArguments([key, json, now, expiresAt])
        try statement.execute()
    }

    /// Deletes a key; returns whether it existed.
    func delete(_ db: Database, key: String) throws -> Bool {
        try db.cachedStatement(sql: "DELETE FROM \(table) WHERE key = ?").execute(arguments: [key])
        return db.changesCount > 0
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

/// Index ranges for prefix scans.
enum KeyRange {
    /// `[prefix, upper)` covers exactly the keys that start with `prefix` in SQLite's BINARY
    /// collation (UTF-8 byte order, which is also Unicode scalar order). `upper` is the prefix
    /// with its last scalar incremented; nil when no upper bound exists.
    static func prefix(_ prefix: String) -> (String, String?) {
        var scalars = Array(prefix.unicodeScalars)
        while let last = scalars.popLast() {
            var next = last.value + 1
            if next == 0xD800 { next = 0xE000 }
            if let scalar = Unicode.Scalar(next) {
                scalars.append(scalar)
                var upper = ""
                upper.unicodeScalars.append(contentsOf: scalars)
                return (prefix, upper)
            }
        }
        return (prefix, nil)
    }
}

enum Clock {
    static func nowMilliseconds() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
    }
}

/// The flush's hot loop: upserts prepared once per domain and bound through the SQLite C
/// API, which costs a fraction of building GRDB arguments for every row. Rows are written
/// `rowsPerStatement` at a time (one statement's start and end serve them all); call
/// ``finish()`` before anything else reads or writes the table in the transaction.
final class BulkUpsert {
    static let rowsPerStatement = 16

    private let connection: OpaquePointer
    private var single: OpaquePointer?
    private var multiple: OpaquePointer?
    /// Rows waiting for a statement: keys and values in one buffer, bound in place
    /// (SQLITE_STATIC) when they are written.
    private struct Buffer {
        var text: [UInt8] = []
        var rows: [(key: Range<Int>, json: Range<Int>, now: Int64, expiresAt: Int64?)] = []

        /// Adds a row; returns how many rows are buffered.
        mutating func add(key: String, json: String, now: Int64, expiresAt: Int64?) -> Int {
            var key = key
            var json = json
            let keyStart = text.count
            key.withUTF8 { text.append(contentsOf: $0) }
            let jsonStart = text.count
            json.withUTF8 { text.append(contentsOf: $0) }
            rows.append((keyStart..<jsonStart, jsonStart..<text.count, now, expiresAt))
            return rows.count
        }

        mutating func removeAll() {
            rows.removeAll(keepingCapacity: true)
            text.removeAll(keepingCapacity: true)
        }
    }

    private var buffer = Buffer()

    init(_ db: Database, table: DomainTable) throws {
        guard let connection = db.sqliteConnection else { throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "closed") }
        self.connection = connection
        func prepare(rows count: Int) throws -> OpaquePointer? {
            let values = repeatElement("(?, ?, ?, ?, ?)", count: count).joined(separator: ", ")
            let sql = """
                INSERT INTO \(table.table) (key, value, version, updated_at, expires_at) VALUES \(values)
                ON CONFLICT (key) DO UPDATE SET value = excluded.value, version = max(version + 1, excluded.version),
                    updated_at = excluded.updated_at, expires_at = excluded.expires_at
                """
            var handle: OpaquePointer?
            let code = sqlite3_prepare_v2(connection, sql, -1, &handle, nil)
            guard code == SQLITE_OK else {
                sqlite3_finalize(handle)
                throw failure(code)
            }
            return handle
        }
        single = try prepare(rows: 1)
        multiple = try prepare(rows: Self.rowsPerStatement)
        buffer.rows.reserveCapacity(Self.rowsPerStatement)
    }

    deinit {
        sqlite3_finalize(single)
        sqlite3_finalize(multiple)
    }

    private func failure(_ code: Int32) -> DatabaseError {
        DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(connection)))
    }

    /// Queues one row; writes a statement's worth when there are enough.
    func run(key: String, json: String, now: Int64, expiresAt: Int64?) throws {
        if buffer.add(key: key, json: json, now: now, expiresAt: expiresAt) == Self.rowsPerStatement {
            try write(0..<Self.rowsPerStatement, with: multiple)
        }
    }

    /// Writes the rows still queued.
    func finish() throws {
        for index in buffer.rows.indices { try write(index..<index + 1, with: single) }
    }

    private func write(_ batch: Range<Int>, with handle: OpaquePointer?) throws {
        let code = buffer.text.withUnsafeBufferPointer { text -> Int32 in
            let base = UnsafeRawPointer(text.baseAddress)?.assumingMemoryBound(to: CChar.self)
            var parameter: Int32 = 1
            for row in buffer.rows[batch] {
                _ = sqlite3_bind_text(handle, parameter, base.map { $0 + row.key.lowerBound }, Int32(row.key.count), nil)
                _ = sqlite3_bind_text(handle, parameter + 1, base.map { $0 + row.json.lowerBound }, Int32(row.json.count), nil)
                sqlite3_bind_int64(handle, parameter + 2, row.now)
                sqlite3_bind_int64(handle, parameter + 3, row.now)
                if let expiresAt = row.expiresAt {
                    sqlite3_bind_int64(handle, parameter + 4, expiresAt)
                } else {
                    sqlite3_bind_null(handle, parameter + 4)
                }
                parameter += 5
            }
            let code = sqlite3_step(handle)
            sqlite3_reset(handle)
            sqlite3_clear_bindings(handle)  // no pointer into the buffer outlives this call
            return code
        }
        if batch.upperBound == buffer.rows.endIndex || code != SQLITE_DONE { buffer.removeAll() }
        guard code == SQLITE_DONE else { throw failure(code) }
    }
}
