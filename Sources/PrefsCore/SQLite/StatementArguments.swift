/// The values bound to a statement's parameters, in order (`?`, `?1`…); nil binds NULL.
package struct StatementArguments: ExpressibleByArrayLiteral {
    package var values: [DatabaseValue]

    package init(_ values: [DatabaseValue] = []) {
        self.values = values
    }

    package init(arrayLiteral elements: (any DatabaseValueConvertible)?...) {
        values = elements.map { $0?.databaseValue ?? .null }
    }

    /// Adds one value.
    package mutating func append(_ value: (any DatabaseValueConvertible)?) {
        values.append(value?.databaseValue ?? .null)
    }

    /// Adds the values of `other`.
    package mutating func append(contentsOf other: StatementArguments) {
        values += other.values
    }
}
