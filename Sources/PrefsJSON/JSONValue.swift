import FoundationEssentials
import PrefsBase

/// A JSON value as prefs stores it.
///
/// Numbers keep the exact text they were written with, so `0.1` stays `0.1` and
/// `12345678901234567890` is not rounded. Objects keep their members in the order they were
/// written; a member written twice keeps the last value.
///
/// ```swift
/// let value = try JSONValue(parsing: #"{"a":[1,2.50,"x"]}"#)
/// print(value.compactText)  // {"a":[1,2.50,"x"]}
/// let literal: JSONValue = ["a": [1, 2.5, "x"], "on": true, "none": nil]
/// ```
///
/// `==` and hashing compare the exact form (`1.0` and `1` differ, as do objects with members
/// in another order); ``isEquivalent(to:)`` compares meaning.
public enum JSONValue: Sendable, Hashable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number, as its JSON text (always valid JSON number syntax).
    case number(String)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object; members in order, keys unique.
    case object([Member])

    /// One member of a JSON object.
    public struct Member: Sendable, Hashable {
        /// The member's name.
        public var key: String
        /// The member's value.
        public var value: JSONValue

        /// Creates a member.
        public init(_ key: String, _ value: JSONValue) {
            self.key = key
            self.value = value
        }
    }

    /// The name of the value's JSON type: `null`, `boolean`, `number`, `string`, `array` or
    /// `object`.
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }

    /// The string payload, when the value is a string.
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The members, when the value is an object.
    public var objectMembers: [Member]? {
        if case .object(let members) = self { return members }
        return nil
    }

    /// Whether the value is a number written without fraction or exponent, e.g. `-42`.
    public var isIntegerNumber: Bool {
        guard case .number(let text) = self else { return false }
        return !text.utf8.contains { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }
    }

    /// The value as compact JSON text: no insignificant whitespace, non-ASCII characters
    /// written as they are, `"`, `\` and control characters escaped.
    public var compactText: String {
        var out: [UInt8] = []
        out.reserveCapacity(64)
        JSONWriter.write(self, into: &out, indent: nil, level: 0)
        return String(decoding: out, as: UTF8.self)
    }

    /// The value as indented JSON text (two spaces per level), without a trailing newline.
    public var prettyText: String {
        var out: [UInt8] = []
        JSONWriter.write(self, into: &out, indent: 2, level: 0)
        return String(decoding: out, as: UTF8.self)
    }

    /// Parses JSON text.
    ///
    /// ```swift
    /// let n = try JSONValue(parsing: "0.1")  // .number("0.1")
    /// ```
    /// - Throws: ``PrefsError`` of kind ``PrefsError/Kind/invalidValue`` when the text is
    ///   not one valid JSON value, or nests deeper than ``JSONParser/maximumDepth``.
    public init(parsing text: String) throws {
        var text = text
        self = try text.withUTF8 { try JSONParser.parse($0, validUTF8: true) }
    }

    /// Parses JSON text that wraps stored values in `levels` more levels of arrays or
    /// objects (an import document, a batch line), allowing that much more nesting.
    ///
    /// - Throws: ``PrefsError`` of kind ``PrefsError/Kind/invalidValue`` when the text is
    ///   not one valid JSON value.
    public init(parsing text: String, wrappingLevels levels: Int) throws {
        var text = text
        self = try text.withUTF8 { try JSONParser.parse($0, wrappingLevels: levels, validUTF8: true) }
    }

    /// Parses JSON from UTF-8 bytes, rejecting invalid UTF-8.
    ///
    /// - Throws: ``PrefsError`` of kind ``PrefsError/Kind/invalidValue`` when the bytes are
    ///   not valid UTF-8 or not one valid JSON value.
    public init(parsingUTF8 bytes: [UInt8], wrappingLevels levels: Int = 0) throws {
        guard String(validating: bytes, as: UTF8.self) != nil else {
            throw PrefsError(.invalidValue, "input is not valid UTF-8")
        }
        self = try bytes.withUnsafeBufferPointer {
            try JSONParser.parse($0, wrappingLevels: levels, validUTF8: true)
        }
    }

    /// Whether two values mean the same JSON: object members in any order (names compared
    /// byte for byte), numbers by value (`1.0` equals `1`), everything else exactly.
    ///
    /// ```swift
    /// let same = try JSONValue(parsing: #"{"a":1,"b":2}"#).isEquivalent(to: JSONValue(parsing: #"{"b":2.0,"a":1}"#))  // true
    /// ```
    public func isEquivalent(to other: JSONValue) -> Bool {
        switch (self, other) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.string(let a), .string(let b)): return BytewiseString.equal(a, b)
        case (.number(let a), .number(let b)):
            return a == b || ExactDecimal(a).compare(ExactDecimal(b)) == .orderedSame
        case (.array(let a), .array(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.isEquivalent(to: $1) }
        case (.object(let a), .object(let b)):
            guard a.count == b.count else { return false }
            var index: [BytewiseString: JSONValue] = [:]
            for member in b { index[BytewiseString(member.key)] = member.value }
            return a.allSatisfy { member in index[BytewiseString(member.key)].map { member.value.isEquivalent(to: $0) } ?? false }
        default: return false
        }
    }

    /// Looks up a member of an object by name.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.last { $0.key.utf8.elementsEqual(key.utf8) }?.value
    }
}

