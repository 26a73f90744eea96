import FoundationEssentials
import PrefsBase
import PrefsJSON

/// Evaluates a compiled rule as ``JSONLogic`` does while recording every node
/// (`prefs flag explain`). A separate path: plain evaluation carries no tracing cost.
///
/// Each operator's result comes from ``JSONLogic``'s own `apply` given the traced operands as
/// literals, so the values are the evaluator's; only the order of evaluation (`if`, `and`,
/// `or`, `var`'s default) is repeated here. The operands of `map`, `filter`, `all`, `none`,
/// `some` and `reduce` are traced, their per-item rule is not. At most ``maximumNodes`` nodes
/// are recorded; the rest is evaluated without a record.
struct RuleTracer {
    /// The most nodes one trace records.
    static let maximumNodes = 10_000

    let logic: JSONLogic
    /// The budget of plain evaluation three times over: tracing evaluates operands once for
    /// the record and once more inside `apply` (as literals).
    var budget = JSONLogic.Budget(remaining: 3 * JSONLogic.evaluationBudget)
    private(set) var recorded = 0
    private(set) var truncated = false

    package init(logic: JSONLogic) {
        self.logic = logic
    }

    /// Traces the whole rule: its result and the root of the record.
    mutating func trace(_ data: LogicValue) throws(RuleError) -> (LogicValue, FlagTraceNode?) {
        do {
            return try trace(logic.root, data)
        } catch let error as RuleError {
            throw error
        } catch {
            throw RuleError(message: "\(error)")
        }
    }

    private mutating func trace(_ node: JSONLogic.Node, _ data: LogicValue) throws -> (LogicValue, FlagTraceNode?) {
        guard recorded < Self.maximumNodes else {
            truncated = true
            return (try logic.eval(node, data, &budget), nil)
        }
        recorded += 1
        try budget.charge(1)
        switch node {
        case .literal(let value):
            return (value, FlagTraceNode(label: "literal", result: value.json))
        case .array(let items):
            var values: [LogicValue] = []
            var children: [FlagTraceNode] = []
            for item in items {
                let (value, child) = try trace(item, data)
                values.append(value)
                if let child { children.append(child) }
            }
            let value = LogicValue.array(values)
            try budget.charge(built: value)
            return (value, FlagTraceNode(label: "array", result: value.json, children: children))
        case .reference(let name, let rule):
            let (value, child) = try trace(rule, data)
            return (
                value,
                FlagTraceNode(
                    label: "$ref " + JSONValue.string(name).compactText, result: value.json, notes: ["evaluator \(name)"],
                    children: child.map { [$0] } ?? [])
            )
        case .op(let op, let args):
            return try traceOperator(op, args, data)
        }
    }

    private mutating func traceOperator(_ op: JSONLogic.Operator, _ args: [JSONLogic.Node], _ data: LogicValue) throws -> (
        LogicValue, FlagTraceNode?
    ) {
        var children: [FlagTraceNode] = []
        var notes: [String] = []
        var details: [JSONValue.Member] = []
        func operand(_ index: Int) throws -> LogicValue {
            let (value, child) = try trace(args[index], data)
            if let child { children.append(child) }
            return value
        }
        let value: LogicValue
        switch op {
        case .if, .ternary:
            var result: LogicValue?
            var index = 0
            while index + 1 < args.count {
                let condition = try operand(index)
                if condition.truthy {
                    notes.append("condition \(index / 2 + 1) is true: branch \(index / 2 + 1) taken")
                    result = try operand(index + 1)
                    break
                }
                index += 2
            }
            if result == nil {
                if args.count % 2 == 1 {
                    notes.append(args.count == 1 ? "the only operand" : "no condition is true: the else branch")
                    result = try operand(args.count - 1)
                } else {
                    notes.append("no condition is true and there is no else: null")
                }
            }
            value = result ?? .null
        case .and, .or:
            var last = LogicValue.bool(false)
            for index in args.indices {
                last = try operand(index)
                if last.truthy == (op == .or) {
                    if index < args.count - 1 { notes.append("operand \(index + 1) decides: the rest is not evaluated") }
                    break
                }
            }
            value = args.isEmpty ? .bool(false) : last
        case .var:
            let path = args.isEmpty ? LogicValue.null : try operand(0)
            if let found = JSONLogic.find(data, path) {
                notes.append("\(Self.pathText(path)) found")
                value = found
            } else if args.count > 1 {
                notes.append("\(Self.pathText(path)) missing: the default")
                value = try operand(1)
            } else {
                notes.append("\(Self.pathText(path)) missing: null")
                value = .null
            }
        case .rollout:
            let outcome = try Rollout.plan(args, data: data) { node in
                let (value, child) = try trace(node, data)
                if let child { children.append(child) }
                return value
            }
            switch outcome {
            case .invalid(let why):
                notes.append(why + ": null")
                value = .null
            case .valid(let plan):
                (notes, details) = Self.rolloutNotes(plan)
                if let side = plan.toWins ? plan.to : plan.from {
                    let (result, child) = try trace(side, data)
                    if let child { children.append(child) }
                    value = result
                } else {
                    value = .null
                }
            }
        case .map, .filter, .all, .none, .some, .reduce:
            var literal: [JSONLogic.Node] = []
            for index in args.indices {
                if index == 1 {
                    literal.append(args[1])
                } else {
                    literal.append(.literal(try operand(index)))
                }
            }
            if let first = literal.first, case .literal(.array(let items)) = first {
                notes.append("the rule applied to \(items.count) item\(items.count == 1 ? "" : "s") (not traced)")
            }
            value = try logic.apply(op, literal, data, &budget)
        default:
            var values: [LogicValue] = []
            for index in args.indices { values.append(try operand(index)) }
            value = try logic.apply(op, values.map { .literal($0) }, data, &budget)
            if op == .semVer {
                notes += Self.semVerNotes(values)
            } else if op == .fractional {
                (notes, details) = Self.fractionalNotes(values, data: data, version: logic.fractionalVersion)
            }
        }
        return (value, FlagTraceNode(label: op.rawValue, result: value.json, notes: notes, details: details, children: children))
    }

