/// One result row, copied out of its statement: values by position or by column name.
package struct Row: CustomStringConvertible {
    /// The result columns' names.
    package let columnNames: [String]
    /// The values, in column order.
    package let values: [DatabaseValue]

    package init(columnNames: [String], values: [DatabaseValue]) {
        self.columnNames = columnNames
        self.values = values
    }

    /// The current row of `statement`.
    init(_ statement: Statement, columnNames: [String]) {
        self.columnNames = columnNames
        values = (0..<Int32(columnNames.count)).map { statement.value(at: $0) }
    }

    /// The value of column `index`. A NULL or a value that does not convert is a damaged (or
    /// tampered) store, not a programming error: it throws SQLITE_CORRUPT, which the store
    /// reports as unreadable (exit 3) instead of stopping the program.
    package subscript<Value: DatabaseValueConvertible>(_ index: Int) -> Value {
        get throws(DatabaseError) {
            guard let value = Value.fromDatabaseValue(values[index]) else {
                throw DatabaseError(
                    resultCode: .corrupt,
                    message: "column \(columnNames[index]) holds \(values[index]) where \(Value.self) was expected")
            }
            return value
        }
    }

    /// The value of column `index`, nil for NULL.
    package subscript<Value: DatabaseValueConvertible>(_ index: Int) -> Value? {
        Value.fromDatabaseValue(values[index])
    }

    /// The value of the first column named `name` (compared without case); throws as
    /// ``subscript(_:)-(Int)`` when it is NULL or does not convert. A name the query does not
    /// have stops the program (a programming error).
    package subscript<Value: DatabaseValueConvertible>(_ name: String) -> Value {
        get throws(DatabaseError) { try self[index(of: name)] }
    }

    /// The value of the first column named `name` (compared without case), nil for NULL.
    package subscript<Value: DatabaseValueConvertible>(_ name: String) -> Value? {
        self[index(of: name)]
    }

    private func index(of name: String) -> Int {
        let lowered = name.lowercased()
        guard let index = columnNames.firstIndex(where: { $0.lowercased() == lowered }) else {
            fatalError("no column \(name) in \(columnNames)")
        }
        return index
    }

    package var description: String {
        "[" + zip(columnNames, values).map { "\($0):\($1)" }.joined(separator: " ") + "]"
    }

    /// The first row, or nil.
    package static func fetchOne(_ db: Database, sql: String, arguments: StatementArguments = []) throws -> Row? {
        try fetchOne(db.makeStatement(sql: sql), arguments: arguments)
    }

    /// The first row, or nil.
    package static func fetchOne(_ statement: Statement, arguments: StatementArguments = []) throws -> Row? {
        try statement.bind(arguments)
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        return Row(statement, columnNames: statement.columnNames)
    }

    /// Every row.
    package static func fetchAll(_ db: Database, sql: String, arguments: StatementArguments = []) throws -> [Row] {
        try fetchAll(db.makeStatement(sql: sql), arguments: arguments)
    }

    /// Every row.
    package static func fetchAll(_ statement: Statement, arguments: StatementArguments = []) throws -> [Row] {
        try statement.bind(arguments)
        defer { statement.reset() }
        let names = statement.columnNames
        var rows: [Row] = []
        while try statement.step() { rows.append(Row(statement, columnNames: names)) }
        return rows
    }

    /// The rows one at a time, for a result too large to hold at once.
    package static func fetchCursor(_ db: Database, sql: String, arguments: StatementArguments = []) throws -> RowCursor {
        let statement = try db.makeStatement(sql: sql)
        try statement.bind(arguments)
        return RowCursor(statement)
    }
}
