import PrefsBase

/// Where each value of a JSON text starts, by JSON path (`$.flags.f.targeting`, as
/// `JSONPath` writes paths, `[0]` for array items), for messages that name a line and a
/// column (the top-level `$evaluators` as `$.$evaluators`, as flag messages write it). The text
/// must already be valid JSON (``JSONParser`` checked it).
public struct JSONPositions: Sendable {
    private var offsets: [String: Int] = [:]
    private var lineStarts: [Int] = [0]

    /// Records the start of every value (at most `limit` of them, the first in document order).
    public init(_ bytes: [UInt8], limit: Int = 1_000_000) {
        for (index, byte) in bytes.enumerated() where byte == 0x0A { lineStarts.append(index + 1) }
        var scanner = Scanner(bytes: bytes, limit: limit)
        scanner.value(path: "$", depth: 0)
        offsets = scanner.offsets
    }

    /// The byte offset (from 0) of the value at `path`, or of its nearest enclosing value that
    /// exists.
    public func offset(of path: String) -> Int? {
        var current = path
        while true {
            if let offset = offsets[current] { return offset }
            guard let parent = Self.parent(of: current) else { return nil }
            current = parent
        }
    }

    /// The 1-based line and column (in bytes) of the value at `path` (see ``offset(of:)``).
    public func lineAndColumn(of path: String) -> (line: Int, column: Int)? {
        offset(of: path).map(lineAndColumn(atOffset:))
    }

    /// The 1-based line and column (in bytes) of a byte offset.
    public func lineAndColumn(atOffset offset: Int) -> (line: Int, column: Int) {
        var low = 0
        var high = lineStarts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if lineStarts[middle] <= offset { low = middle } else { high = middle - 1 }
        }
        return (low + 1, offset - lineStarts[low] + 1)
    }

    /// The 1-based line and column (in bytes) of a byte offset of any text (valid JSON or not).
    public static func lineAndColumn(in bytes: [UInt8], atOffset offset: Int) -> (line: Int, column: Int) {
        var line = 1
        var start = 0
        for index in 0..<min(offset, bytes.count) where bytes[index] == 0x0A {
            line += 1
            start = index + 1
        }
        return (line, offset - start + 1)
    }

    /// The path without its last component; nil for `$`.
    static func parent(of path: String) -> String? {
        guard path != "$", !path.isEmpty else { return nil }
        let bytes = Array(path.utf8)
        var index = bytes.count - 1
        if bytes[index] == UInt8(ascii: "]") {
            // `[12]` or `["odd name"]`: back to the `[` that opens it (a quoted name may hold
            // brackets: skip over the string).
            var inString = false
            while index > 0 {
                index -= 1
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") && !(index > 0 && bytes[index - 1] == UInt8(ascii: "\\")) { inString.toggle() }
                if byte == UInt8(ascii: "[") && !inString { break }
            }
        } else {
            while index > 0 && bytes[index] != UInt8(ascii: ".") { index -= 1 }
        }
        return String(decoding: bytes[..<index], as: UTF8.self)
    }

    private struct Scanner {
        let bytes: [UInt8]
        let limit: Int
        var position = 0
        var offsets: [String: Int] = [:]

        package init(bytes: [UInt8], limit: Int) {
            self.bytes = bytes
            self.limit = limit
        }

        var current: UInt8? { position < bytes.count ? bytes[position] : nil }

        mutating func skipWhitespace() {
            while let b = current, b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 { position += 1 }
        }

        package mutating func value(path: String, depth: Int) {
            skipWhitespace()
            guard let b = current, depth <= JSONParser.maximumDepth else { return }
            if offsets.count < limit, offsets[path] == nil { offsets[path] = position }
            switch b {
            case UInt8(ascii: "{"):
                position += 1
                while true {
                    skipWhitespace()
                    guard let c = current else { return }
                    if c == UInt8(ascii: "}") { position += 1; return }
                    if c == UInt8(ascii: ",") { position += 1; continue }
                    guard c == UInt8(ascii: "\"") else { position += 1; continue }
                    let name = string()
                    skipWhitespace()
                    if current == UInt8(ascii: ":") { position += 1 }
                    // flagd's `$evaluators` is written `$.$evaluators` in messages, as the flag checks do.
                    let component = depth == 0 && name == "$evaluators" ? ".$evaluators" : JSONPath.member(name)
                    value(path: path + component, depth: depth + 1)
                }
            case UInt8(ascii: "["):
                position += 1
                var index = 0
                while true {
                    skipWhitespace()
                    guard let c = current else { return }
                    if c == UInt8(ascii: "]") { position += 1; return }
                    if c == UInt8(ascii: ",") { position += 1; continue }
                    let before = position
                    value(path: path + "[\(index)]", depth: depth + 1)
                    if position == before { position += 1 }
                    index += 1
                }
            case UInt8(ascii: "\""):
                _ = string()
            default:
                while let c = current, c != UInt8(ascii: ","), c != UInt8(ascii: "}"), c != UInt8(ascii: "]"), c != 0x20, c != 0x0A,
                    c != 0x0D, c != 0x09
                {
                    position += 1
                }
            }
        }

        /// Reads a string at the current `"` and returns its text.
        mutating func string() -> String {
            let start = position
            position += 1
            var escaped = false
            while let c = current {
                position += 1
                if c == UInt8(ascii: "\\") { escaped = true; position += 1; continue }
                if c == UInt8(ascii: "\"") { break }
            }
            let raw = Array(bytes[(start + 1)..<max(start + 1, position - 1)])
            if !escaped { return String(decoding: raw, as: UTF8.self) }
            return (try? JSONValue(parsingUTF8: Array(bytes[start..<position])))?.stringValue ?? String(decoding: raw, as: UTF8.self)
        }
    }
}