    private static func pathText(_ path: LogicValue) -> String {
        if case .string(let s) = path { return JSONValue.string(s).compactText }
        return path.json.compactText
    }

    /// `sem_ver`'s operands as parsed: `2.3.0 >= 2.1.0`.
    static func semVerNotes(_ values: [LogicValue]) -> [String] {
        guard values.count == 3 else { return ["sem_ver needs 3 operands: null"] }
        func parsed(_ value: LogicValue) -> String {
            let version: SemanticVersion?
            switch value {
            case .string(let s): version = SemanticVersion(s)
            case .number(let n): version = SemanticVersion(LogicValue.format(n) == "\(n)" ? LogicValue.format(n) : "\(n)")
            default: version = nil
            }
            guard let version else { return "\(value.json.compactText) (not a version)" }
            return describe(version)
        }
        return ["\(parsed(values[0])) \(values[1].text) \(parsed(values[2]))"]
    }

    package static func describe(_ version: SemanticVersion) -> String {
        let wide = version.wide
        let parts = [version.major, version.minor, version.patch].enumerated().map { index, number in
            if let digits = wide?[index], !digits.isEmpty { return digits }
            return String(number)
        }
        return parts.joined(separator: ".") + (version.prerelease.isEmpty ? "" : "-" + version.prerelease.joined(separator: "."))
    }

    /// `rollout`'s window, the share of it elapsed, the bucket and the side that won.
    static func rolloutNotes(_ plan: Rollout.Plan) -> ([String], [JSONValue.Member]) {
        func date(_ seconds: Int64) -> String {
            Date(timeIntervalSince1970: Double(seconds)).formatted(Date.ISO8601FormatStyle())
        }
        let share = Double(plan.elapsed) / Double(plan.duration) * 100
        let shareText = LogicValue.format((share * 100).rounded() / 100)
        let window = "window \(date(plan.start)) to \(date(plan.end)) (\(plan.start) to \(plan.end))"
        var notes = [
            plan.elapsed == 0
                ? window + ": not started (0% elapsed)"
                : plan.elapsed >= plan.duration
                    ? window + ": ended (100% elapsed)"
                    : window + ", now \(date(plan.now)) (\(plan.now)): \(plan.elapsed) of \(plan.duration) s elapsed (\(shareText)%)"
        ]
        var details: [JSONValue.Member] = [
            .init("start", .number(String(plan.start))), .init("end", .number(String(plan.end))),
            .init("now", .number(String(plan.now))), .init("elapsed", .number(String(plan.elapsed))),
            .init("duration", .number(String(plan.duration))), .init("elapsedPercent", .number(shareText)),
        ]
        let side = plan.toWins ? "to" : "from"
        let sideText = plan.toWins ? "to (the variant rolled to)" : plan.from == nil ? "from (the default variant: null)" : "from"
        if let hash = plan.hash, let bucket = plan.bucket {
            let how = plan.fromBucketBy ? "bucketBy" : "flag key and targetingKey"
            notes.append(
                "bucketing value \(JSONValue.string(plan.bucketingValue).compactText) (\(how)), hash \(hash) (murmur3 of its UTF-8), "
                    + "bucket \(bucket) of \(plan.duration): \(plan.toWins ? "below" : "not below") the \(plan.elapsed) elapsed")
            details += [
                .init("bucketingValue", .string(plan.bucketingValue)), .init("hash", .number(String(hash))),
                .init("bucket", .number(String(bucket))),
            ]
        } else {
            notes.append(plan.elapsed == 0 ? "everyone gets from" : "everyone gets to")
        }
        notes.append("side won: " + sideText)
        details.append(.init("side", .string(side)))
        return (notes, details)
    }

