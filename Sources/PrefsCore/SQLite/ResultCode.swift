import CSQLite

/// A SQLite result code, primary (`SQLITE_BUSY`) or extended (`SQLITE_BUSY_SNAPSHOT`).
package struct ResultCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    package let rawValue: Int32

    package init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// The primary code of an extended one (its low byte).
    package var primaryResultCode: ResultCode {
        ResultCode(rawValue: rawValue & 0xFF)
    }

    package var description: String {
        "\(rawValue) (\(String(cString: sqlite3_errstr(rawValue))))"
    }

    /// A pattern matches an extended code of its primary code, as GRDB's did:
    /// `case .SQLITE_BUSY` matches `SQLITE_BUSY_SNAPSHOT`.
    package static func ~= (pattern: ResultCode, code: ResultCode) -> Bool {
        pattern == code || pattern == code.primaryResultCode
    }

    package static let SQLITE_OK = ResultCode(rawValue: CSQLite.SQLITE_OK)
    package static let SQLITE_ERROR = ResultCode(rawValue: CSQLite.SQLITE_ERROR)
    package static let SQLITE_INTERNAL = ResultCode(rawValue: CSQLite.SQLITE_INTERNAL)
    package static let SQLITE_PERM = ResultCode(rawValue: CSQLite.SQLITE_PERM)
    package static let SQLITE_BUSY = ResultCode(rawValue: CSQLite.SQLITE_BUSY)
    package static let SQLITE_LOCKED = ResultCode(rawValue: CSQLite.SQLITE_LOCKED)
    package static let SQLITE_READONLY = ResultCode(rawValue: CSQLite.SQLITE_READONLY)
    package static let SQLITE_IOERR = ResultCode(rawValue: CSQLite.SQLITE_IOERR)
    package static let SQLITE_CORRUPT = ResultCode(rawValue: CSQLite.SQLITE_CORRUPT)
    package static let SQLITE_FULL = ResultCode(rawValue: CSQLite.SQLITE_FULL)
    package static let SQLITE_CANTOPEN = ResultCode(rawValue: CSQLite.SQLITE_CANTOPEN)
    package static let SQLITE_MISUSE = ResultCode(rawValue: CSQLite.SQLITE_MISUSE)
    package static let SQLITE_NOTADB = ResultCode(rawValue: CSQLite.SQLITE_NOTADB)
}
