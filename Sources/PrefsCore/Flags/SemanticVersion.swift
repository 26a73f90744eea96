/// A SemVer 2.0 version as flagd's `sem_ver` reads it: an optional leading `v`/`V`, partial
/// versions filled with zeros (`1` = `1.0.0`, `1.2` = `1.2.0`), build metadata ignored.
struct SemanticVersion: Comparable {
    var major: UInt64
    var minor: UInt64
    var patch: UInt64
    var prerelease: [String]

    init?(_ text: String) {
        var text = Substring(text)
        if text.first == "v" || text.first == "V" { text = text.dropFirst() }
        if let plus = text.firstIndex(of: "+") {
            let build = text[text.index(after: plus)...]
            guard !build.isEmpty, build.split(separator: ".", omittingEmptySubsequences: false).allSatisfy(Self.isIdentifier) else {
                return nil
            }
            text = text[..<plus]
        }
        var prerelease: [String] = []
        if let dash = text.firstIndex(of: "-") {
            let parts = text[text.index(after: dash)...].split(separator: ".", omittingEmptySubsequences: false)
            guard !parts.isEmpty, parts.allSatisfy(Self.isIdentifier) else { return nil }
            for part in parts where part.allSatisfy(\.isASCIIDigit) && part.count > 1 && part.first == "0" { return nil }
            prerelease = parts.map(String.init)
            text = text[..<dash]
        }
        let numbers = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...3).contains(numbers.count) else { return nil }
        var values: [UInt64] = []
        for number in numbers {
            guard !number.isEmpty, number.allSatisfy(\.isASCIIDigit), !(number.count > 1 && number.first == "0"),
                let value = UInt64(number)
            else { return nil }
            values.append(value)
        }
        while values.count < 3 { values.append(0) }
        major = values[0]
        minor = values[1]
        patch = values[2]
        self.prerelease = prerelease
    }

    private static func isIdentifier(_ part: Substring) -> Bool {
        !part.isEmpty && part.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
    }

    static func < (lhs: SemanticVersion, rhs: SemanticVersion) -> Bool {
        if lhs.major != rhs.major { return lhs.major < rhs.major }
        if lhs.minor != rhs.minor { return lhs.minor < rhs.minor }
        if lhs.patch != rhs.patch { return lhs.patch < rhs.patch }
        // A version without pre-release ranks above one with.
        if lhs.prerelease.isEmpty || rhs.prerelease.isEmpty { return !lhs.prerelease.isEmpty && rhs.prerelease.isEmpty }
        for (a, b) in zip(lhs.prerelease, rhs.prerelease) where a != b {
            let na = a.allSatisfy(\.isASCIIDigit) ? UInt64(a) : nil
            let nb = b.allSatisfy(\.isASCIIDigit) ? UInt64(b) : nil
            switch (na, nb) {
            case (let x?, let y?): return x < y
            case (.some, nil): return true
            case (nil, .some): return false
            default: return a < b
            }
        }
        return lhs.prerelease.count < rhs.prerelease.count
    }

    static func == (lhs: SemanticVersion, rhs: SemanticVersion) -> Bool {
        !(lhs < rhs) && !(rhs < lhs)
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
