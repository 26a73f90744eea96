import PrefsBase
import PrefsJSON

/// Rules for keys: non-empty UTF-8, at most 1024 bytes, no control characters.
public enum KeyName {
    /// The longest key in UTF-8 bytes.
    public static let maximumLength = 1024

    /// Checks a key.
    ///
    /// ```swift
    /// try KeyName.validate("onboarding.shown")
    /// ```
    /// - Throws: ``PrefsError`` of kind ``PrefsError/Kind/usage`` for an empty key, one
    ///   longer than 1024 bytes, or one with a NUL or other control character.
    public static func validate(_ key: String) throws {
        if key.isEmpty { throw PrefsError(.usage, "invalid key: a key may not be empty") }
        let length = key.utf8.count
        if length > maximumLength {
            throw PrefsError(.usage, "invalid key: \(length) bytes is longer than the limit of \(maximumLength) bytes")
        }
        // C0 controls and DEL are single bytes; C1 controls (U+0080...U+009F) are C2 80...C2 9F.
        var key = key
        let control = key.withUTF8 { bytes in
            bytes.indices.contains { i in
                let byte = bytes[i]
                if byte < 0x20 || byte == 0x7F { return true }
                guard byte == 0xC2, i + 1 < bytes.count else { return false }
                return bytes[i + 1] >= 0x80 && bytes[i + 1] <= 0x9F
            }
        }
        if control {
            throw PrefsError(.usage, "invalid key \(Domain.quoted(key)): control characters are not allowed")
        }
    }
}
