import CSQLite
import Glibc

/// The flush's hot loop: upserts prepared once per domain and bound through the SQLite C
/// API, which costs a fraction of building statement arguments for every row. Rows are written
/// `rowsPerStatement` at a time (one statement's start and end serve them all); call
/// ``finish()`` before anything else reads or writes the table in the transaction.
///
/// A bulk logs its rows itself: at its first full statement it drops the change log's TEMP
/// triggers of the table (``ChangeLog/removeTriggers(_:on:)``; the next write of the table by
/// another path makes them again) and writes each statement's records with one
/// `INSERT INTO changelog ... SELECT` before the upsert (``ChangeLog/recordsSQL(_:rows:readingOld:)``):
/// the records the triggers would have written, in the same order, without a trigger program
/// and a `log_context` read per row. A key known not to be in the table (greater than every
/// key there and every key written so far, as a new domain or an exported document gives them)
/// is logged without reading its previous value. Fewer rows (a one-shot `set`) are logged by
/// the triggers, made (``ChangeLog/installTriggers(_:on:)``) only then: a bulk that follows a
/// bulk on the same connection neither makes nor drops them.
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

    /// The bulk's own logging, once it writes a full statement (nil before: the triggers log).
    private struct Logging {
        /// The records of new keys, one row and `rowsPerStatement` rows.
        var newSingle: Statement
        var newMultiple: Statement?
        /// The records of keys that may be in the table (their previous value read).
        var oldSingle: Statement
        var oldMultiple: Statement?
        /// The greatest key in the table or written since (bytewise, as the primary key orders
        /// text); nil while the domain has no row. A greater key is new.
        var greatest: [UInt8]?
        /// The table's last key is not text (a store edited by hand): every key may be there.
        var unordered: Bool
    }

    private var logging: Logging?

    /// The connection's cached statements (``Database/cachedStatement(sql:)``): prepared once
    /// per connection, and possibly before the transaction (``DomainTable/prepareStatements(_:)``).
    /// A statement prepared while the change-log triggers were on is prepared again by SQLite
    /// after they are switched off (switching expires every prepared statement), and after
    /// they are dropped or made again.
    init(_ db: Database, table: DomainTable) throws {
        self.db = db
        self.table = table
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
            if logging == nil { try startLogging() }
            try writeQueued()
        }
    }

    /// Writes the rows still queued.
    func finish() throws {
        if logging != nil {
            try writeQueued()
            return
        }
        guard !buffer.rows.isEmpty else { return }
        // Fewer rows than a statement's worth: the triggers log them.
        try ChangeLog.installTriggers(db, on: table)
        for index in buffer.rows.indices { try write(index..<index + 1, with: single.handle) }
    }

    /// Takes the logging over from the triggers: drops them and finds the table's last key.
    private func startLogging() throws {
        if ChangeLog.hasTriggers(db, on: table) { try ChangeLog.removeTriggers(db, on: table) }
        let (greatest, unordered) = try lastKey()
        logging = Logging(
            newSingle: try db.cachedStatement(sql: ChangeLog.recordsSQL(table, rows: 1, readingOld: false)),
            oldSingle: try db.cachedStatement(sql: ChangeLog.recordsSQL(table, rows: 1, readingOld: true)),
            greatest: greatest, unordered: unordered)
    }

    /// The table's last key (bytewise, as its primary key orders text), nil when the domain has
    /// no row; `unordered` when that key is not text (a store edited by hand).
    private func lastKey() throws -> (greatest: [UInt8]?, unordered: Bool) {
        let statement = try db.cachedStatement(sql: table.lastKeySQL)
        defer { statement.reset() }
        guard try statement.step() else { return (nil, false) }
        let handle = statement.handle
        guard sqlite3_column_type(handle, 0) == SQLITE_TEXT, let text = sqlite3_column_text(handle, 0) else { return (nil, true) }
        return (Array(UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(handle, 0)))), false)
    }

    /// Writes the queued rows with their records: in one statement each when they hold no key
    /// twice, else row by row (a record reads the value the row before it wrote).
    private func writeQueued() throws {
        guard var logging else { return }
        defer { self.logging = logging }
        // The triggers are made again by any other write of the table (a removal or an
        // increment between two sets of a batch): dropped again before these rows are written,
        // and the last key read again (that write may have added a key past the one known).
        if ChangeLog.hasTriggers(db, on: table) {
            try ChangeLog.removeTriggers(db, on: table)
            (logging.greatest, logging.unordered) = try lastKey()
        }
        let count = buffer.rows.count
        if count == Self.rowsPerStatement, let (allNew, repeated) = classify(0..<count, &logging), !repeated {
            try writeLogged(0..<count, allNew: allNew, &logging)
            return
        }
        for index in 0..<count {
            let allNew = classify(index..<index + 1, &logging)?.allNew ?? false
            try writeLogged(index..<index + 1, allNew: allNew, &logging)
        }
    }

    /// Whether every row of `batch` is a new key (moving ``Logging/greatest`` past them), and
    /// whether a key comes twice. Nil when `batch` is empty.
    private func classify(_ batch: Range<Int>, _ logging: inout Logging) -> (allNew: Bool, repeated: Bool)? {
        guard !batch.isEmpty else { return nil }
        var allNew = true
        var repeated = false
        /// The greatest new key of the batch so far.
        var greatest: Range<Int>?
        buffer.text.withUnsafeBufferPointer { text in
            guard let base = text.baseAddress else {
                allNew = false  // no bytes to compare: read every previous value
                return
            }
            func bytes(_ range: Range<Int>) -> UnsafeBufferPointer<UInt8> {
                UnsafeBufferPointer(start: base + range.lowerBound, count: range.count)
            }
            for index in batch {
                let key = buffer.rows[index].key
                if !logging.unordered {
                    let isNew =
                        if let greatest { Self.precedes(bytes(greatest), bytes(key)) } else {
                            logging.greatest.map { last in last.withUnsafeBufferPointer { Self.precedes($0, bytes(key)) } } ?? true
                        }
                    if isNew {
                        greatest = key
                        continue
                    }
                }
                allNew = false
                // Only a key that is not new can be one written before in the batch.
                for other in batch.lowerBound..<index where buffer.rows[other].key.count == key.count {
                    if memcmp(base + buffer.rows[other].key.lowerBound, base + key.lowerBound, key.count) == 0 { repeated = true }
                }
            }
            if let greatest { logging.greatest = Array(bytes(greatest)) }
        }
        return (allNew, repeated)
    }

    /// Whether `lhs` sorts before `rhs` as SQLite's BINARY collation orders text.
    private static func precedes(_ lhs: UnsafeBufferPointer<UInt8>, _ rhs: UnsafeBufferPointer<UInt8>) -> Bool {
        let common = min(lhs.count, rhs.count)
        if common > 0, let pa = lhs.baseAddress, let pb = rhs.baseAddress {
            let order = memcmp(pa, pb, common)
            if order != 0 { return order < 0 }
        }
        return lhs.count < rhs.count
    }

    /// Writes the records of `batch` (while the log is on) and then its rows.
    private func writeLogged(_ batch: Range<Int>, allNew: Bool, _ logging: inout Logging) throws {
        let rows = batch.count
        if ChangeLog.isLogging(db) {
            let records: Statement
            switch (allNew, rows == 1) {
            case (true, true): records = logging.newSingle
            case (false, true): records = logging.oldSingle
            case (true, false): records = try statement(&logging.newMultiple, rows: rows, readingOld: false)
            case (false, false): records = try statement(&logging.oldMultiple, rows: rows, readingOld: true)
            }
            try step(records.handle, batch, clearing: false) { handle, parameter, row, base in
                sqlite3_bind_int64(handle, parameter, row.now)
                _ = sqlite3_bind_text(handle, parameter + 1, base.map { $0 + row.key.lowerBound }, Int32(row.key.count), nil)
                _ = sqlite3_bind_text(handle, parameter + 2, base.map { $0 + row.json.lowerBound }, Int32(row.json.count), nil)
                return 3
            }
        }
        try write(batch, with: rows == 1 ? single.handle : multiple?.handle)
    }

    /// The records statement for `rows` rows, prepared at its first use.
    private func statement(_ cached: inout Statement?, rows: Int, readingOld: Bool) throws -> Statement {
        if let cached { return cached }
        let made = try db.cachedStatement(sql: ChangeLog.recordsSQL(table, rows: rows, readingOld: readingOld))
        cached = made
        return made
    }

    private func write(_ batch: Range<Int>, with handle: OpaquePointer?) throws {
        try step(handle, batch, clearing: true) { handle, parameter, row, base in
            _ = sqlite3_bind_text(handle, parameter, base.map { $0 + row.key.lowerBound }, Int32(row.key.count), nil)
            _ = sqlite3_bind_text(handle, parameter + 1, base.map { $0 + row.json.lowerBound }, Int32(row.json.count), nil)
            sqlite3_bind_int64(handle, parameter + 2, row.now)
            sqlite3_bind_int64(handle, parameter + 3, row.now)
            if let expiresAt = row.expiresAt {
                sqlite3_bind_int64(handle, parameter + 4, expiresAt)
            } else {
                sqlite3_bind_null(handle, parameter + 4)
            }
            return 5
        }
    }

    /// Binds `batch`'s rows (`bind` binds one row from a parameter number and returns how many
    /// it bound) and runs the statement once. With `clearing`, the rows are forgotten once the
    /// last of them is written (or on an error).
    private func step(
        _ handle: OpaquePointer?, _ batch: Range<Int>, clearing: Bool,
        bind: (OpaquePointer?, Int32, (key: Range<Int>, json: Range<Int>, now: Int64, expiresAt: Int64?), UnsafePointer<CChar>?) -> Int32
    ) throws {
        let code = buffer.text.withUnsafeBufferPointer { text -> Int32 in
            let base = UnsafeRawPointer(text.baseAddress)?.assumingMemoryBound(to: CChar.self)
            var parameter: Int32 = 1
            for row in buffer.rows[batch] { parameter += bind(handle, parameter, row, base) }
            let code = sqlite3_step(handle)
            sqlite3_reset(handle)
            sqlite3_clear_bindings(handle)  // no pointer into the buffer outlives this call
            return code
        }
        if code != SQLITE_DONE || (clearing && batch.upperBound == buffer.rows.endIndex) { buffer.removeAll() }
        guard code == SQLITE_DONE else { throw failure(code) }
    }
}
