import PrefsBase
import PrefsJSON

/// A SemVer 2.0 version as flagd's `sem_ver` reads it: an optional leading `v`/`V`, partial
/// versions filled with zeros (`1` = `1.0.0`, `1.2` = `1.2.0`), build metadata ignored.
struct SemanticVersion: Comparable {
    /// Major, minor and patch when they fit 64 bits; `UInt64.max` for one beyond, whose digits
    /// are then in ``wide``.
    var major: UInt64
    var minor: UInt64
    var patch: UInt64
    /// The pre-release identifiers, after `["\0", major, minor, patch]` digits when one of those
    /// is beyond 64 bits (SemVer sets no limit). One array keeps the value as small as it was
    /// before numbers of any length (sem_ver runs per evaluation); an identifier is never "\0".
    private var identifiers: [String]

    /// The digits of major, minor and patch ("" for those that fit) when one is beyond 64 bits;
    /// nil, the common case, when all fit.
    var wide: [String]? { isWide ? Array(identifiers[1...3]) : nil }
    var prerelease: ArraySlice<String> { isWide ? identifiers[4...] : identifiers[...] }
    private var isWide: Bool { !identifiers.isEmpty && identifiers[0] == "\0" }

    package init?(_ text: String) {
        var text = text
        guard let version = text.withUTF8({ Self.parse($0) }) else { return nil }
        self = version
    }

    private init(major: UInt64, minor: UInt64, patch: UInt64, identifiers: [String]) {
        self.major = major
        self.minor = minor
        self.patch = patch
        self.identifiers = identifiers
    }

    /// Compares the first `count` of major, minor and patch when one is wide: -1, 0 or 1.
    @inline(never)
    private static func compareCore(_ lhs: SemanticVersion, _ rhs: SemanticVersion, count: Int) -> Int {
        let left = [lhs.major, lhs.minor, lhs.patch]
        let right = [rhs.major, rhs.minor, rhs.patch]
        let leftWide = lhs.wide
        let rightWide = rhs.wide
        for index in 0..<count {
            let a = leftWide?[index] ?? ""
            let b = rightWide?[index] ?? ""
            // Digits of any length without leading zeros: a longer one is larger, and every
            // wide one is above every one that fits.
            switch (a.isEmpty, b.isEmpty) {
            case (true, true) where left[index] != right[index]: return left[index] < right[index] ? -1 : 1
            case (true, true): continue
            case (true, false): return -1
            case (false, true): return 1
            default:
                if a.utf8.count != b.utf8.count { return a.utf8.count < b.utf8.count ? -1 : 1 }
                if a != b { return a < b ? -1 : 1 }
            }
        }
        return 0
    }

    /// Whether the majors are equal (`^`).
    func sameMajor(_ other: SemanticVersion) -> Bool {
        !isWide && !other.isWide ? major == other.major : Self.compareCore(self, other, count: 1) == 0
    }

    /// Whether the majors and minors are equal (`~`).
    func sameMinor(_ other: SemanticVersion) -> Bool {
        !isWide && !other.isWide
            ? major == other.major && minor == other.minor : Self.compareCore(self, other, count: 2) == 0
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
        // Plain integers here; the digits of one beyond 64 bits are read afterwards, rarely.
        var numbers: (UInt64, UInt64, UInt64) = (0, 0, 0)
        var anyWide = false
        var count = 0
        var partStart = start
        for index in start...end where index == end || bytes[index] == UInt8(ascii: ".") {
            guard count < 3, let value = number(bytes, partStart..<index) else { return nil }
            if value == .max { anyWide = true }
            switch count {
            case 0: numbers.0 = value
            case 1: numbers.1 = value
            default: numbers.2 = value
            }
            count += 1
            partStart = index + 1
        }
        if anyWide, let wide = wideDigits(bytes, start..<end) { prerelease = ["\0"] + wide + prerelease }
        return SemanticVersion(major: numbers.0, minor: numbers.1, patch: numbers.2, identifiers: prerelease)
    }

    /// The digits of the numbers (`major.minor.patch` in `core`) beyond `UInt64.max` ("" for
    /// the others and for missing ones); nil when none is.
    @inline(never)
    private static func wideDigits(_ bytes: UnsafeBufferPointer<UInt8>, _ core: Range<Int>) -> [String]? {
        let limit = Array("18446744073709551615".utf8)
        var ranges = bytes[core].split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false).map(\.indices)
        while ranges.count < 3 { ranges.append(core.upperBound..<core.upperBound) }
        let digits = ranges.map { range in
            let isBeyond = range.count != limit.count ? range.count > limit.count : limit.lexicographicallyPrecedes(bytes[range])
            return isBeyond ? String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self) : ""
        }
        return digits.allSatisfy(\.isEmpty) ? nil : digits
    }

    /// A version number: digits, no leading zero, of any length; `UInt64.max` for one beyond.
    private static func number(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> UInt64? {
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
        return fits ? value : .max
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
        if lhs.isWide || rhs.isWide {
            let order = compareCore(lhs, rhs, count: 3)
            if order != 0 { return order < 0 }
        } else {
            if lhs.major != rhs.major { return lhs.major < rhs.major }
            if lhs.minor != rhs.minor { return lhs.minor < rhs.minor }
            if lhs.patch != rhs.patch { return lhs.patch < rhs.patch }
        }
        // A version without pre-release ranks above one with.
        if lhs.identifiers.isEmpty && rhs.identifiers.isEmpty { return false }
        let left = lhs.prerelease
        let right = rhs.prerelease
        if left.isEmpty || right.isEmpty { return !left.isEmpty && right.isEmpty }
        for (a, b) in zip(left, right) where a != b {
            // Numeric identifiers (no leading zeros, any length) compare as numbers: by
            // length, then digit by digit; they rank below alphanumeric ones.
            switch (a.utf8.allSatisfy(isDigit), b.utf8.allSatisfy(isDigit)) {
            case (true, true): return a.utf8.count != b.utf8.count ? a.utf8.count < b.utf8.count : a < b
            case (true, false): return true
            case (false, true): return false
            default: return a < b
            }
        }
        return left.count < right.count
    }

    static func == (lhs: SemanticVersion, rhs: SemanticVersion) -> Bool {
        !(lhs < rhs) && !(rhs < lhs)
    }
}

private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
