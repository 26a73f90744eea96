/// One value SQLite stored or returned, in its storage class.
package enum DatabaseValue: Hashable, Sendable, CustomStringConvertible {
    case null
    case integer(Int64)
    case double(Double)
    case text(String)
    case blob([UInt8])

    package var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    package var description: String {
        switch self {
        case .null: "NULL"
        case .integer(let value): String(value)
        case .double(let value): String(value)
        case .text(let value): "\"" + value.replacing("\"", with: "\"\"") + "\""
        case .blob(let bytes): "<\(bytes.count) bytes>"
        }
    }
}
