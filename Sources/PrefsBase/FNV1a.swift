/// 64-bit FNV-1a: a change detector and a short stable name (ETags, the memory tier's file
/// name), never a secret.
package struct FNV1a {
    package private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    package init() {}

    /// Adds the text's UTF-8 bytes and a separator (so "ab","c" and "a","bc" differ).
    package mutating func add(_ text: String) {
        addBytes(of: text)
        mix(0xff)
    }

    /// Adds the text's UTF-8 bytes alone.
    package mutating func addBytes(of text: String) {
        for byte in text.utf8 { mix(byte) }
    }

    private mutating func mix(_ byte: UInt8) {
        value ^= UInt64(byte)
        value &*= 0x0000_0100_0000_01b3
    }
}
