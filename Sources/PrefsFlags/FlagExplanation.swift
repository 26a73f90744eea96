import PrefsBase
import PrefsJSON

/// Why a flag evaluated as it did (`prefs flag explain`): the decisions before targeting, the
/// targeting rule as a tree of traced nodes, and the result exactly as ``FlagSet/evaluate(_:type:default:context:targetingKey:now:)``
/// gives it.
public struct FlagExplanation: Sendable {
    /// The flag.
    public var key: String
    /// The result: the same value, variant, reason and error as `flag eval`.
    public var resolution: FlagResolution
    /// The decisions in order, in words ("the flag is ENABLED", "targeting returned \"on\"").
    public var steps: [String]
    /// The targeting rule as evaluated, when it ran.
    public var trace: FlagTraceNode?
    /// Whether the trace stopped recording at the tracer's limit (10,000 nodes).
    public var truncated: Bool
    /// The data the rule saw: the context with `targetingKey` and `$flagd` set.
    public var data: JSONValue

    /// The explanation as plain text for people.
    public var text: String {
        var lines = ["flag \(JSONValue.string(key).compactText)"]
        lines += steps.map { "  " + $0 }
        if let trace {
            lines.append("targeting:")
            lines += trace.lines(prefix: "  ", childPrefix: "  ")
            if truncated { lines.append("  … (the trace stops at \(RuleTracer.maximumNodes) nodes; the rest was evaluated unrecorded)") }
        }
        lines.append("result:")
        lines.append("  value    \(FlagTraceNode.shortened(resolution.value.compactText))")
        lines.append("  variant  \(resolution.variant.map { JSONValue.string($0).compactText } ?? "-")")
        lines.append("  reason   \(resolution.reason)")
        if let code = resolution.errorCode { lines.append("  error    \(code): \(resolution.errorMessage ?? "")") }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The explanation as one JSON object: `flag`, `value`, `variant`, `reason`, `errorCode`,
    /// `errorMessage`, `metadata` (as `flag eval --json`), `steps`, `context` and `trace`.
    public var json: JSONValue {
        .object([
            .init("flag", .string(key)), .init("value", resolution.value),
            .init("variant", resolution.variant.map(JSONValue.string) ?? .null), .init("reason", .string(resolution.reason)),
            .init("errorCode", resolution.errorCode.map(JSONValue.string) ?? .null),
            .init("errorMessage", resolution.errorMessage.map(JSONValue.string) ?? .null), .init("metadata", .object(resolution.metadata)),
            .init("steps", .array(steps.map(JSONValue.string))), .init("context", data), .init("trace", trace?.json ?? .null),
            .init("truncated", .bool(truncated)),
        ])
    }
}
