/// The rows of a statement, read one at a time with ``next()``; the statement is reset when
/// they are done or the cursor goes.
package final class RowCursor {
    private let statement: Statement
    private let columnNames: [String]
    private var done = false

    init(_ statement: Statement) {
        self.statement = statement
        columnNames = statement.columnNames
    }

    deinit {
        statement.reset()
    }

    /// The next row, or nil after the last.
    ///
    /// - Throws: ``DatabaseError``.
    package func next() throws -> Row? {
        guard !done else { return nil }
        guard try statement.step() else {
            done = true
            statement.reset()
            return nil
        }
        return Row(statement, columnNames: columnNames)
    }
}
