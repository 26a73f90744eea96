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

    /// Whether `text` has a byte ``escapingControls(_:)`` looks at: a control character, DEL,
    /// or the lead byte of a C1 control. Scans the contiguous UTF-8 (a listing asks it of every
    /// key and value).
    private static func needsEscaping(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in bytes.contains { $0 < 0x20 || $0 == 0x7F || $0 == 0xC2 } }
    }

    /// Two lowercase hex digits.
    private static func hex(_ value: UInt32) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(value >> 4) & 0xF], digits[Int(value) & 0xF]])
    }
}
