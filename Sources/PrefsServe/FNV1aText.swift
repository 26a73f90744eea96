import PrefsCore

/// Digests as text.
enum FNV1aText {
    /// Sixteen lower-case hex digits.
    static func hex(_ value: UInt64) -> String {
        NumberText.hex(value, width: 16)
    }
}
