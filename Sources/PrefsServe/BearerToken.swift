import PrefsCore

/// Bearer-token checks that take the same time whatever the guess.
public enum BearerToken {
    /// Whether an `Authorization` header carries `Bearer <expected>`; the comparison reads
    /// every byte of both, so its time does not tell how much of a guess was right.
    /// A new token: 32 random bytes from the system's generator, as 64 hex digits.
    public static func random() -> String {
        var generator = SystemRandomNumberGenerator()
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for _ in 0..<32 {
            let byte = UInt8.random(in: 0...255, using: &generator)
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 15)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    public static func authorizes(_ header: String?, expected: String) -> Bool {
        guard let header else { return false }
        let prefix = "bearer "
        guard header.utf8.count > prefix.utf8.count, header.lowercased().hasPrefix(prefix) else { return false }
        let given = Array(header.utf8.dropFirst(prefix.utf8.count))
        return constantTimeEqual(given, Array(expected.utf8))
    }

    /// Byte equality in time that depends on the lengths only.
    public static func constantTimeEqual(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        var difference = UInt8(truncatingIfNeeded: lhs.count ^ rhs.count) | (lhs.count == rhs.count ? 0 : 1)
        let count = max(lhs.count, rhs.count)
        for index in 0..<count {
            let a = index < lhs.count ? lhs[index] : 0
            let b = index < rhs.count ? rhs[index] : 0
            difference |= a ^ b
        }
        return difference == 0
    }

    /// Reads a token file: its text with surrounding whitespace removed.
    ///
    /// - Returns: nil when the file holds no token.
    public static func token(fromFileText text: String) -> String? {
        let token = text.trimmingWhitespaceAndNewlines()
        return token.isEmpty ? nil : token
    }
}
