import Glibc
import PrefsBase

/// A strict RFC 8259 JSON parser that keeps number text and member order.
///
/// Used through ``JSONValue/init(parsing:)``; it is exposed for its limits.
public enum JSONParser {
    /// The deepest nesting of arrays and objects accepted. Deeper input is an error, never
    /// a stack overflow.
    public static let maximumDepth = 512

    /// - Parameters:
    ///   - validUTF8: the bytes are known to be valid UTF-8 (they come from a `String`), so
    ///     strings need no second check.
    ///   - wrappingLevels: the input wraps values in this many levels of its own (an import
    ///     document), allowed on top of ``maximumDepth``; the error still names ``maximumDepth``.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>, wrappingLevels: Int = 0, validUTF8: Bool = false) throws -> JSONValue {
        var parser = Cursor(bytes: bytes, wrappingLevels: wrappingLevels, validUTF8: validUTF8)
        parser.skipWhitespace()
        let value = try parser.parseValue(depth: 0)
        parser.skipWhitespace()
        if parser.position < bytes.count {
            throw parser.failure("unexpected text after the JSON value")
        }
        return value
    }

    /// The compact text of one JSON value, as `parse(bytes).compactText` gives it, built
    /// without the value's tree when the input allows (see `Cursor.compactValue`); throws
    /// what ``parse(_:wrappingLevels:validUTF8:)`` would throw.
    static func compactText(_ bytes: UnsafeBufferPointer<UInt8>, validUTF8: Bool = false) throws -> String {
        var parser = Cursor(bytes: bytes, wrappingLevels: 0, validUTF8: validUTF8)
        var scratch: [UInt8] = []
        parser.skipWhitespace()
        let text = try parser.compactValue(depth: 0, scratch: &scratch)
        parser.skipWhitespace()
        if parser.position < bytes.count {
            throw parser.failure("unexpected text after the JSON value")
        }
        return text
    }

    /// Whether `bytes` (valid UTF-8) are already the compact text of one JSON value, so that
    /// ``compactText(_:validUTF8:)`` would give them back unchanged: a stored value as prefs
    /// writes it. Scans without building anything; false for anything else (whitespace,
    /// escapes, repeated member names, bad JSON), which the full parse then handles.
    package static func isCompact(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var parser = Cursor(bytes: bytes, wrappingLevels: 0, validUTF8: true)
        return parser.scansAsCompact()
    }

    /// Parses an object of objects (an import document `{"domain":{"key":value}}`) keeping
    /// only each value's compact text, so a large document never exists as a whole tree.
    /// Repeated keys behave as in ``parse(_:wrappingLevels:validUTF8:)`` (the last value, in
    /// the first place). Returns nil for anything else, including a repeated outer name,
    /// and throws what ``parse(_:wrappingLevels:validUTF8:)`` would throw for bad JSON; callers
    /// take the full parse for those cases, to report them as it does.
    package static func parseObjectOfObjects(
        _ bytes: UnsafeBufferPointer<UInt8>,
        wrappingLevels: Int
    ) throws -> [(String, [(String, String)])]? {
        var parser = Cursor(bytes: bytes, wrappingLevels: wrappingLevels, validUTF8: false)
        var result: [(String, [(String, String)])] = []
        parser.skipWhitespace()
        guard parser.current == UInt8(ascii: "{") else { return nil }
        parser.position += 1
        parser.skipWhitespace()
        if parser.current == UInt8(ascii: "}") {
            parser.position += 1
        } else {
            while true {
                parser.skipWhitespace()
                guard parser.current == UInt8(ascii: "\"") else { return nil }
                let name = try parser.parseString()
                if result.contains(where: { BytewiseString.equal($0.0, name) }) { return nil }
                parser.skipWhitespace()
                guard parser.current == UInt8(ascii: ":") else { return nil }
                parser.position += 1
                parser.skipWhitespace()
                guard parser.current == UInt8(ascii: "{"), let members = try parser.parseMembersCompact(depth: 2) else { return nil }
                result.append((name, members))
                parser.skipWhitespace()
                if parser.current == UInt8(ascii: ",") {
                    parser.position += 1
                } else if parser.current == UInt8(ascii: "}") {
                    parser.position += 1
                    break
                } else {
                    return nil
                }
            }
        }
        parser.skipWhitespace()
        return parser.position == bytes.count ? result : nil
    }

    /// The names seen in one object: a repeated name keeps its first place and takes the
    /// last value.
    private struct MemberNames {
        private var index: [BytewiseString: Int] = [:]
        /// How many of the first names ``index`` holds.
        private var indexed = 0
        /// Whether the names so far came in strictly increasing byte order.
        private var increasing = true

        /// Where `key` already is among the first `count` names (`name(i)` gives each), or nil
        /// when it is new (it then becomes the name at `count`).
        mutating func position(of key: String, count: Int, name: (Int) -> String) -> Int? {
            // Names in strictly increasing byte order (a project file prefs wrote, an export)
            // cannot repeat: one comparison with the last name, and no index.
            if increasing {
                if count == 0 || BytewiseString.precedes(name(count - 1), key) { return nil }
                increasing = false
            }
            // Small objects: a linear scan beats hashing; large ones get an index.
            if count < 16 {
                for i in 0..<count where BytewiseString.equal(name(i), key) { return i }
                return nil
            }
            while indexed < count {
                index[BytewiseString(name(indexed))] = indexed
                indexed += 1
            }
            guard let existing = index.updateValue(count, forKey: BytewiseString(key)) else {
                indexed = count + 1
                return nil
            }
            index[BytewiseString(key)] = existing
            return existing
        }
    }

    private struct Cursor {
        let bytes: UnsafeBufferPointer<UInt8>
        /// ``JSONParser/maximumDepth`` plus the input's own wrapping levels.
        let maximumDepth: Int
        let validUTF8: Bool
        var position = 0
        let wrappingLevels: Int

        package init(bytes: UnsafeBufferPointer<UInt8>, wrappingLevels: Int, validUTF8: Bool) {
            self.bytes = bytes
            self.maximumDepth = JSONParser.maximumDepth + wrappingLevels
            self.validUTF8 = validUTF8
            self.wrappingLevels = wrappingLevels
        }

        /// What a too deep input is told (the wrapping levels are not the user's). Made only
        /// then: a cursor is made for every value parsed, and the text cost more than parsing one.
        var tooDeep: String {
            wrappingLevels == 0
                ? "nested deeper than \(JSONParser.maximumDepth) levels"
                : "a value nested deeper than \(JSONParser.maximumDepth) levels"
        }

        func failure(_ what: String) -> PrefsError {
            PrefsError(.invalidValue, "invalid JSON at byte \(position + 1): \(what)", reason: .invalidJSON)
        }

        var current: UInt8? { position < bytes.count ? bytes[position] : nil }

        mutating func skipWhitespace() {
            while let b = current, b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 { position += 1 }
        }

        mutating func parseValue(depth: Int) throws -> JSONValue {
            guard let b = current else { throw failure("unexpected end of input") }
            switch b {
            case UInt8(ascii: "{"): return try parseObject(depth: depth + 1)
            case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
            case UInt8(ascii: "\""): return .string(try parseString())
            case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
            case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
            case UInt8(ascii: "n"): try expectLiteral("null"); return .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
            default: throw failure("unexpected character")
            }
        }

        mutating func expectLiteral(_ literal: StaticString) throws {
            let count = literal.utf8CodeUnitCount
            guard position + count <= bytes.count else { throw failure("unexpected end of input") }
            for i in 0..<count where bytes[position + i] != literal.utf8Start[i] {
                throw failure("unexpected character")
            }
            position += count
        }

        mutating func parseObject(depth: Int) throws -> JSONValue {
            if depth > maximumDepth { throw failure(tooDeep) }
            position += 1
            var members: [JSONValue.Member] = []
            var names = MemberNames()
            skipWhitespace()
            if current == UInt8(ascii: "}") {
                position += 1
                return .object(members)
            }
            while true {
                skipWhitespace()
                guard current == UInt8(ascii: "\"") else { throw failure("expected a member name in quotes") }
                let key = try parseString()
                skipWhitespace()
                guard current == UInt8(ascii: ":") else { throw failure("expected ':' after a member name") }
                position += 1
                skipWhitespace()
                let value = try parseValue(depth: depth)
                if let existing = names.position(of: key, count: members.count, name: { members[$0].key }) {
                    members[existing].value = value
                } else {
                    members.append(JSONValue.Member(key, value))
                }
                skipWhitespace()
                switch current {
                case UInt8(ascii: ","): position += 1
                case UInt8(ascii: "}"): position += 1; return .object(members)
                case nil: throw failure("unexpected end of input in an object")
                default: throw failure("expected ',' or '}' in an object")
                }
            }
        }

        /// The members of the object at the cursor as (name, compact value text); nil when
        /// it is not well formed (the full parse reports it).
        mutating func parseMembersCompact(depth: Int) throws -> [(String, String)]? {
            if depth > maximumDepth { return nil }
            let start = position
            position += 1
            var members: [(String, String)] = []
            var scratch: [UInt8] = []
            // Names in strictly increasing byte order (an exported document) cannot repeat;
            // otherwise repeated names are merged afterwards.
            var increasing = true
            skipWhitespace()
            if current == UInt8(ascii: "}") {
                position += 1
                return members
            }
            while true {
                skipWhitespace()
                guard current == UInt8(ascii: "\"") else { return nil }
                let key = try parseString()
                skipWhitespace()
                guard current == UInt8(ascii: ":") else { return nil }
                position += 1
                skipWhitespace()
                let value = try compactValue(depth: depth, scratch: &scratch)
                if increasing, let last = members.last, !BytewiseString.precedes(last.0, key) { increasing = false }
                members.append((key, value))
                if members.count == 1_024 {
                    // A large object: room for the rest at the size of the members so far,
                    // instead of growing by doubling (every step copies the array).
                    let perMember = max((position - start) / members.count, 1)
                    members.reserveCapacity(members.count + (bytes.count - position) / perMember + 64)
                }
                skipWhitespace()
                switch current {
                case UInt8(ascii: ","): position += 1
                case UInt8(ascii: "}"):
                    position += 1
                    // Sized for the rest of the document, which held other objects too.
                    if members.capacity > 2 * members.count + 1_024 {
                        var exact: [(String, String)] = []
                        exact.reserveCapacity(members.count)
                        exact.append(contentsOf: members)
                        members = exact
                    }
                    return increasing ? members : Self.mergingRepeatedNames(members)
                default: return nil
                }
            }
        }

        /// Members with each repeated name once, in its first place, with its last value.
        static func mergingRepeatedNames(_ members: [(String, String)]) -> [(String, String)] {
            var names = MemberNames()
            var merged: [(String, String)] = []
            for (key, value) in members {
                if let existing = names.position(of: key, count: merged.count, name: { merged[$0].0 }) {
                    merged[existing].1 = value
                } else {
                    merged.append((key, value))
                }
            }
            return merged
        }

        /// The member names of the objects open during a scan, innermost last, kept in
        /// stack memory (a scan that needs more takes the full parse).
        private struct OpenNames {
            static let capacity = 64
            let storage: UnsafeMutableBufferPointer<Range<Int>>
            var count = 0
        }

        /// The compact text of the value at the cursor, as `parseValue(depth:).compactText`
        /// gives it, mostly without building the value: the common case (no escapes in
        /// strings, no repeated or many member names) is the input minus its whitespace,
        /// which often has none. `scratch` is a buffer reused from one value to the next.
        mutating func compactValue(depth: Int, scratch: inout [UInt8]) throws -> String {
            let start = position
            var high: UInt8 = 0
            var spaced = false
            let scanned = scanCompact(depth: depth, high: &high, spaced: &spaced)
            if scanned {
                let slice = UnsafeBufferPointer(rebasing: bytes[start..<position])
                if spaced {
                    // Strings here hold no quote or backslash: a quote starts or ends one.
                    scratch.removeAll(keepingCapacity: true)
                    var inString = false
                    for b in slice {
                        if b == UInt8(ascii: "\"") {
                            inString.toggle()
                        } else if !inString && (b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09) {
                            continue
                        }
                        scratch.append(b)
                    }
                    if let text = scratch.withUnsafeBufferPointer({ try? decodeUTF8($0, high: high) }) { return text }
                } else if let text = try? decodeUTF8(slice, high: high) {
                    return text
                }
            }
            // Anything else, including bad JSON (reported as the full parse reports it).
            position = start
            return try parseValue(depth: depth).compactText
        }

        /// Whether the whole input, from the cursor, is one value in its compact form.
        mutating func scansAsCompact() -> Bool {
            var high: UInt8 = 0
            var spaced = false
            return scanCompact(depth: 0, high: &high, spaced: &spaced) && !spaced && position == bytes.count
        }

        /// ``scanCompact(depth:names:high:spaced:)`` with the open names in stack memory.
        private mutating func scanCompact(depth: Int, high: inout UInt8, spaced: inout Bool) -> Bool {
            withUnsafeTemporaryAllocation(of: Range<Int>.self, capacity: OpenNames.capacity) { storage in
                var names = OpenNames(storage: storage)
                return scanCompact(depth: depth, names: &names, high: &high, spaced: &spaced)
            }
        }

        /// Moves past the value at the cursor; false when the input without its whitespace
        /// would not be the value's compact text (or it is not well formed). `spaced` is set
        /// when whitespace was skipped, `high` ORs the bytes of strings.
        private mutating func scanCompact(depth: Int, names: inout OpenNames, high: inout UInt8, spaced: inout Bool) -> Bool {
            guard let b = current else { return false }
            switch b {
            case UInt8(ascii: "\""):
                return scanString(high: &high) != nil
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                if depth + 1 > maximumDepth { return false }
                let isObject = b == UInt8(ascii: "{")
                let close = isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
                let firstName = names.count
                defer { names.count = firstName }
                position += 1
                skipWhitespace(noting: &spaced)
                if current == close {
                    position += 1
                    return true
                }
                while true {
                    skipWhitespace(noting: &spaced)
                    if isObject {
                        guard current == UInt8(ascii: "\""), let name = scanString(high: &high) else { return false }
                        // Repeated names (the last value wins, in the first place) and large
                        // objects (whose names need an index) take the full parse.
                        if names.count - firstName >= 32 || names.count == names.storage.count { return false }
                        for other in names.storage[firstName..<names.count] where other.count == name.count {
                            if let base = bytes.baseAddress, memcmp(base + other.lowerBound, base + name.lowerBound, name.count) == 0 {
                                return false
                            }
                        }
                        names.storage[names.count] = name
                        names.count += 1
                        skipWhitespace(noting: &spaced)
                        guard current == UInt8(ascii: ":") else { return false }
                        position += 1
                        skipWhitespace(noting: &spaced)
                    }
                    guard scanCompact(depth: depth + 1, names: &names, high: &high, spaced: &spaced) else { return false }
                    skipWhitespace(noting: &spaced)
                    guard let next = current else { return false }
                    position += 1
                    if next == close { return true }
                    guard next == UInt8(ascii: ",") else { return false }
                }
            case UInt8(ascii: "t"): return (try? expectLiteral("true")) != nil
            case UInt8(ascii: "f"): return (try? expectLiteral("false")) != nil
            case UInt8(ascii: "n"): return (try? expectLiteral("null")) != nil
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                return (try? skipNumber()) != nil
            default:
                return false
            }
        }

        private mutating func skipWhitespace(noting spaced: inout Bool) {
            let start = position
            skipWhitespace()
            if position != start { spaced = true }
        }

        /// Moves past a string whose bytes are its compact form (no escape, no DEL, no
        /// control character); returns the range of its content.
        private mutating func scanString(high: inout UInt8) -> Range<Int>? {
            guard let base = bytes.baseAddress else { return nil }
            let start = position + 1
            // A local index and OR over the bytes: this loop is most of checking a stored value.
            // Eight bytes at a time while none ends the string or would be escaped.
            var index = start
            var words: UInt64 = 0
            while index + 8 <= bytes.count {
                let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
                if JSONWriter.escapes(word) { break }
                words |= word
                index += 8
            }
            words |= words >> 32
            words |= words >> 16
            var bits = UInt8(truncatingIfNeeded: words | words >> 8)
            while index < bytes.count {
                let b = base[index]
                if b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") || b < 0x20 || b == 0x7F { break }
                bits |= b
                index += 1
            }
            high |= bits
            position = index
            guard index < bytes.count, base[index] == UInt8(ascii: "\"") else { return nil }
            position = index + 1
            return start..<index
        }

        mutating func parseArray(depth: Int) throws -> JSONValue {
            if depth > maximumDepth { throw failure(tooDeep) }
            position += 1
            var items: [JSONValue] = []
            skipWhitespace()
            if current == UInt8(ascii: "]") {
                position += 1
                return .array(items)
            }
            while true {
                skipWhitespace()
                items.append(try parseValue(depth: depth))
                skipWhitespace()
                switch current {
                case UInt8(ascii: ","): position += 1
                case UInt8(ascii: "]"): position += 1; return .array(items)
                case nil: throw failure("unexpected end of input in an array")
                default: throw failure("expected ',' or ']' in an array")
                }
            }
        }

        mutating func parseDigits() -> Int {
            let start = position
            while let b = current, b >= UInt8(ascii: "0"), b <= UInt8(ascii: "9") { position += 1 }
            return position - start
        }

        mutating func parseNumber() throws -> JSONValue {
            let start = position
            try skipNumber()
            return .number(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self))
        }

        /// Moves past a number, checking its grammar.
        mutating func skipNumber() throws {
            if current == UInt8(ascii: "-") { position += 1 }
            if current == UInt8(ascii: "0") {
                position += 1
                if let b = current, b >= UInt8(ascii: "0"), b <= UInt8(ascii: "9") {
                    throw failure("numbers may not have leading zeros")
                }
            } else if parseDigits() == 0 {
                throw failure("expected a digit")
            }
            if current == UInt8(ascii: ".") {
                position += 1
                if parseDigits() == 0 { throw failure("expected a digit after '.'") }
            }
            if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
                position += 1
                if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { position += 1 }
                if parseDigits() == 0 { throw failure("expected a digit in the exponent") }
            }
        }

        mutating func parseHex4() throws -> UInt32 {
            guard position + 4 <= bytes.count else { throw failure("unexpected end of input in a \\u escape") }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let b = bytes[position]
                let digit: UInt32
                switch b {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(b - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(b - UInt8(ascii: "a") + 10)
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(b - UInt8(ascii: "A") + 10)
                default: throw failure("bad hex digit in a \\u escape")
                }
                value = value << 4 | digit
                position += 1
            }
            return value
        }

        mutating func parseString() throws -> String {
            position += 1
            let start = position
            // Fast path: no escapes.
            var high: UInt8 = 0
            while let b = current, b != UInt8(ascii: "\""), b != UInt8(ascii: "\\"), b >= 0x20 {
                high |= b
                position += 1
            }
            if current == UInt8(ascii: "\"") {
                let s = try decodeUTF8(UnsafeBufferPointer(rebasing: bytes[start..<position]), high: high)
                position += 1
                return s
            }
            var buffer = Array(bytes[start..<position])
            while true {
                guard let b = current else { throw failure("unterminated string") }
                position += 1
                switch b {
                case UInt8(ascii: "\""):
                    return try decodeUTF8(buffer)
                case UInt8(ascii: "\\"):
                    guard let e = current else { throw failure("unterminated string") }
                    position += 1
                    switch e {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): buffer.append(e)
                    case UInt8(ascii: "b"): buffer.append(0x08)
                    case UInt8(ascii: "f"): buffer.append(0x0C)
                    case UInt8(ascii: "n"): buffer.append(0x0A)
                    case UInt8(ascii: "r"): buffer.append(0x0D)
                    case UInt8(ascii: "t"): buffer.append(0x09)
                    case UInt8(ascii: "u"):
                        var scalar = try parseHex4()
                        if scalar >= 0xD800 && scalar < 0xDC00 {
                            guard current == UInt8(ascii: "\\"), position + 1 < bytes.count,
                                bytes[position + 1] == UInt8(ascii: "u")
                            else { throw failure("unpaired surrogate in a \\u escape") }
                            position += 2
                            let low = try parseHex4()
                            guard low >= 0xDC00 && low < 0xE000 else { throw failure("unpaired surrogate in a \\u escape") }
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        } else if scalar >= 0xDC00 && scalar < 0xE000 {
                            throw failure("unpaired surrogate in a \\u escape")
                        }
                        guard let u = Unicode.Scalar(scalar) else { throw failure("invalid \\u escape") }
                        buffer.append(contentsOf: Array(String(Character(u)).utf8))
                    default:
                        throw failure("invalid escape sequence")
                    }
                default:
                    if b < 0x20 { throw failure("control character in a string must be escaped") }
                    buffer.append(b)
                }
            }
        }

        /// - Parameter high: the bytes OR-ed together; below 0x80, they are ASCII (valid).
        func decodeUTF8(_ slice: UnsafeBufferPointer<UInt8>, high: UInt8 = 0x80) throws -> String {
            let s = String(decoding: slice, as: UTF8.self)
            // A slice of valid UTF-8 between ASCII quotes is valid too.
            if validUTF8 || high < 0x80 { return s }
            // Decoding replaces invalid UTF-8 and never changes valid UTF-8: compare.
            guard BytewiseString.equal(s, slice) else { throw failure("string is not valid UTF-8") }
            return s
        }

        func decodeUTF8(_ buffer: [UInt8]) throws -> String {
            try buffer.withUnsafeBufferPointer { try decodeUTF8($0) }
        }
    }
}
