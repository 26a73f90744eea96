/// The few string operations prefs used from Foundation (which `FoundationEssentials` lacks),
/// with the same results.
extension StringProtocol {
    /// Foundation's `trimmingCharacters(in: .whitespaces)`: without the leading and trailing
    /// tabs and spaces of CoreFoundation's whitespace set (U+0020, U+0009, U+00A0, U+1680,
    /// U+2000 to U+200B, U+202F, U+205F, U+3000).
    package func trimmingWhitespace() -> String {
        trimming(Self.isWhitespace)
    }

    /// Foundation's `trimmingCharacters(in: .whitespacesAndNewlines)`: also without the
    /// leading and trailing newlines (U+000A to U+000D, U+0085, U+2028, U+2029).
    package func trimmingWhitespaceAndNewlines() -> String {
        trimming { Self.isWhitespace($0) || (0x0A...0x0D).contains($0.value) || [0x85, 0x2028, 0x2029].contains($0.value) }
    }

    private static func isWhitespace(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x20, 0x09, 0xA0, 0x1680, 0x2000...0x200B, 0x202F, 0x205F, 0x3000: true
        default: false
        }
    }

    /// The text without the leading and trailing Unicode scalars that match `trimmed`.
    private func trimming(_ trimmed: (Unicode.Scalar) -> Bool) -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !trimmed($0) }) else { return "" }
        guard let last = scalars.lastIndex(where: { !trimmed($0) }) else { return "" }
        return String(String.UnicodeScalarView(scalars[first...last]))
    }

    /// Whether `needle` occurs in the text byte for byte (Foundation's `range(of:options:
    /// .literal) != nil`; an empty needle occurs nowhere). Linear time (Knuth–Morris–Pratt).
    package func containsLiteral(_ needle: some StringProtocol) -> Bool {
        let haystack = Array(utf8)
        let wanted = Array(needle.utf8)
        guard !wanted.isEmpty, haystack.count >= wanted.count else { return false }
        // fallback[i]: the length of the longest proper border of wanted[...i].
        var fallback = [Int](repeating: 0, count: wanted.count)
        var length = 0
        for index in wanted.indices.dropFirst() {
            while length > 0 && wanted[index] != wanted[length] { length = fallback[length - 1] }
            if wanted[index] == wanted[length] { length += 1 }
            fallback[index] = length
        }
        length = 0
        for byte in haystack {
            while length > 0 && byte != wanted[length] { length = fallback[length - 1] }
            if byte == wanted[length] { length += 1 }
            if length == wanted.count { return true }
        }
        return false
    }

    /// Foundation's `replacingOccurrences(of:with:)` for the literal text `target`: every
    /// occurrence, left to right, byte for byte (so `"\r"` is found inside `"\r\n"`).
    package func replacingLiteral(_ target: some StringProtocol, with replacement: some StringProtocol) -> String {
        let bytes = Array(utf8)
        let wanted = Array(target.utf8)
        guard !wanted.isEmpty, bytes.count >= wanted.count else { return String(self) }
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == wanted[0], index + wanted.count <= bytes.count, bytes[index..<index + wanted.count].elementsEqual(wanted) {
                result += replacement.utf8
                index += wanted.count
            } else {
                result.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: result, as: UTF8.self)
    }

    /// Foundation's `padding(toLength:withPad: " ", startingAt: 0)`: spaces appended up to
    /// `length` UTF-16 code units, or the text cut to that many (a split surrogate pair
    /// becomes U+FFFD, as bridging NSString gives).
    package func padded(toUTF16Length length: Int) -> String {
        let units = utf16.count
        if units >= length { return units == length ? String(self) : String(decoding: utf16.prefix(length), as: UTF16.self) }
        return String(self) + String(repeating: " ", count: length - units)
    }

    /// Foundation's `removingPercentEncoding`: `%XX` sequences decoded; nil when a `%` is not
    /// followed by two hexadecimal digits or the decoded bytes are not UTF-8.
    package var percentDecoded: String? {
        percentDecoded(plusIsSpace: false)
    }

    /// ``percentDecoded``, with `+` read as a space when `plusIsSpace` (query strings).
    package func percentDecoded(plusIsSpace: Bool) -> String? {
        var bytes: [UInt8] = []
        var input = Array(utf8)[...]
        while let byte = input.popFirst() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(plusIsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
                continue
            }
            guard input.count >= 2, let high = Self.hexDigit(input[input.startIndex]),
                let low = Self.hexDigit(input[input.startIndex + 1])
            else { return nil }
            bytes.append(high << 4 | low)
            input = input.dropFirst(2)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
