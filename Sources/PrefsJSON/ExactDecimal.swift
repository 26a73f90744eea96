import FoundationEssentials
import PrefsBase

/// A JSON number as sign, significant digits and decimal exponent, for exact comparison:
/// the value is `0.DIGITS × 10^exponent` with no leading or trailing zero digits. The
/// exponent is exact at any length (`1e1000000000000000001` is not rounded).
package struct ExactDecimal {
    var negative = false
    /// Significant digits as ASCII bytes; empty for zero.
    var digits: [UInt8] = []
    var exponent = BigInteger()

    /// Reads JSON number text (`-?int(.frac)?([eE][+-]?digits)?`).
    package init(_ text: String) {
        var bytes = Array(text.utf8)[...]
        if bytes.first == UInt8(ascii: "-") {
            negative = true
            bytes = bytes.dropFirst()
        }
        var pointPosition: Int?
        var written: [UInt8] = []
        var exponentText: ArraySlice<UInt8> = []
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: ".") {
                pointPosition = written.count
            } else if byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
                exponentText = bytes[(index + 1)...]
                break
            } else {
                written.append(byte)
            }
            index += 1
        }
        let integerDigits = pointPosition ?? written.count
        guard let leading = written.firstIndex(where: { $0 != UInt8(ascii: "0") }),
            let trailing = written.lastIndex(where: { $0 != UInt8(ascii: "0") })
        else {
            negative = false  // -0 == 0
            return
        }
        digits = Array(written[leading...trailing])
        var explicit = BigInteger()
        explicit.negative = exponentText.first == UInt8(ascii: "-")
        explicit.magnitude = Array(exponentText.filter { $0 >= 0x30 && $0 <= 0x39 }.drop { $0 == 0x30 })
        exponent = explicit.adding(integerDigits - leading)
    }

    /// Whether the number has no fractional part (`5`, `5.0`, `1e1`, `-0.0`, `2.5e3`).
    package var isInteger: Bool {
        digits.isEmpty || exponent.compare(BigInteger(digits.count)) != .orderedAscending
    }

    package func compare(_ other: ExactDecimal) -> ComparisonResult {
        if digits.isEmpty && other.digits.isEmpty { return .orderedSame }
        if digits.isEmpty { return other.negative ? .orderedDescending : .orderedAscending }
        if other.digits.isEmpty { return negative ? .orderedAscending : .orderedDescending }
        if negative != other.negative { return negative ? .orderedAscending : .orderedDescending }
        let magnitude = compareMagnitude(other)
        guard negative else { return magnitude }
        switch magnitude {
        case .orderedAscending: return .orderedDescending
        case .orderedDescending: return .orderedAscending
        case .orderedSame: return .orderedSame
        }
    }

    private func compareMagnitude(_ other: ExactDecimal) -> ComparisonResult {
        let exponents = exponent.compare(other.exponent)
        if exponents != .orderedSame { return exponents }
        for (x, y) in zip(digits, other.digits) where x != y {
            return x < y ? .orderedAscending : .orderedDescending
        }
        if digits.count == other.digits.count { return .orderedSame }
        return digits.count < other.digits.count ? .orderedAscending : .orderedDescending
    }
}

/// A signed integer of any size as decimal digits (ASCII, most significant first, no leading
/// zeros; empty for zero): just enough arithmetic for ``ExactDecimal``'s exponents.
struct BigInteger: Equatable {
    var negative = false
    var magnitude: [UInt8] = []

    package init() {}

    package init(_ value: Int) {
        negative = value < 0
        magnitude = value == 0 ? [] : Array(String(value.magnitude).utf8)
    }

    /// This number plus a small one.
    func adding(_ value: Int) -> BigInteger {
        let other = BigInteger(value)
        if magnitude.isEmpty { return other }
        if other.magnitude.isEmpty { return self }
        var result = BigInteger()
        if negative == other.negative {
            result.negative = negative
            result.magnitude = Self.add(magnitude, other.magnitude)
        } else {
            switch Self.compareMagnitudes(magnitude, other.magnitude) {
            case .orderedSame: return BigInteger()
            case .orderedDescending:
                result.negative = negative
                result.magnitude = Self.subtract(magnitude, other.magnitude)
            case .orderedAscending:
                result.negative = other.negative
                result.magnitude = Self.subtract(other.magnitude, magnitude)
            }
        }
        return result
    }

    package func compare(_ other: BigInteger) -> ComparisonResult {
        let selfNegative = negative && !magnitude.isEmpty
        let otherNegative = other.negative && !other.magnitude.isEmpty
        if selfNegative != otherNegative { return selfNegative ? .orderedAscending : .orderedDescending }
        let result = Self.compareMagnitudes(magnitude, other.magnitude)
        guard selfNegative else { return result }
        return result == .orderedAscending ? .orderedDescending : result == .orderedDescending ? .orderedAscending : .orderedSame
    }

    static func compareMagnitudes(_ a: [UInt8], _ b: [UInt8]) -> ComparisonResult {
        if a.count != b.count { return a.count < b.count ? .orderedAscending : .orderedDescending }
        for (x, y) in zip(a, b) where x != y { return x < y ? .orderedAscending : .orderedDescending }
        return .orderedSame
    }

    static func add(_ a: [UInt8], _ b: [UInt8]) -> [UInt8] {
        var result: [UInt8] = []
        var carry = 0
        var i = a.count - 1
        var j = b.count - 1
        while i >= 0 || j >= 0 || carry > 0 {
            let sum = (i >= 0 ? Int(a[i] - 0x30) : 0) + (j >= 0 ? Int(b[j] - 0x30) : 0) + carry
            result.append(UInt8(sum % 10) + 0x30)
            carry = sum / 10
            i -= 1
            j -= 1
        }
        return result.reversed()
    }

    /// a − b for a ≥ b.
    static func subtract(_ a: [UInt8], _ b: [UInt8]) -> [UInt8] {
        var result: [UInt8] = []
        var borrow = 0
        var j = b.count - 1
        for i in stride(from: a.count - 1, through: 0, by: -1) {
            var difference = Int(a[i] - 0x30) - borrow - (j >= 0 ? Int(b[j] - 0x30) : 0)
            borrow = difference < 0 ? 1 : 0
            if difference < 0 { difference += 10 }
            result.append(UInt8(difference) + 0x30)
            j -= 1
        }
        let trimmed = result.reversed().drop { $0 == 0x30 }
        return Array(trimmed)
    }
}
