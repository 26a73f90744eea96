import PrefsBase
import PrefsJSON

/// One step of a traced flag evaluation (`prefs flag explain`): a JSONLogic node with what it
/// was given, what it decided and its result.
public struct FlagTraceNode: Sendable, Equatable {
    /// What the node is: an operator (`if`, `var`, `fractional`), `$ref NAME`, `literal` or `array`.
    public var label: String
    /// The node's result (numbers as JavaScript prints them; NaN and infinities as null).
    public var result: JSONValue
    /// What the node found or decided, in words: the branch taken, the value found, the
    /// parsed versions, the bucket.
    public var notes: [String]
    /// The same for tools (`--json`): for example `fractional`'s hash, bucket and ranges.
    public var details: [JSONValue.Member]
    /// The nodes evaluated for this one, in order (operands not evaluated are absent).
    public var children: [FlagTraceNode]

    /// Creates a node.
    public init(label: String, result: JSONValue, notes: [String] = [], details: [JSONValue.Member] = [], children: [FlagTraceNode] = []) {
        self.label = label
        self.result = result
        self.notes = notes
        self.details = details
        self.children = children
    }

    /// The node and its children as one JSON object.
    public var json: JSONValue {
        var members: [JSONValue.Member] = [.init("node", .string(label)), .init("result", result)]
        if !notes.isEmpty { members.append(.init("notes", .array(notes.map(JSONValue.string)))) }
        if !details.isEmpty { members.append(.init("details", .object(details))) }
        if !children.isEmpty { members.append(.init("children", .array(children.map(\.json)))) }
        return .object(members)
    }

    /// The tree as indented lines, one per node: `label → result   # notes`.
    public func lines(prefix: String = "", childPrefix: String = "") -> [String] {
        let shown = label == "literal" ? result.compactText : "\(label) → \(result.compactText)"
        var output = [prefix + Self.shortened(shown) + (notes.isEmpty ? "" : "   # " + notes.joined(separator: "; "))]
        for (index, child) in children.enumerated() {
            let last = index == children.count - 1
            output += child.lines(prefix: childPrefix + (last ? "└─ " : "├─ "), childPrefix: childPrefix + (last ? "   " : "│  "))
        }
        return output
    }

    /// A long value shortened for a terminal line.
    static func shortened(_ text: String, limit: Int = 160) -> String {
        text.count > limit ? String(text.prefix(limit)) + "…" : text
    }
}
