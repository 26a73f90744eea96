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
    /// `case .busy` matches `SQLITE_BUSY_SNAPSHOT`.
    package static func ~= (pattern: ResultCode, code: ResultCode) -> Bool {
        pattern == code || pattern == code.primaryResultCode
    }

    package static let ok = ResultCode(rawValue: CSQLite.SQLITE_OK)
    package static let error = ResultCode(rawValue: CSQLite.SQLITE_ERROR)
    package static let internalError = ResultCode(rawValue: CSQLite.SQLITE_INTERNAL)
    package static let permission = ResultCode(rawValue: CSQLite.SQLITE_PERM)
    package static let busy = ResultCode(rawValue: CSQLite.SQLITE_BUSY)
    package static let locked = ResultCode(rawValue: CSQLite.SQLITE_LOCKED)
    package static let readonly = ResultCode(rawValue: CSQLite.SQLITE_READONLY)
    package static let ioError = ResultCode(rawValue: CSQLite.SQLITE_IOERR)
    package static let corrupt = ResultCode(rawValue: CSQLite.SQLITE_CORRUPT)
    package static let full = ResultCode(rawValue: CSQLite.SQLITE_FULL)
    package static let cantOpen = ResultCode(rawValue: CSQLite.SQLITE_CANTOPEN)
    package static let misuse = ResultCode(rawValue: CSQLite.SQLITE_MISUSE)
    package static let notADatabase = ResultCode(rawValue: CSQLite.SQLITE_NOTADB)
}
