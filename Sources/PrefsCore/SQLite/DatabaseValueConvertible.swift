import CSQLite

/// A Swift value that binds as a statement argument and decodes from a column.
///
/// Decoding converts between storage classes the way SQLite's `sqlite3_column_*` functions
/// do (an integer column read as a `String` is its decimal text), and returns nil for NULL.
package protocol DatabaseValueConvertible {
    /// The value as SQLite stores it.
    var databaseValue: DatabaseValue { get }
    /// The value of a column, or nil for NULL (or a value of no sensible conversion).
    static func fromDatabaseValue(_ value: DatabaseValue) -> Self?
}

extension DatabaseValueConvertible {
    /// The first column of the first row, or nil when there is no row or it is NULL.
    package static func fetchOne(_ db: Database, sql: String, arguments: StatementArguments = []) throws -> Self? {
        try fetchOne(db.makeStatement(sql: sql), arguments: arguments)
    }

    /// The first column of the first row, or nil when there is no row or it is NULL.
    package static func fetchOne(_ statement: Statement, arguments: StatementArguments = []) throws -> Self? {
        try statement.bind(arguments)
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        return fromDatabaseValue(statement.value(at: 0))
    }

    /// The first column of every row.
    ///
    /// - Throws: ``DatabaseError``, also when a value is NULL.
    package static func fetchAll(_ db: Database, sql: String, arguments: StatementArguments = []) throws -> [Self] {
        try fetchAll(db.makeStatement(sql: sql), arguments: arguments)
    }

    /// The first column of every row.
    ///
    /// - Throws: ``DatabaseError``, also when a value is NULL.
    package static func fetchAll(_ statement: Statement, arguments: StatementArguments = []) throws -> [Self] {
        try statement.bind(arguments)
        defer { statement.reset() }
        var values: [Self] = []
        while try statement.step() {
            let column = statement.value(at: 0)
            guard let value = fromDatabaseValue(column) else {
                throw DatabaseError(
                    resultCode: .error, message: "could not decode \(column) as \(Self.self)", sql: statement.sql)
            }
            values.append(value)
        }
        return values
    }
}

extension Int64: DatabaseValueConvertible {
    package var databaseValue: DatabaseValue { .integer(self) }

    package static func fromDatabaseValue(_ value: DatabaseValue) -> Int64? {
        switch value {
        case .null: nil
        case .integer(let number): number
        case .double(let number): number.isFinite ? Int64(exactly: number.rounded(.towardZero)) ?? (number < 0 ? .min : .max) : 0
        case .text(let text): Int64(text) ?? Double(text).flatMap { fromDatabaseValue(.double($0)) } ?? 0
        case .blob(let bytes): fromDatabaseValue(.text(String(decoding: bytes, as: UTF8.self)))
        }
    }
}

extension Int: DatabaseValueConvertible {
    package var databaseValue: DatabaseValue { .integer(Int64(self)) }

    package static func fromDatabaseValue(_ value: DatabaseValue) -> Int? {
        Int64.fromDatabaseValue(value).map { Int(truncatingIfNeeded: $0) }
    }
}

extension Int32: DatabaseValueConvertible {
    package var databaseValue: DatabaseValue { .integer(Int64(self)) }

    package static func fromDatabaseValue(_ value: DatabaseValue) -> Int32? {
        Int64.fromDatabaseValue(value).map { Int32(truncatingIfNeeded: $0) }
    }
}

extension Bool: DatabaseValueConvertible {
    package var databaseValue: DatabaseValue { .integer(self ? 1 : 0) }

    package static func fromDatabaseValue(_ value: DatabaseValue) -> Bool? {
        switch value {
        case .null: nil
        case .double(let number): number != 0
        default: Int64.fromDatabaseValue(value).map { $0 != 0 }
        }
    }
}

extension Double: DatabaseValueConvertible {
    package var databaseValue: DatabaseValue { .double(self) }

    package static func fromDatabaseValue(_ value: DatabaseValue) -> Double? {
        switch value {
        case .null: nil
        case .integer(let number): Double(number)
        case .double(let number): number
        case .text(let text): Double(text) ?? 0
        case .blob(let bytes): Double(String(decoding: bytes, as: UTF8.self)) ?? 0
        }
    }
}

extension String: DatabaseValueConvertible {
    package var databaseValue: DatabaseValue { .text(self) }

    package static func fromDatabaseValue(_ value: DatabaseValue) -> String? {
        switch value {
        case .null: nil
        case .integer(let number): String(number)
        case .double(let number): String(number)
        case .text(let text): text
        case .blob(let bytes): String(decoding: bytes, as: UTF8.self)
        }
    }
}

extension [UInt8]: DatabaseValueConvertible {
    package var databaseValue: DatabaseValue { .blob(self) }

    package static func fromDatabaseValue(_ value: DatabaseValue) -> [UInt8]? {
        switch value {
        case .null: nil
        case .blob(let bytes): bytes
        default: String.fromDatabaseValue(value).map { Array($0.utf8) }
        }
    }
}

extension DatabaseValue: DatabaseValueConvertible {
    package var databaseValue: DatabaseValue { self }

    /// The value itself, NULL included (for copying a column as it is).
    package static func fromDatabaseValue(_ value: DatabaseValue) -> DatabaseValue? {
        value
    }
}
