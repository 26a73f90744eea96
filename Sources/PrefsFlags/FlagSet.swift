import FoundationEssentials
import PrefsBase
import PrefsJSON

/// The type a flag evaluation asks for (OpenFeature's resolver types).
public enum FlagType: String, Sendable, CaseIterable {
    case boolean, string, integer, float, object

    package func matches(_ value: JSONValue) -> Bool {
        switch (self, value) {
        case (.boolean, .bool), (.string, .string), (.float, .number), (.object, .object): true
        // OpenFeature's integers are 64-bit: 2.0 is one, 1e20, 9223372036854775808 and 1e999 are not.
        case (.integer, .number(let text)): Int64(text) != nil || Double(text).flatMap { Int64(exactly: $0) } != nil
        default: false
        }
    }
}

/// The result of evaluating a flag, with flagd's fields.
public struct FlagResolution: Sendable, Equatable {
    /// The value: the selected variant's, or the caller's default.
    public var value: JSONValue
    /// The selected variant, when there is one (a static flag's is ``FlagSet/staticVariant``).
    public var variant: String?
    /// STATIC, DEFAULT, TARGETING_MATCH, DISABLED or ERROR.
    public var reason: String
    /// FLAG_NOT_FOUND, PARSE_ERROR, TYPE_MISMATCH or GENERAL when the reason is ERROR.
    public var errorCode: String?
    /// What went wrong, when something did.
    public var errorMessage: String?
    /// Flag-set metadata with the flag's own merged over it.
    public var metadata: [JSONValue.Member]

    /// The result as one compact JSON object (`prefs flag eval --json`).
    public var json: String {
        JSONValue.object([
            .init("value", value), .init("variant", variant.map(JSONValue.string) ?? .null), .init("reason", .string(reason)),
            .init("errorCode", errorCode.map(JSONValue.string) ?? .null),
            .init("errorMessage", errorMessage.map(JSONValue.string) ?? .null), .init("metadata", .object(metadata)),
        ]).compactText
    }
}

/// The flags of the `switch` domain, compiled for evaluation.
///
/// ```swift
/// let flags = try stack.flags.flagSet()
/// let result = flags.evaluate("new-checkout", type: .boolean, default: .bool(false),
///                             context: ["email": .string("ada@example.com")])
/// ```
public struct FlagSet: Sendable {
    /// One flag definition (or a static value).
    public struct Flag: Sendable {
        /// The flag's key.
        public var key: String
        /// The definition as stored.
        public var definition: JSONValue
        /// Whether the stored value is a plain JSON value rather than a flagd definition.
        public var isStatic: Bool
        /// ENABLED or DISABLED.
        public var state: String
        /// Variant names and values, in order.
        public var variants: [JSONValue.Member]
        /// The default variant, if any.
        public var defaultVariant: String?
        /// The targeting rule with `$ref`s expanded, if any.
        var rule: Result<JSONLogic, RuleError>?
        /// The flag's own metadata.
        public var metadata: [JSONValue.Member]

        /// Whether the flag has a targeting rule.
        public var hasTargeting: Bool { rule != nil }

        /// The variants' type: boolean, string, number, object (or mixed).
        public var variantType: String {
            let types = Set(variants.map(\.value.typeName))
            return types.count == 1 ? types.first ?? "none" : "mixed"
        }

        func variant(_ name: String) -> JSONValue? {
            variants.first { BytewiseString.equal($0.key, name) }?.value
        }
    }

    /// The flags by key.
    public private(set) var flags: [String: Flag] = [:]
    /// The flag set's metadata.
    public var metadata: [JSONValue.Member] = []
    /// The shared evaluators (`$evaluators`).
    public var evaluators: [JSONValue.Member] = []
    /// Which hashing `fractional` uses.
    public var fractionalVersion: FractionalVersion

    /// The variant name of a static flag (a plain value of `switch`): what `flag eval --json`,
    /// OFREP's single and bulk answers, `flag list` and `flag export` call its one variant.
    public static let staticVariant = "static"
    /// The key under which the `$evaluators` of an imported document are stored.
    public static let evaluatorsKey = "$evaluators"
    /// The key under which the flag-set metadata of an imported document is stored.
    public static let metadataKey = "$metadata"

