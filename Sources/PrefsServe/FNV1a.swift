/// 64-bit FNV-1a, for ETags (not a secret, only a change detector).
struct FNV1a {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    /// Adds the text's UTF-8 bytes and a separator.
    mutating func add(_ text: String) {
        for byte in text.utf8 { mix(byte) }
        mix(0xff)
    }

    private mutating func mix(_ byte: UInt8) {
        value ^= UInt64(byte)
        value &*= 0x0000_0100_0000_01b3
    }

    /// Sixteen lower-case hex digits.
    var hex: String { FNV1aText.hex(value) }
}
