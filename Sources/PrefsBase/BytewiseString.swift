import Glibc

/// A string compared and hashed byte for byte (UTF-8), as SQLite compares keys.
package struct BytewiseString: Hashable, Sendable {
    package let value: String

    package init(_ value: String) {
        self.value = value
    }

    package static func == (lhs: BytewiseString, rhs: BytewiseString) -> Bool {
        equal(lhs.value, rhs.value)
    }

    /// Byte-for-byte equality of two strings' UTF-8.
    package static func equal(_ lhs: String, _ rhs: String) -> Bool {
        var rhs = rhs
        return rhs.withUTF8 { equal(lhs, $0) }
    }

    /// Whether a string's UTF-8 is exactly `bytes`.
    package static func equal(_ lhs: String, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var lhs = lhs
        return lhs.withUTF8 { a in
            guard a.count == bytes.count else { return false }
            guard let pa = a.baseAddress, let pb = bytes.baseAddress else { return true }
            return memcmp(pa, pb, a.count) == 0
        }
    }

    package func hash(into hasher: inout Hasher) {
        Self.hashBytes(value, into: &hasher)
    }

    package static func hashBytes(_ text: String, into hasher: inout Hasher) {
        var text = text
        text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        hasher.combine(0xFF as UInt8)
    }

    /// UTF-8 byte order (SQLite's BINARY collation).
    package static func precedes(_ lhs: String, _ rhs: String) -> Bool {
        var lhs = lhs
        var rhs = rhs
        return lhs.withUTF8 { a in
            rhs.withUTF8 { b in
                let common = min(a.count, b.count)
                if common > 0, let pa = a.baseAddress, let pb = b.baseAddress {
                    let order = memcmp(pa, pb, common)
                    if order != 0 { return order < 0 }
                }
                return a.count < b.count
            }
        }
    }
}

extension Array {
    /// Sorts, unless the elements are already in order (an exported document, a batch file
    /// usually are): checking takes one comparison per element.
    package mutating func sortUnlessSorted(by precedes: (Element, Element) -> Bool) {
        guard !indices.dropFirst().allSatisfy({ precedes(self[$0 - 1], self[$0]) }) else { return }
        sort(by: precedes)
    }
}
