import FoundationEssentials
import PrefsBase
import PrefsJSON

extension FlagSet {
    /// The type a flag is evaluated as when the caller gives none (explain, diff, stats): its
    /// variants' type (numbers as float), a static flag's value type; object for mixed ones.
    public func naturalType(of key: String) -> FlagType {
        guard let flag = flags[key] else { return .object }
        let type = flag.isStatic ? flag.definition.typeName : flag.variantType
        switch type {
        case "boolean": return .boolean
        case "string": return .string
        case "number": return .float
        default: return .object
        }
    }

    /// The keys of the flags, in bytewise order.
    public var sortedKeys: [String] {
        flags.keys.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
    }

    /// Evaluates a flag as ``evaluate(_:type:default:context:targetingKey:now:)`` does and
    /// explains the result: the steps before targeting and the targeting rule traced node by
    /// node. The result is that of `evaluate` with the same arguments.
    ///
    /// ```swift
    /// let why = flags.explain("new-checkout", context: ["email": .string("ada@example.com")])
    /// print(why.text)
    /// ```
    /// - Parameters:
    ///   - type: nil: ``naturalType(of:)``.
    ///   - now: seconds since 1970 for `$flagd.timestamp`; nil: the current time.
    ///   - key: the flag.
    ///   - defaultValue: what the caller gets when evaluation fails.
    ///   - context: the evaluation context (a JSON object).
    ///   - targetingKey: overrides the context's `targetingKey`.
    public func explain(
        _ key: String, type: FlagType? = nil, default defaultValue: JSONValue = .null, context: [String: LogicValue] = [:],
        targetingKey: String? = nil, now: Int64? = nil
    ) -> FlagExplanation {
        let seconds = now ?? WallClock.nowSeconds()
        let type = type ?? naturalType(of: key)
        let resolution = evaluate(key, type: type, default: defaultValue, context: context, targetingKey: targetingKey, now: seconds)
        var data = context
        if let targetingKey, !targetingKey.isEmpty { data["targetingKey"] = .string(targetingKey) }
        data["$flagd"] = .object(["flagKey": .string(key), "timestamp": .number(Double(seconds))])
        var explanation = FlagExplanation(
            key: key, resolution: resolution, steps: [], trace: nil, truncated: false, data: LogicValue.object(data).json)
        guard let flag = flags[key] else {
            explanation.steps = ["no such flag: the caller's default (FLAG_NOT_FOUND)"]
            return explanation
        }
        if flag.isStatic {
            explanation.steps = ["a plain value of switch, not a flagd definition: STATIC"]
            return finish(explanation, type: type)
        }
        if flag.state == "DISABLED" {
            explanation.steps = ["the flag is DISABLED: targeting does not run, the caller's default"]
            return explanation
        }
        let defaultText = flag.defaultVariant.map { "the default variant \(JSONValue.string($0).compactText)" } ?? "no default variant"
        guard let targeting = flag.definition["targeting"], targeting != .object([]), targeting != .null else {
            explanation.steps = ["the flag is ENABLED", "no targeting: \(defaultText)"]
            return finish(explanation, type: type)
        }
        explanation.steps = ["the flag is ENABLED with targeting (\(defaultText))"]
        var table: [String: JSONValue] = [:]
        for member in evaluators { table[member.key] = member.value }
        var compiler = RuleCompiler(evaluators: table)
        compiler.marksReferences = true
        let logic: JSONLogic
        do throws(RuleCompiler.Failure) {
            logic = JSONLogic(root: try compiler.compile(targeting).node, fractionalVersion: fractionalVersion)
        } catch {
            explanation.steps.append(
                "the targeting cannot be compiled: \(error.describe(root: "$.flags" + JSONPath.member(key) + ".targeting"))")
            return explanation
        }
        var tracer = RuleTracer(logic: logic)
        do throws(RuleError) {
            let (outcome, trace) = try tracer.trace(.object(data))
            explanation.trace = trace
            explanation.truncated = tracer.truncated
            switch outcome {
            case .null: explanation.steps.append("targeting returned null: \(defaultText)")
            case .string(let name): explanation.steps.append("targeting returned \(JSONValue.string(name).compactText)")
            case .bool(let b): explanation.steps.append("targeting returned \(b): the variant named \"\(b)\"")
            case .number(let n) where n.isFinite:
                let name = LogicValue.format(n)
                explanation.steps.append("targeting returned \(name): the variant named \"\(name)\"")
            default: explanation.steps.append("targeting returned \(FlagTraceNode.shortened(outcome.json.compactText)), not a variant name")
            }
        } catch {
            explanation.steps.append("targeting stopped: \(error.message)")
        }
        return finish(explanation, type: type)
    }

