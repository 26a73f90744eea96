import PrefsBase
import PrefsJSON

/// The one integer arithmetic of increments (`incr`, queued and direct, and `perform`): a
/// missing key counts as 0, anything but an integer is refused, and a sum outside 64 bits
/// is an error, never a wrap.
package enum Increment {
    /// The integer a key holds (0 when it is missing).
    ///
    /// - Throws: ``PrefsError`` of kind `invalidValue` naming the key when it holds
    ///   something else.
    package static func base(_ value: JSONValue?, domain: Domain, key: String) throws -> Int64 {
        guard let value else { return 0 }
        guard case .number(let text) = value, value.isIntegerNumber, let integer = Int64(text) else {
            if case .number(let text) = value, ExactDecimal(text).isInteger {
                // A schema `integer` accepts 5.0 and 1e1 (JSON Schema's rule), stored as written.
                throw PrefsError(
                    .invalidValue, "\(domain.name)/\(key) holds \(text), not an integer written in at most 19 plain digits",
                    reason: .typeMismatch(expected: "integer"), domain: domain, key: key)
            }
            throw PrefsError(
                .invalidValue,
                "\(domain.name)/\(key) holds \(value.typeName == "number" ? "a non-integer number" : "a \(value.typeName)"), not an integer",
                reason: .typeMismatch(expected: "integer"), domain: domain, key: key)
        }
        return integer
    }

    /// `base + delta`.
    ///
    /// - Throws: ``PrefsError`` of kind `invalidValue` (`B + D overflows a 64-bit integer`)
    ///   when the sum does not fit.
    package static func sum(_ base: Int64, _ delta: Int64) throws -> Int64 {
        let (sum, overflow) = base.addingReportingOverflow(delta)
        if overflow { throw PrefsError(.invalidValue, "\(base) + \(delta) overflows a 64-bit integer") }
        return sum
    }

    /// ``sum(_:_:)`` with the key named in the error (`DOMAIN/KEY: B + D overflows …`).
    package static func sum(_ base: Int64, _ delta: Int64, domain: Domain, key: String) throws -> Int64 {
        do {
            return try sum(base, delta)
        } catch let error as PrefsError {
            throw error.prefixed("\(domain.name)/\(key): ").naming(domain, key)
        }
    }
}