package enum JSONWriter {
    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    static func write(_ value: JSONValue, into out: inout [UInt8], indent: Int?, level: Int) {
        switch value {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .number(let text): out.append(contentsOf: text.utf8)
        case .string(let s): writeString(s, into: &out)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                newline(into: &out, indent: indent, level: level + 1)
                write(item, into: &out, indent: indent, level: level + 1)
            }
            if !items.isEmpty { newline(into: &out, indent: indent, level: level) }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (i, member) in members.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                newline(into: &out, indent: indent, level: level + 1)
                writeString(member.key, into: &out)
                out.append(UInt8(ascii: ":"))
                if indent != nil { out.append(UInt8(ascii: " ")) }
                write(member.value, into: &out, indent: indent, level: level + 1)
            }
            if !members.isEmpty { newline(into: &out, indent: indent, level: level) }
            out.append(UInt8(ascii: "}"))
        }
    }

    private static func newline(into out: inout [UInt8], indent: Int?, level: Int) {
        guard let indent else { return }
        out.append(UInt8(ascii: "\n"))
        out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: indent * level))
    }

    /// Whether `bytes` has a byte a JSON string escapes: a control character, `"`, `\\` or
    /// DEL. Eight bytes at a time (``escapes(_:)``).
    private static func needsEscaping(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return false }
        var index = 0
        while index + 8 <= bytes.count {
            if escapes(UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)) { return true }
            index += 8
        }
        while index < bytes.count {
            let byte = base[index]
            if byte < 0x20 || byte == 0x22 || byte == 0x5C || byte == 0x7F { return true }
            index += 1
        }
        return false
    }

    /// Whether one of the eight bytes of `word` is one a JSON string escapes (a control
    /// character, `"`, `\\` or DEL): the exact "has a byte less than / equal to" word tests.
    @inline(__always)
    package static func escapes(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        func zeroBytes(_ word: UInt64) -> UInt64 { (word &- ones) & ~word }
        let flagged =
            ((word &- ones &* 0x20) & ~word) | zeroBytes(word ^ (ones &* 0x22)) | zeroBytes(word ^ (ones &* 0x5C))
            | zeroBytes(word ^ (ones &* 0x7F))
        return flagged & 0x8080_8080_8080_8080 != 0
    }

    package static func writeString(_ s: String, into out: inout [UInt8]) {
        var s = s
        s.withUTF8 { writeString(bytes: $0, into: &out) }
    }

    /// A JSON string of `bytes` (valid UTF-8, as a stored key), as ``writeString(_:into:)``
    /// writes the same text: the bytes copied at once when nothing needs escaping.
    package static func writeString(bytes: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        // Fast path: nothing to escape, copy the bytes at once.
        guard needsEscaping(bytes) else {
            out.append(contentsOf: bytes)
            out.append(UInt8(ascii: "\""))
            return
        }
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x0A: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0x08: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
            case 0x0C: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
            case 0x00..<0x20, 0x7F:
                out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0xF)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
