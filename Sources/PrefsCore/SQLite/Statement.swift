import CSQLite

/// One prepared statement (`sqlite3_stmt`), finalized when the last reference goes.
///
/// Running it binds the arguments, steps it and resets it afterwards, so no statement keeps
/// a read open between calls. Use it on the thread that holds its ``Database``.
package final class Statement {
    /// The prepared statement.
    package let handle: OpaquePointer
    /// The connection it belongs to (kept open by SQLite until every statement is finalized:
    /// connections are closed with `sqlite3_close_v2`).
    let connection: OpaquePointer
    /// Its SQL text.
    package let sql: String

    /// Prepares the single statement `sql`.
    ///
    /// - Throws: ``DatabaseError`` when SQLite cannot prepare it, or `sql` holds no statement
    ///   or more than one.
    init(connection: OpaquePointer, sql: String) throws {
        var prepared: OpaquePointer?
        var trailing = false
        let code = sql.withCString { start -> Int32 in
            var tail: UnsafePointer<CChar>?
            let code = sqlite3_prepare_v2(connection, start, -1, &prepared, &tail)
            if code == SQLITE_OK, let tail { trailing = Self.hasStatement(tail) }
            return code
        }
        guard code == SQLITE_OK, let prepared else {
            sqlite3_finalize(prepared)
            throw DatabaseError(
                resultCode: ResultCode(rawValue: code == SQLITE_OK ? SQLITE_MISUSE : code),
                message: code == SQLITE_OK ? "no statement in SQL" : String(cString: sqlite3_errmsg(connection)), sql: sql)
        }
        if trailing {
            sqlite3_finalize(prepared)
            throw DatabaseError(resultCode: .misuse, message: "multiple statements found", sql: sql)
        }
        self.handle = prepared
        self.connection = connection
        self.sql = sql
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// Whether `text` holds anything but white space and comments.
    static func hasStatement(_ text: UnsafePointer<CChar>) -> Bool {
        var pointer = text
        while pointer.pointee != 0 {
            switch UInt8(bitPattern: pointer.pointee) {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: ";"):
                pointer += 1
            case UInt8(ascii: "-") where pointer[1] == CChar(UInt8(ascii: "-")):
                while pointer.pointee != 0 && pointer.pointee != CChar(UInt8(ascii: "\n")) { pointer += 1 }
            default:
                return true
            }
        }
        return false
    }

    /// The error SQLite reports for `code` on this statement.
    func failure(_ code: Int32) -> DatabaseError {
        DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(connection)), sql: sql)
    }

    /// Resets the statement and binds `arguments` to its parameters.
    ///
    /// - Throws: ``DatabaseError`` when their number differs from the statement's parameters.
    package func bind(_ arguments: StatementArguments) throws {
        let count = Int(sqlite3_bind_parameter_count(handle))
        guard arguments.values.count == count else {
            throw DatabaseError(
                resultCode: .misuse, message: "wrong number of statement arguments: \(arguments.values.count), expected \(count)",
                sql: sql)
        }
        setUncheckedArguments(arguments)
    }

    /// Resets the statement and binds `arguments` without checking their number.
    package func setUncheckedArguments(_ arguments: StatementArguments) {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        for (offset, value) in arguments.values.enumerated() {
            Self.bind(value, to: handle, at: Int32(offset + 1))
        }
    }

    /// Binds one value (text and blobs are copied).
    static func bind(_ value: DatabaseValue, to handle: OpaquePointer, at index: Int32) {
        switch value {
        case .null: sqlite3_bind_null(handle, index)
        case .integer(let number): sqlite3_bind_int64(handle, index, number)
        case .double(let number): sqlite3_bind_double(handle, index, number)
        case .text(let text): sqlite3_bind_text(handle, index, text, -1, sqliteTransient)
        case .blob(let bytes):
            _ = bytes.withUnsafeBytes {
                sqlite3_bind_blob(handle, index, $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32($0.count), sqliteTransient)
            }
        }
    }

    /// SQLITE_TRANSIENT: SQLite copies the bound bytes.
    static let sqliteTransient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    /// Steps once: true for a row, false when done.
    ///
    /// - Throws: ``DatabaseError`` (the statement is reset).
    package func step() throws -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let code:
            let error = failure(code)
            sqlite3_reset(handle)
            throw error
        }
    }

    /// Resets the statement (its bindings stay).
    package func reset() {
        sqlite3_reset(handle)
    }

    /// Runs the statement to its end with the arguments bound last.
    package func execute() throws {
        defer { sqlite3_reset(handle) }
        while try step() {}
    }

    /// Runs the statement to its end with `arguments`.
    package func execute(arguments: StatementArguments) throws {
        try bind(arguments)
        try execute()
    }

    /// The number of result columns.
    package var columnCount: Int {
        Int(sqlite3_column_count(handle))
    }

    /// The result columns' names.
    package var columnNames: [String] {
        (0..<sqlite3_column_count(handle)).map { String(cString: sqlite3_column_name(handle, $0)) }
    }

    /// The value of column `index` of the current row.
    package func value(at index: Int32) -> DatabaseValue {
        switch sqlite3_column_type(handle, index) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, index))
        case SQLITE_FLOAT: return .double(sqlite3_column_double(handle, index))
        case SQLITE_TEXT:
            guard let text = sqlite3_column_text(handle, index) else { return .null }
            return .text(String(cString: text))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(handle, index))
            guard let bytes = sqlite3_column_blob(handle, index), count > 0 else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: bytes, count: count)))
        default: return .null
        }
    }
}