    /// Builds a flag set from the `switch` domain's entries (key → stored JSON).
    public init(entries: [(key: String, value: JSONValue)], fractionalVersion: FractionalVersion = .default) {
        self.fractionalVersion = fractionalVersion
        var evaluators: [String: JSONValue] = [:]
        for entry in entries {
            if entry.key == Self.evaluatorsKey, let members = entry.value.objectMembers {
                self.evaluators = members
                for member in members { evaluators[member.key] = member.value }
            } else if entry.key == Self.metadataKey, let members = entry.value.objectMembers {
                metadata = members
            }
        }
        // One compiler for all flags: each evaluator is compiled once and shared.
        var compiler = RuleCompiler(evaluators: evaluators)
        for entry in entries where entry.key != Self.evaluatorsKey && entry.key != Self.metadataKey {
            flags[entry.key] = Self.flag(entry.key, entry.value, compiler: &compiler, fractionalVersion: fractionalVersion)
        }
    }

    /// Whether a stored value is a flagd flag definition.
    public static func isDefinition(_ value: JSONValue) -> Bool {
        value["state"]?.stringValue != nil && value["variants"]?.objectMembers != nil
    }

    static func flag(_ key: String, _ value: JSONValue, compiler: inout RuleCompiler, fractionalVersion: FractionalVersion) -> Flag {
        guard isDefinition(value) else {
            return Flag(
                key: key, definition: value, isStatic: true, state: "ENABLED", variants: [], defaultVariant: nil, rule: nil, metadata: [])
        }
        var rule: Result<JSONLogic, RuleError>?
        if let targeting = value["targeting"], targeting != .object([]), targeting != .null {
            do throws(RuleCompiler.Failure) {
                rule = .success(JSONLogic(root: try compiler.compile(targeting).node, fractionalVersion: fractionalVersion))
            } catch {
                rule = .failure(RuleError(message: error.describe(root: "$.flags" + JSONPath.member(key) + ".targeting")))
            }
        }
        return Flag(
            key: key, definition: value, isStatic: false, state: value["state"]?.stringValue ?? "DISABLED",
            variants: value["variants"]?.objectMembers ?? [], defaultVariant: value["defaultVariant"]?.stringValue, rule: rule,
            metadata: value["metadata"]?.objectMembers ?? [])
    }

    /// Evaluates a flag with flagd's rules.
    ///
    /// - Parameters:
    ///   - key: the flag.
    ///   - type: the type the caller expects.
    ///   - defaultValue: the caller's default (answered on errors, DISABLED and DEFAULT).
    ///   - context: the evaluation context (an object's members).
    ///   - targetingKey: overrides the context's `targetingKey`; an empty one does not.
    ///   - now: seconds since 1970 for `$flagd.timestamp`.
    public func evaluate(
        _ key: String, type: FlagType, default defaultValue: JSONValue, context: [String: LogicValue] = [:],
        targetingKey: String? = nil, now: Int64? = nil
    ) -> FlagResolution {
        var budget = EvaluationBudget.unlimited
        return resolve(key, type: type, default: defaultValue, context: context, targetingKey: targetingKey, now: now, budget: &budget)
    }

    /// Evaluates a flag with flagd's rules without asking for a type, as a remote
    /// evaluation service does (OFREP: the client checks the type): the same result as
    /// ``evaluate(_:type:default:context:targetingKey:now:)`` with the flag's own type, never
    /// TYPE_MISMATCH. `value` is `null` where the caller's default would be answered
    /// (`variant` nil and reason DISABLED, DEFAULT or ERROR).
    public func evaluateAnyType(
        _ key: String, context: [String: LogicValue] = [:], targetingKey: String? = nil, now: Int64? = nil
    ) -> FlagResolution {
        var budget = EvaluationBudget.unlimited
        return resolve(key, type: nil, default: .null, context: context, targetingKey: targetingKey, now: now, budget: &budget)
    }

    /// ``evaluateAnyType(_:context:targetingKey:now:)`` spending its targeting's steps from a
    /// budget shared with other evaluations (a server's request): when the budget runs out the
    /// answer is a `GENERAL` error and `budget.exceeded` is true.
    public func evaluateAnyType(
        _ key: String, context: [String: LogicValue] = [:], targetingKey: String? = nil, now: Int64? = nil,
        budget: inout EvaluationBudget
    ) -> FlagResolution {
        resolve(key, type: nil, default: .null, context: context, targetingKey: targetingKey, now: now, budget: &budget)
    }

