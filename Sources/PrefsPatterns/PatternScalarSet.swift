import PrefsBase

/// A set of Unicode scalar values as sorted, disjoint, non-adjacent ranges: a schema
/// pattern's `[...]` class, `.` or `\d`-style escape.
struct PatternScalarSet: Sendable, Equatable {
    /// The largest scalar value.
    static let maxScalar: UInt32 = 0x10FFFF

    /// The ranges, sorted and merged.
    private(set) var ranges: [ClosedRange<UInt32>]

    /// A set of the given ranges (in any order, overlapping or not).
    package init(_ ranges: [ClosedRange<UInt32>] = []) {
        self.ranges = []
        insert(ranges)
    }

    /// ECMA-262's `\d`: ASCII digits only.
    static let digits = PatternScalarSet([0x30...0x39])
    /// ECMA-262's `\w`: ASCII letters, digits and `_`.
    static let word = PatternScalarSet([0x30...0x39, 0x41...0x5A, 0x5F...0x5F, 0x61...0x7A])
    /// ECMA-262's `\s`: WhiteSpace and LineTerminator.
    static let space = PatternScalarSet([
        0x09...0x0D, 0x20...0x20, 0xA0...0xA0, 0x1680...0x1680, 0x2000...0x200A, 0x2028...0x2029,
        0x202F...0x202F, 0x205F...0x205F, 0x3000...0x3000, 0xFEFF...0xFEFF,
    ])
    /// ECMA-262's `.`: anything but a line terminator (`\n`, `\r`, U+2028, U+2029).
    static let dot = PatternScalarSet([0x0A...0x0A, 0x0D...0x0D, 0x2028...0x2029]).inverted

    /// Adds ranges, keeping the list sorted and merged.
    mutating func insert(_ more: [ClosedRange<UInt32>]) {
        let all = (ranges + more).sorted { $0.lowerBound < $1.lowerBound }
        var merged: [ClosedRange<UInt32>] = []
        for range in all {
            if let last = merged.last, range.lowerBound <= last.upperBound &+ 1 {
                merged[merged.count - 1] = last.lowerBound...max(last.upperBound, range.upperBound)
            } else {
                merged.append(range)
            }
        }
        ranges = merged
    }

    /// Every scalar value not in the set.
    var inverted: PatternScalarSet {
        var result: [ClosedRange<UInt32>] = []
        var next: UInt32 = 0
        for range in ranges {
            if range.lowerBound > next { result.append(next...(range.lowerBound - 1)) }
            next = range.upperBound &+ 1
            if range.upperBound == Self.maxScalar { return PatternScalarSet(result) }
        }
        if next <= Self.maxScalar { result.append(next...Self.maxScalar) }
        return PatternScalarSet(result)
    }

    /// Whether the set holds `value` (binary search).
    func contains(_ value: UInt32) -> Bool {
        var low = 0
        var high = ranges.count
        while low < high {
            let middle = (low + high) / 2
            if ranges[middle].upperBound < value {
                low = middle + 1
            } else if ranges[middle].lowerBound > value {
                high = middle
            } else {
                return true
            }
        }
        return false
    }
}
