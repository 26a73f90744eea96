/// Checks of UTF-8 held as bytes (text as SQLite returns it), without making a `String`.
package enum UTF8Bytes {
    /// Whether `bytes` is well-formed UTF-8 (what `String(decoding:as:)` keeps unchanged):
    /// no stray continuation byte, no overlong form, no surrogate, nothing above U+10FFFF.
    /// ASCII is checked eight bytes at a time.
    package static func isValid(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let count = bytes.count
        var index = 0
        while index < count {
            if index + 8 <= count, UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
                index += 8
                continue
            }
            let lead = base[index]
            if lead < 0x80 {
                index += 1
                continue
            }
            // The length of the sequence and the range its second byte must be in.
            let length: Int
            var low: UInt8 = 0x80
            var high: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0: (length, low) = (3, 0xA0)
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: (length, high) = (3, 0x9F)
            case 0xF0: (length, low) = (4, 0x90)
            case 0xF1...0xF3: length = 4
            case 0xF4: (length, high) = (4, 0x8F)
            default: return false
            }
            guard index + length <= count, (low...high).contains(base[index + 1]) else { return false }
            for offset in 2..<max(2, length) where base[index + offset] & 0xC0 != 0x80 { return false }
            index += length
        }
        return true
    }
}
