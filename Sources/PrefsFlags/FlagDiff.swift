import FoundationEssentials
import PrefsBase
import PrefsJSON

/// What changing one set of flags for another does to a sample of contexts (`prefs flag diff`):
/// per flag, how many contexts get another variant, as a matrix of old → new outcomes.
///
/// ```swift
/// let diff = try FlagDiff.compare(old, new, contexts: .synthetic(count: 10_000, seed: 0))
/// for flag in diff.flags where flag.status != .unchanged { print(flag.key, flag.moved) }
/// ```
/// An outcome is the variant name, or in parentheses what gave no variant: `(default)` (the
/// caller's default), `(disabled)`, `(absent)` (no such flag),
/// `(error CODE)`. Each side is evaluated with its flag's ``FlagSet/naturalType(of:)`` and a
/// null default; `$flagd.timestamp` is the same for every evaluation.
public struct FlagDiff: Sendable {
    /// How a flag differs between the two sets.
    public enum Status: String, Sendable {
        /// Only in the new set.
        case added
        /// Only in the old set.
        case removed
        /// In both, and its definition differs or a context evaluates differently.
        case changed
        /// In both, the same definition, and every context evaluates the same.
        case unchanged
    }

    /// One cell of a flag's matrix: the contexts that went from one outcome to another.
    public struct Transition: Sendable, Equatable {
        /// The outcome under the old set.
        public var from: String
        /// The outcome under the new set.
        public var to: String
        /// The value under the old set.
        public var fromValue: JSONValue
        /// The value under the new set.
        public var toValue: JSONValue
        /// How many contexts.
        public var count: Int
        /// The first few of them.
        public var examples: [JSONValue]
        /// Whether these contexts see a difference (outcome or value).
        public var changes: Bool { from != to || fromValue != toValue }
    }

    /// One flag's comparison.
    public struct FlagChange: Sendable {
        /// The flag.
        public var key: String
        /// Added, removed, changed or unchanged.
        public var status: Status
        /// Whether the stored definitions differ.
        public var definitionChanged: Bool
        /// The contexts that see a difference.
        public var moved: Int
        /// Every cell, most contexts first.
        public var transitions: [Transition]
    }

    /// How many contexts were evaluated.
    public var contexts: Int
    /// How many flag evaluations that took (both sides).
    public var evaluations: Int
    /// Every flag of either set, in bytewise key order.
    public var flags: [FlagChange]

    /// Whether any flag was added, removed or changed.
    public var hasChanges: Bool { flags.contains { $0.status != .unchanged } }

