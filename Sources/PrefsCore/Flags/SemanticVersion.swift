/// A SemVer 2.0 version as flagd's `sem_ver` reads it: an optional leading `v`/`V`, partial
/// versions filled with zeros (`1` = `1.0.0`, `1.2` = `1.2.0`), build metadata ignored.
struct SemanticVersion: Comparable {
    /// A numeric identifier of any length (SemVer sets no limit): the value when it fits 64
    /// bits, else its digits (no leading zeros). Every large one is above every small one.
    enum Number: Comparable {
        case small(UInt64)
        case large(String)

        static func < (lhs: Number, rhs: Number) -> Bool {
            switch (lhs, rhs) {
            case (.small(let a), .small(let b)): a < b
            case (.small, .large): true
            case (.large, .small): false
            case (.large(let a), .large(let b)): a.utf8.count != b.utf8.count ? a.utf8.count < b.utf8.count : a < b
            }
        }
    }

    var major: Number
    var minor: Number
    var patch: Number
    var prerelease: [String]

    init?(_ text: String) {
        var text = text
        guard let version = text.withUTF8({ Self.parse($0) }) else { return nil }
        self = version
    }

    private init(major: Number, minor: Number, patch: Number, prerelease: [String]) {
        self.major = major
        self.minor = minor
        self.patch = patch
        self.prerelease = prerelease
    }

    /// Reads the UTF-8 bytes in place (rules evaluate `sem_ver` per request, so no substrings
    /// or arrays unless there is a pre-release). Every accepted byte is ASCII.
    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> SemanticVersion? {
        var start = 0
        var end = bytes.count
        if let first = bytes.first, first == UInt8(ascii: "v") || first == UInt8(ascii: "V") { start = 1 }
        if let plus = bytes[start..<end].firstIndex(of: UInt8(ascii: "+")) {
            guard identifiers(bytes, plus + 1..<end, rejectingLeadingZeros: false) != nil else { return nil }
            end = plus
        }
        var prerelease: [String] = []
        if let dash = bytes[start..<end].firstIndex(of: UInt8(ascii: "-")) {
            guard let parts = identifiers(bytes, dash + 1..<end, rejectingLeadingZeros: true) else { return nil }
            prerelease = parts.map { String(decoding: UnsafeBufferPointer(rebasing: bytes[$0]), as: UTF8.self) }
            end = dash
        }
        var numbers: (Number, Number, Number) = (.small(0), .small(0), .small(0))
        var count = 0
        var partStart = start
        for index in start...end where index == end || bytes[index] == UInt8(ascii: ".") {
            guard count < 3, let value = number(bytes, partStart..<index) else { return nil }
            switch count {
            case 0: numbers.0 = value
            case 1: numbers.1 = value
            default: numbers.2 = value
            }
            count += 1
            partStart = index + 1
        }
        return SemanticVersion(major: numbers.0, minor: numbers.1, patch: numbers.2, prerelease: prerelease)
    }

    /// A version number: digits, no leading zero, of any length.
    private static func number(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Number? {
        guard !range.isEmpty, range.count == 1 || bytes[range.lowerBound] != UInt8(ascii: "0") else { return nil }
        var value: UInt64 = 0
        var fits = true
        for index in range {
            let digit = bytes[index] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            if fits {
                let (times, overflow) = value.multipliedReportingOverflow(by: 10)
                let (sum, carry) = times.addingReportingOverflow(UInt64(digit))
                if overflow || carry { fits = false } else { value = sum }
            }
        }
        return fits ? .small(value) : .large(String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self))
    }

    /// Dot-separated identifiers (`[0-9A-Za-z-]+`), pre-release ones without numeric leading
    /// zeros; nil when one is not.
    private static func identifiers(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, rejectingLeadingZeros: Bool) -> [Range<Int>]?
    {
        var parts: [Range<Int>] = []
        var partStart = range.lowerBound
        for index in range.lowerBound...range.upperBound where index == range.upperBound || bytes[index] == UInt8(ascii: ".") {
            let part = partStart..<index
            guard !part.isEmpty else { return nil }
            var numeric = true
            for position in part {
                let b = bytes[position]
                let digit = b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9")
                let letter = (b | 0x20) >= UInt8(ascii: "a") && (b | 0x20) <= UInt8(ascii: "z")
                guard digit || letter || b == UInt8(ascii: "-") else { return nil }
                if !digit { numeric = false }
            }
            if rejectingLeadingZeros && numeric && part.count > 1 && bytes[part.lowerBound] == UInt8(ascii: "0") { return nil }
            parts.append(part)
            partStart = index + 1
        }
        return parts
    }

    static func < (lhs: SemanticVersion, rhs: SemanticVersion) -> Bool {
        if lhs.major != rhs.major { return lhs.major < rhs.major }
        if lhs.minor != rhs.minor { return lhs.minor < rhs.minor }
        if lhs.patch != rhs.patch { return lhs.patch < rhs.patch }
        // A version without pre-release ranks above one with.
        if lhs.prerelease.isEmpty || rhs.prerelease.isEmpty { return !lhs.prerelease.isEmpty && rhs.prerelease.isEmpty }
        for (a, b) in zip(lhs.prerelease, rhs.prerelease) where a != b {
            // Numeric identifiers (no leading zeros, any length) compare as numbers: by
            // length, then digit by digit; they rank below alphanumeric ones.
            switch (a.utf8.allSatisfy(isDigit), b.utf8.allSatisfy(isDigit)) {
            case (true, true): return a.utf8.count != b.utf8.count ? a.utf8.count < b.utf8.count : a < b
            case (true, false): return true
            case (false, true): return false
            default: return a < b
            }
        }
        return lhs.prerelease.count < rhs.prerelease.count
    }

    static func == (lhs: SemanticVersion, rhs: SemanticVersion) -> Bool {
        !(lhs < rhs) && !(rhs < lhs)
    }
}

private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
