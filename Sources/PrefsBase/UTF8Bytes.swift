/// Checks of UTF-8 held as bytes (text as SQLite returns it), without making a `String`.
package enum UTF8Bytes {
    /// Whether every byte of `bytes` is printable ASCII (0x20 to 0x7E): valid UTF-8 with no
    /// control character, DEL or NUL, the usual stored key or value. Eight bytes at a time.
    package static func isPrintableASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        var index = 0
        var flagged: UInt64 = 0
        while index + 8 <= bytes.count {
            let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
            // A byte below 0x20 (the exact "has a byte less than" test), at or above 0x80, or
            // 0x7F (which alone becomes 0x80 when one is added, with no carry between bytes
            // below 0x80).
            flagged |= ((word &- ones &* 0x20) & ~word) | word | (word &+ ones)
            index += 8
        }
        guard flagged & highs == 0 else { return false }
        while index < bytes.count {
            guard base[index] >= 0x20 && base[index] < 0x7F else { return false }
            index += 1
        }
        return true
    }

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