    /// Evaluates every flag of either set for every context under both.
    ///
    /// - Parameters:
    ///   - examples: how many contexts to keep per cell.
    ///   - now: seconds since 1970 for `$flagd.timestamp`; nil: the current time.
    ///   - old: the flags before the change.
    ///   - new: the flags after it.
    ///   - contexts: the evaluation contexts, each evaluated under both.
    /// - Throws: ``PrefsError`` from reading the contexts (`invalidValue` with the line).
    public static func compare(_ old: FlagSet, _ new: FlagSet, contexts: EvaluationContexts, examples: Int = 3, now: Int64? = nil) throws
        -> FlagDiff
    {
        let seconds = now ?? WallClock.nowSeconds()
        let keys = Set(old.flags.keys).union(new.flags.keys).sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        struct Pair: Hashable {
            var from: String
            var to: String
        }
        struct Tally {
            var key: String
            var oldType: FlagType
            var newType: FlagType
            var oldValues: [String: JSONValue] = [:]
            var newValues: [String: JSONValue] = [:]
            var cells: [Pair: (count: Int, examples: [LogicValue])] = [:]
        }
        var tallies = keys.map { Tally(key: $0, oldType: old.naturalType(of: $0), newType: new.naturalType(of: $0)) }
        var count = 0
        try contexts.forEach { context in
            count += 1
            for index in tallies.indices {
                let key = tallies[index].key
                let before = old.evaluate(key, type: tallies[index].oldType, default: .null, context: context, now: seconds)
                let after = new.evaluate(key, type: tallies[index].newType, default: .null, context: context, now: seconds)
                let pair = Pair(from: outcome(before), to: outcome(after))
                if tallies[index].oldValues[pair.from] == nil { tallies[index].oldValues[pair.from] = before.value }
                if tallies[index].newValues[pair.to] == nil { tallies[index].newValues[pair.to] = after.value }
                if let cell = tallies[index].cells[pair], cell.examples.count >= examples {
                    tallies[index].cells[pair]?.count += 1
                } else {
                    var cell = tallies[index].cells[pair] ?? (0, [])
                    cell.count += 1
                    cell.examples.append(.object(context))
                    tallies[index].cells[pair] = cell
                }
            }
        }
        let flags = tallies.map { tally -> FlagChange in
            let transitions = tally.cells.map { pair, cell in
                Transition(
                    from: pair.from, to: pair.to, fromValue: tally.oldValues[pair.from] ?? .null,
                    toValue: tally.newValues[pair.to] ?? .null,
                    count: cell.count, examples: cell.examples.map(\.json))
            }.sorted { ($0.count, $1.from, $1.to) > ($1.count, $0.from, $0.to) }
            let moved = transitions.filter(\.changes).reduce(0) { $0 + $1.count }
            let before = old.flags[tally.key]
            let after = new.flags[tally.key]
            let definitionChanged = before?.definition != after?.definition
            let status: Status =
                before == nil ? .added : after == nil ? .removed : (definitionChanged || moved > 0) ? .changed : .unchanged
            return FlagChange(key: tally.key, status: status, definitionChanged: definitionChanged, moved: moved, transitions: transitions)
        }
        return FlagDiff(contexts: count, evaluations: 2 * count * keys.count, flags: flags)
    }

    /// The outcome name of a result: its variant, or what gave none in parentheses.
    public static func outcome(_ resolution: FlagResolution) -> String {
        if let variant = resolution.variant { return variant }
        switch resolution.errorCode {
        case "FLAG_NOT_FOUND"?: return "(absent)"
        case let code?: return "(error \(code))"
        case nil: return "(" + resolution.reason.lowercased() + ")"
        }
    }

    /// The comparison as one JSON object: `contexts`, `evaluations`, `changed` (true when any
    /// flag differs) and `flags`, each with `key`, `status`, `definitionChanged`, `moved`,
    /// `movedPercent` and `transitions` (`from`, `to`, `fromValue`, `toValue`, `count`,
    /// `percent`, `examples`).
    public var json: JSONValue {
        .object([
            .init("contexts", .number(String(contexts))), .init("evaluations", .number(String(evaluations))),
            .init("changed", .bool(hasChanges)),
            .init(
                "flags",
                .array(
                    flags.map { flag in
                        .object([
                            .init("key", .string(flag.key)), .init("status", .string(flag.status.rawValue)),
                            .init("definitionChanged", .bool(flag.definitionChanged)), .init("moved", .number(String(flag.moved))),
                            .init("movedPercent", .number(Self.percent(flag.moved, of: contexts))),
                            .init(
                                "transitions",
                                .array(
                                    flag.transitions.map { cell in
                                        .object([
                                            .init("from", .string(cell.from)), .init("to", .string(cell.to)),
                                            .init("fromValue", cell.fromValue),
                                            .init("toValue", cell.toValue), .init("count", .number(String(cell.count))),
                                            .init("percent", .number(Self.percent(cell.count, of: contexts))),
                                            .init("changes", .bool(cell.changes)), .init("examples", .array(cell.examples)),
                                        ])
                                    })),
                        ])
                    })),
        ])
    }

    /// `part` as a percentage of `whole` with one decimal (`12.3`).
    public static func percent(_ part: Int, of whole: Int) -> String {
        guard whole > 0 else { return "0" }
        return LogicValue.format((Double(part) * 1000 / Double(whole)).rounded() / 10)
    }
}