    /// The evaluation context as `FlagStore.evaluate(_:type:default:context:targetingKey:fractionalVersion:)`
    /// reads it: an object's members, an empty `targetingKey` dropped (absent).
    ///
    /// - Throws: ``PrefsError`` of kind `invalidValue` when the context is not an object.
    public static func context(_ context: JSONValue) throws -> [String: LogicValue] {
        guard case .object(let members) = context else {
            throw PrefsError(.invalidValue, "the evaluation context must be a JSON object, got \(context.typeName)")
        }
        var data: [String: LogicValue] = [:]
        for member in members { data[member.key] = LogicValue(member.value) }
        // An empty targeting key is absent, as flagd's providers treat it: the rule does not see it.
        if data["targetingKey"] == .string("") { data["targetingKey"] = nil }
        return data
    }

    private func resolve(
        _ key: String, type: FlagType?, default defaultValue: JSONValue, context: [String: LogicValue], targetingKey: String?,
        now: Int64?, budget: inout EvaluationBudget
    ) -> FlagResolution {
        guard let flag = flags[key] else {
            return FlagResolution(
                value: defaultValue, variant: nil, reason: "ERROR", errorCode: "FLAG_NOT_FOUND",
                errorMessage: "flag \(JSONValue.string(key).compactText) not found", metadata: [])
        }
        var merged = metadata
        for member in flag.metadata {
            if let index = merged.firstIndex(where: { $0.key == member.key }) { merged[index] = member } else { merged.append(member) }
        }
        func result(_ value: JSONValue, _ variant: String?, _ reason: String) -> FlagResolution {
            if let type, !type.matches(value) {
                return FlagResolution(
                    value: defaultValue, variant: nil, reason: "ERROR", errorCode: "TYPE_MISMATCH",
                    errorMessage: "flag \(key) has a \(value.typeName) value, not \(type.rawValue)", metadata: merged)
            }
            var value = value
            // Read as an integer, a whole float is that integer (`0.0` is `0`), as flagd's Go
            // ResolveIntValue converts it.
            if type == .integer, case .number(let text) = value, Int64(text) == nil,
                let whole = Double(text).flatMap({ Int64(exactly: $0) })
            {
                value = .number(String(whole))
            }
            return FlagResolution(value: value, variant: variant, reason: reason, errorCode: nil, errorMessage: nil, metadata: merged)
        }
        func error(_ code: String, _ message: String) -> FlagResolution {
            FlagResolution(value: defaultValue, variant: nil, reason: "ERROR", errorCode: code, errorMessage: message, metadata: merged)
        }
        if flag.isStatic { return result(flag.definition, Self.staticVariant, "STATIC") }
        if flag.state == "DISABLED" {
            return FlagResolution(
                value: defaultValue, variant: nil, reason: "DISABLED", errorCode: nil, errorMessage: nil, metadata: merged)
        }
        func defaultAnswer(_ reason: String) -> FlagResolution {
            if let name = flag.defaultVariant, let value = flag.variant(name) { return result(value, name, reason) }
            return FlagResolution(value: defaultValue, variant: nil, reason: "DEFAULT", errorCode: nil, errorMessage: nil, metadata: merged)
        }
        guard let rule = flag.rule else { return defaultAnswer("STATIC") }
        let logic: JSONLogic
        switch rule {
        case .success(let compiled): logic = compiled
        case .failure(let failure): return error("PARSE_ERROR", failure.message)
        }
        var data = context
        // An empty targeting key is absent, as flagd's providers treat it (the Python SDK's
        // `if targeting_key:`): it does not override the context's. (An empty one in the
        // context is dropped where the context is read: FlagStore.evaluate.)
        if let targetingKey, !targetingKey.isEmpty { data["targetingKey"] = .string(targetingKey) }
        let seconds = now ?? WallClock.nowSeconds()
        data["$flagd"] = .object(["flagKey": .string(key), "timestamp": .number(Double(seconds))])
        let outcome: LogicValue
        do {
            outcome = try logic.evaluate(checking: .object(data), budget: &budget)
        } catch let failure {
            return error("GENERAL", "targeting of \(JSONValue.string(key).compactText): \(failure.message)")
        }
        let name: String
        switch outcome {
        case .null: return defaultAnswer("DEFAULT")
        case .string(let s): name = s
        case .bool(let b): name = b ? "true" : "false"
        // A number names the variant of its JSON text (`3`, `1.5`), as flagd's Go evaluator
        // (and the Python core) read a targeting result.
        case .number(let n) where n.isFinite: name = LogicValue.format(n)
        default: return error("GENERAL", "targeting returned \(outcome.json.compactText), not a variant name")
        }
        guard let value = flag.variant(name) else {
            return error("GENERAL", "targeting returned \(JSONValue.string(name).compactText), which is not a variant")
        }
        return result(value, name, "TARGETING_MATCH")
    }
}
