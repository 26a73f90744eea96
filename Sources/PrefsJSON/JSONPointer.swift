import PrefsBase

/// A JSON Pointer (RFC 6901): `/window/w`, `/tags/0`, `/a~1b` (member `a/b`), `/m~0n`
/// (member `m~n`); the empty pointer is the whole value. `prefs get|set --path` reads and
/// writes one member of a stored value with it; on a write, `-` as the last token appends to
/// an array.
///
/// ```swift
/// let pointer = try JSONPointer("/window/w")
/// let w = try pointer.value(in: try JSONValue(parsing: #"{"window":{"w":800}}"#))  // 800
/// ```
public struct JSONPointer: Sendable, Equatable, CustomStringConvertible {
    /// The reference tokens, unescaped.
    public let tokens: [String]
    /// The pointer as written.
    public let description: String

    /// Parses a pointer.
    ///
    /// - Throws: `PrefsError` of kind `usage` when it is neither empty nor starts with `/`, or
    ///   has a `~` not followed by `0` or `1`.
    public init(_ text: String) throws {
        description = text
        guard !text.isEmpty else {
            tokens = []
            return
        }
        guard text.hasPrefix("/") else {
            throw PrefsError(.usage, "the path \(JSONValue.string(text).compactText) is not a JSON Pointer: it starts with / (/window/w)")
        }
        var parsed: [String] = []
        for raw in text.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            var token = ""
            var index = raw.startIndex
            while index < raw.endIndex {
                let character = raw[index]
                index = raw.index(after: index)
                guard character == "~" else {
                    token.append(character)
                    continue
                }
                guard index < raw.endIndex, raw[index] == "0" || raw[index] == "1" else {
                    throw PrefsError(
                        .usage, "the path \(JSONValue.string(text).compactText) has a ~ that is not ~0 (~) or ~1 (/)")
                }
                token.append(raw[index] == "0" ? "~" : "/")
                index = raw.index(after: index)
            }
            parsed.append(token)
        }
        tokens = parsed
    }

    /// The value the pointer names in `root`.
    ///
    /// - Throws: `PrefsError` of kind `notFound` naming the first token that is missing.
    public func value(in root: JSONValue) throws -> JSONValue {
        var current = root
        for (depth, token) in tokens.enumerated() {
            current = try child(of: current, token, depth: depth)
        }
        return current
    }

    /// `root` with the value at the pointer replaced by `value`: an object member is replaced
    /// or added, an array item replaced, and `-` (or the index one past the end) appends to
    /// an array. The empty pointer replaces the whole value.
    ///
    /// - Throws: `PrefsError` of kind `notFound` when a container on the way is missing, or
    ///   is not an object or array.
    public func setting(_ value: JSONValue, in root: JSONValue) throws -> JSONValue {
        try set(value, in: root, depth: 0)
    }

    private func set(_ value: JSONValue, in container: JSONValue, depth: Int) throws -> JSONValue {
        guard depth < tokens.count else { return value }
        let token = tokens[depth]
        let last = depth == tokens.count - 1
        switch container {
        case .object(var members):
            if let index = members.lastIndex(where: { $0.key.utf8.elementsEqual(token.utf8) }) {
                members[index].value = try set(value, in: members[index].value, depth: depth + 1)
            } else if last {
                members.append(JSONValue.Member(token, value))
            } else {
                throw missing(depth)
            }
            return .object(members)
        case .array(var items):
            if last && (token == "-" || Self.index(token) == items.count) {
                items.append(value)
            } else if let index = Self.index(token), index < items.count {
                items[index] = try set(value, in: items[index], depth: depth + 1)
            } else {
                throw missing(depth)
            }
            return .array(items)
        default:
            throw notContainer(container, depth)
        }
    }

    private func child(of container: JSONValue, _ token: String, depth: Int) throws -> JSONValue {
        switch container {
        case .object:
            guard let value = container[token] else { throw missing(depth) }
            return value
        case .array(let items):
            guard let index = Self.index(token), index < items.count else { throw missing(depth) }
            return items[index]
        default:
            throw notContainer(container, depth)
        }
    }

    /// An array index as RFC 6901 writes it: `0` or digits without a leading zero.
    private static func index(_ token: String) -> Int? {
        guard !token.isEmpty, token.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), token == "0" || !token.hasPrefix("0") else {
            return nil
        }
        return Int(token)
    }

    /// The pointer's first `count` tokens, as written.
    private func prefix(_ count: Int) -> String {
        tokens.prefix(count).map { "/" + $0.replacingLiteral("~", with: "~0").replacingLiteral("/", with: "~1") }
            .joined()
    }

    private func missing(_ depth: Int) -> PrefsError {
        PrefsError(.notFound, "path \(description): \(prefix(depth + 1)) does not exist")
    }

    private func notContainer(_ value: JSONValue, _ depth: Int) -> PrefsError {
        let place = depth == 0 ? "the value" : prefix(depth)
        return PrefsError(.notFound, "path \(description): \(place) is a \(value.typeName), not an object or array")
    }
}
