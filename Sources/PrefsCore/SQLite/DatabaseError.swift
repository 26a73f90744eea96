/// An error SQLite reported: its result code (primary and extended), SQLite's message and
/// the statement that failed.
package struct DatabaseError: Error, CustomStringConvertible {
    /// The code as SQLite reported it (extended codes are on for every connection).
    package let extendedResultCode: ResultCode
    /// SQLite's message (`sqlite3_errmsg`), or nil when there is none (a failed open).
    package let message: String?
    /// The SQL being prepared or run, if any.
    package let sql: String?

    package init(resultCode: ResultCode = .error, message: String? = nil, sql: String? = nil) {
        self.extendedResultCode = resultCode
        self.message = message
        self.sql = sql
    }

    /// The primary result code (`SQLITE_BUSY` for `SQLITE_BUSY_SNAPSHOT`).
    package var resultCode: ResultCode {
        extendedResultCode.primaryResultCode
    }

    package var description: String {
        var text = "SQLite error \(resultCode.rawValue)"
        if let message { text += ": \(message)" }
        if let sql { text += " - while executing `\(sql)`" }
        return text
    }
}