    private func finish(_ explanation: FlagExplanation, type: FlagType) -> FlagExplanation {
        var explanation = explanation
        if explanation.resolution.errorCode == "TYPE_MISMATCH" {
            explanation.steps.append("the value is not of the type asked for (\(type.rawValue)): the caller's default")
        }
        return explanation
    }
}

extension FlagSet {
    /// The shares a flag's `fractional` is configured to give, in percent: the first
    /// `fractional` found in its targeting (through `$ref`s) whose buckets are literal
    /// `[variant, weight]` pairs, or the first `rollout` with literal times and sides (the
    /// share of its window elapsed at `now` for `to`, the rest for `from`); nil when there is
    /// none.
    public func configuredShares(of key: String, now: Int64? = nil) -> [(variant: String, percent: Double)]? {
        guard let flag = flags[key], let targeting = flag.definition["targeting"] else { return nil }
        let seconds = now ?? WallClock.nowSeconds()
        var table: [String: JSONValue] = [:]
        for member in evaluators { table[member.key] = member.value }
        var visited: Set<String> = []
        var budget = 100_000
        func find(_ rule: JSONValue, depth: Int) -> [(String, Double)]? {
            budget -= 1
            guard budget > 0, depth < JSONParser.maximumDepth else { return nil }
            switch rule {
            case .object(let members) where members.count == 1:
                if members[0].key == "$ref" {
                    guard let name = members[0].value.stringValue, let target = table[name], visited.insert(name).inserted else {
                        return nil
                    }
                    return find(target, depth: depth + 1)
                }
                if members[0].key == "fractional", case .array(let args) = members[0].value, let shares = Self.weights(args) {
                    return shares
                }
                if members[0].key == "rollout", case .array(let args) = members[0].value,
                    let shares = Self.rolloutShares(args, now: seconds, defaultVariant: flag.defaultVariant)
                {
                    return shares
                }
                return find(members[0].value, depth: depth + 1)
            case .array(let items):
                for item in items { if let found = find(item, depth: depth + 1) { return found } }
                return nil
            default: return nil
            }
        }
        guard let weights = find(targeting, depth: 0) else { return nil }
        let total = weights.reduce(0) { $0 + $1.1 }
        guard total > 0 else { return nil }
        return weights.map { ($0.0, $0.1 * 100 / total) }
    }

    /// A `rollout`'s sides with literal times and names: `from` gets the share of the window
    /// not yet elapsed, `to` the share elapsed (as whole seconds, the way buckets are drawn).
    private static func rolloutShares(_ args: [JSONValue], now: Int64, defaultVariant: String?) -> [(String, Double)]? {
        guard let first = args.first else { return nil }
        var index = 0
        switch first {
        case .number: break
        case .null, .object: index = 1
        default: return nil
        }
        guard args.count >= index + 3, case .number(let startText) = args[index], case .number(let endText) = args[index + 1],
            let start = Double(startText).map({ $0.rounded(.towardZero) }), let end = Double(endText).map({ $0.rounded(.towardZero) }),
            end > start
        else { return nil }
        func name(_ value: JSONValue) -> String? {
            switch value {
            case .string(let s): s
            case .bool(let b): b ? "true" : "false"
            default: nil
            }
        }
        let shorthand = args.count == index + 3
        guard let to = name(args[shorthand ? index + 2 : index + 3]), let from = shorthand ? defaultVariant : name(args[index + 2]) else {
            return nil
        }
        let elapsed = min(max(Double(now) - start, 0), end - start)
        let rolled = elapsed / (end - start) * 100
        if from == to { return [(to, 100)] }
        return [(from, 100 - rolled), (to, rolled)]
    }

    private static func weights(_ args: [JSONValue]) -> [(String, Double)]? {
        var buckets = args[...]
        if let first = args.first, case .array = first {} else { buckets = args.dropFirst() }
        var result: [(String, Double)] = []
        for bucket in buckets {
            guard case .array(let parts) = bucket, (1...2).contains(parts.count) else { return nil }
            let name: String
            switch parts[0] {
            case .string(let s): name = s
            case .bool(let b): name = b ? "true" : "false"
            default: return nil
            }
            var weight = 1.0
            if parts.count == 2 {
                guard case .number(let text) = parts[1], let w = Double(text) else { return nil }
                weight = max(w, 0)
            }
            result.append((name, weight))
        }
        return result.isEmpty ? nil : result
    }
}
