import PrefsBase
import PrefsJSON

/// MurmurHash3, x86 32-bit variant (the hash flagd's `fractional` uses).
///
/// ```swift
/// let hash = MurmurHash3.x86Hash32(Array("ejOoVL".utf8), seed: 0)  // 0
/// ```
package enum MurmurHash3 {
    /// Hashes bytes with a seed.
    package static func x86Hash32(_ bytes: [UInt8], seed: UInt32 = 0) -> UInt32 {
        let c1: UInt32 = 0xcc9e_2d51
        let c2: UInt32 = 0x1b87_3593
        var h = seed
        let blocks = bytes.count / 4
        for i in 0..<blocks {
            let j = i * 4
            var k = UInt32(bytes[j]) | UInt32(bytes[j + 1]) << 8 | UInt32(bytes[j + 2]) << 16 | UInt32(bytes[j + 3]) << 24
            k &*= c1
            k = (k << 15) | (k >> 17)
            k &*= c2
            h ^= k
            h = (h << 13) | (h >> 19)
            h = h &* 5 &+ 0xe654_6b64
        }
        var k: UInt32 = 0
        let tail = blocks * 4
        switch bytes.count & 3 {
        case 3:
            k ^= UInt32(bytes[tail + 2]) << 16
            fallthrough
        case 2:
            k ^= UInt32(bytes[tail + 1]) << 8
            fallthrough
        case 1:
            k ^= UInt32(bytes[tail])
            k &*= c1
            k = (k << 15) | (k >> 17)
            k &*= c2
            h ^= k
        default:
            break
        }
        h ^= UInt32(truncatingIfNeeded: bytes.count)
        h ^= h >> 16
        h &*= 0x85eb_ca6b
        h ^= h >> 13
        h &*= 0xc2b2_ae35
        h ^= h >> 16
        return h
    }
}