    /// `fractional`'s bucketing: the value hashed, its hash, the bucket and each variant's range.
    static func fractionalNotes(_ args: [LogicValue], data: LogicValue, version: FractionalVersion) -> ([String], [JSONValue.Member]) {
        guard !args.isEmpty else { return (["no operands: null"], []) }
        let (bucketBy, buckets) = Fractional.operands(args)
        var variants: [(String, UInt64)] = []
        var total: UInt64 = 0
        for bucket in buckets {
            guard case .array(let parts) = bucket, (1...2).contains(parts.count) else { return (["a malformed bucket: null"], []) }
            var weight: Double = 1
            if parts.count == 2, case .number(let w) = parts[1], w.isFinite, w == w.rounded() { weight = w }
            let clamped = weight < 0 ? 0 : UInt64(min(weight, 4_294_967_296))
            total += clamped
            variants.append((parts[0].json.compactText, clamped))
        }
        guard total > 0, total <= 2_147_483_647 else { return (["the weights sum to \(total): null"], []) }
        let flagKey = data["$flagd"]?["flagKey"].flatMap { if case .string(let s) = $0 { s } else { nil } } ?? ""
        let targetingKey = data["targetingKey"].flatMap { if case .string(let s) = $0 { s } else { nil } } ?? ""
        let hashed: LogicValue
        let bytes: [UInt8]?
        switch (version, bucketBy) {
        case (.v3, let value?):
            hashed = value
            bytes = CBOR.encode(value)
        case (.v3, nil):
            hashed = .array([.string(flagKey), .string(targetingKey)])
            bytes = targetingKey.isEmpty ? nil : CBOR.encodePair(flagKey, targetingKey)
        case (_, let value?):
            hashed = value
            if case .string(let text) = value { bytes = Array(text.utf8) } else { bytes = nil }
        case (_, nil):
            hashed = .string(flagKey + targetingKey)
            bytes = targetingKey.isEmpty ? nil : Array((flagKey + targetingKey).utf8)
        }
        var notes = [
            "bucketing value \(hashed.json.compactText) (\(bucketBy == nil ? "flag key and targetingKey" : "bucketBy")), hashing version \(version.rawValue)"
        ]
        var details: [JSONValue.Member] = [
            .init("bucketingValue", hashed.json), .init("hashingVersion", .number(String(version.rawValue))),
        ]
        guard let bytes else {
            notes.append(bucketBy == nil ? "no targetingKey: null" : "a bucketing value version \(version.rawValue) cannot hash: null")
            return (notes, details)
        }
        let hash = MurmurHash3.x86Hash32(bytes, seed: 0)
        let bucket: Double
        let scale: Double
        if version == .v1 {
            bucket = Double(abs(Int64(Int32(bitPattern: hash)))) / 2_147_483_647 * 100
            scale = 100
        } else {
            bucket = Double((UInt64(hash) * total) >> 32)
            scale = Double(total)
        }
        var ranges: [JSONValue] = []
        var start = 0.0
        var rangeText: [String] = []
        for (name, weight) in variants {
            let end = start + (version == .v1 ? 100 * Double(weight) / Double(total) : Double(weight))
            ranges.append(
                .object([
                    .init("variant", (try? JSONValue(parsing: name)) ?? .string(name)), .init("from", .number(LogicValue.format(start))),
                    .init("to", .number(LogicValue.format(end))),
                ]))
            rangeText.append("\(name) [\(LogicValue.format(start)), \(LogicValue.format(end)))")
            start = end
        }
        let hex = bytes.prefix(64).map { NumberText.hex($0, width: 2) }.joined() + (bytes.count > 64 ? "…" : "")
        notes.append(
            "hash \(hash) (murmur3 of \(bytes.count) bytes \(hex)), bucket \(LogicValue.format(bucket)) of \(LogicValue.format(scale))")
        notes.append("ranges " + rangeText.joined(separator: ", "))
        details += [
            .init("bytes", .string(bytes.map { NumberText.hex($0, width: 2) }.joined())), .init("hash", .number(String(hash))),
            .init("bucket", .number(LogicValue.format(bucket))), .init("of", .number(LogicValue.format(scale))),
            .init("ranges", .array(ranges)),
        ]
        return (notes, details)
    }
}
