import CSQLite

/// The flush's hot loop: upserts prepared once per domain and bound through the SQLite C
/// API, which costs a fraction of building statement arguments for every row. Rows are written
/// `rowsPerStatement` at a time (one statement's start and end serve them all); call
/// ``finish()`` before anything else reads or writes the table in the transaction.
final class BulkUpsert {
    static let rowsPerStatement = 16

    private let db: Database
    private let single: Statement
    private var multiple: Statement?
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

    private let table: DomainTable

    /// The connection's cached statements (``Database/cachedStatement(sql:)``): prepared once
    /// per connection, and possibly before the transaction (``DomainTable/prepareStatements(_:)``).
    /// A statement prepared while the change-log triggers were on is prepared again by SQLite
    /// after they are switched off (switching expires every prepared statement).
    init(_ db: Database, table: DomainTable) throws {
        self.db = db
        self.table = table
        try ChangeLog.installTriggers(db, on: table)
        single = try db.cachedStatement(sql: table.upsertSQL(rows: 1))
        buffer.rows.reserveCapacity(Self.rowsPerStatement)
    }

    private func failure(_ code: Int32) -> DatabaseError {
        DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)))
    }

    /// Queues one row; writes a statement's worth when there are enough.
    func run(key: String, json: String, now: Int64, expiresAt: Int64?) throws {
        if buffer.add(key: key, json: json, now: now, expiresAt: expiresAt) == Self.rowsPerStatement {
            // Prepared when a statement's worth is queued: a one-shot `set` would otherwise
            // parse it for nothing (a fifth of its instructions).
            if multiple == nil { multiple = try db.cachedStatement(sql: table.upsertSQL(rows: Self.rowsPerStatement)) }
            try write(0..<Self.rowsPerStatement, with: multiple?.handle)
        }
    }

    /// Writes the rows still queued.
    func finish() throws {
        for index in buffer.rows.indices { try write(index..<index + 1, with: single.handle) }
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
