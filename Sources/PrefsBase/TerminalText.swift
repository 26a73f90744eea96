/// Text from elsewhere (a stored value, a sync peer's message) made safe for a terminal.
package enum TerminalText {
    /// The text with its control characters (C0, DEL, C1) escaped as `\n`, `\t`, `\r` or
    /// `\xHH`, so text planted by a peer can neither forge lines nor send terminal escape
    /// sequences. Backslashes are left alone, so escaping twice changes nothing more. JSON
    /// output escapes them itself.
    package static func escapingControls(_ text: String) -> String {
        guard needsEscaping(text) else { return text }
        var escaped = ""
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x0A: escaped += "\\n"
            case 0x09: escaped += "\\t"
            case 0x0D: escaped += "\\r"
            case 0..<0x20, 0x7F..<0xA0: escaped += "\\x" + hex(scalar.value)
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    /// Appends `bytes` (valid UTF-8, as a stored key or value) to `out` as
    /// ``escapingControls(_:)`` gives them: copied at once when nothing needs escaping, the
    /// usual case, so a listing makes no `String` per row.
    package static func appendEscapingControls(_ bytes: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        if !UTF8Bytes.isPrintableASCII(bytes) && hasEscapedByte(bytes) {
            out.append(contentsOf: escapingControls(String(decoding: bytes, as: UTF8.self)).utf8)
        } else {
            out.append(contentsOf: bytes)
        }
    }

    /// Whether `text` has a byte ``escapingControls(_:)`` looks at: a control character, DEL,
    /// or the lead byte of a C1 control. Scans the contiguous UTF-8 (a listing asks it of every
    /// key and value).
    private static func needsEscaping(_ text: String) -> Bool {
        if let found = text.utf8.withContiguousStorageIfAvailable(hasEscapedByte) { return found }
        return text.utf8.contains { $0 < 0x20 || $0 == 0x7F || $0 == 0xC2 }
    }

    /// Whether `bytes` holds a byte below 0x20, 0x7F or 0xC2: eight bytes at a time (the
    /// exact "has a byte less than / equal to" word tests), then the rest one by one.
    private static func hasEscapedByte(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return false }
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        func hasZero(_ word: UInt64) -> Bool { (word &- ones) & ~word & highs != 0 }
        var index = 0
        while index + 8 <= bytes.count {
            let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
            if (word &- ones &* 0x20) & ~word & highs != 0 || hasZero(word ^ (ones &* 0x7F)) || hasZero(word ^ (ones &* 0xC2)) {
                return true
            }
            index += 8
        }
        while index < bytes.count {
            let byte = base[index]
            if byte < 0x20 || byte == 0x7F || byte == 0xC2 { return true }
            index += 1
        }
        return false
    }

    /// Two lowercase hex digits.
    private static func hex(_ value: UInt32) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(value >> 4) & 0xF], digits[Int(value) & 0xF]])
    }
}
