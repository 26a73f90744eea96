import PrefsBase
import PrefsJSON

/// A JSON value inside rule evaluation, with numbers as doubles (JSONLogic follows
/// JavaScript's arithmetic).
public indirect enum LogicValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([LogicValue])
    case object([String: LogicValue])

    /// Converts a stored JSON value.
    public init(_ json: JSONValue) {
        switch json {
        case .null: self = .null
        case .bool(let b): self = .bool(b)
        case .number(let text): self = .number(Double(text) ?? .nan)
        case .string(let s): self = .string(s)
        case .array(let items): self = .array(items.map(LogicValue.init))
        case .object(let members):
            var object: [String: LogicValue] = [:]
            for member in members { object[member.key] = LogicValue(member.value) }
            self = .object(object)
        }
    }

    /// The value as JSON (numbers as JavaScript would print them).
    public var json: JSONValue {
        switch self {
        case .null: .null
        case .bool(let b): .bool(b)
        case .number(let n): n.isFinite ? .number(LogicValue.format(n)) : .null
        case .string(let s): .string(s)
        case .array(let items): .array(items.map(\.json))
        case .object(let object): .object(object.keys.sorted().map { JSONValue.Member($0, object[$0]?.json ?? .null) })
        }
    }

    /// JavaScript's number-to-string: `3`, `0.1`, `1e-7`, `1e+21`.
    static func format(_ n: Double) -> String {
        if n.isNaN { return "NaN" }
        if n.isInfinite { return n > 0 ? "Infinity" : "-Infinity" }
        if n == n.rounded(), abs(n) < 1e21 {
            return n == 0 ? "0" : NumberText.fixed(n, fractionDigits: 0)
        }
        var text = "\(n)"
        if let e = text.firstIndex(of: "e") {
            var exponent = String(text[text.index(after: e)...])
            let sign = exponent.first == "-" ? "-" : "+"
            exponent = String(exponent.drop { $0 == "-" || $0 == "+" || $0 == "0" })
            text = String(text[..<e]) + "e" + sign + (exponent.isEmpty ? "0" : exponent)
        }
        return text
    }

    /// JavaScript's parseFloat: the longest numeric prefix of the string form, else NaN.
    var parsedFloat: Double {
        switch self {
        case .number(let n): return n
        case .string(let s):
            // One pass over the bytes (trying every prefix was quadratic in the length).
            let bytes = Array(s.utf8.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A })
            func isDigit(_ i: Int) -> Bool { i < bytes.count && bytes[i] >= 0x30 && bytes[i] <= 0x39 }
            var end = 0
            if end < bytes.count, bytes[end] == UInt8(ascii: "+") || bytes[end] == UInt8(ascii: "-") { end += 1 }
            var digits = 0
            while isDigit(end) { end += 1; digits += 1 }
            if end < bytes.count, bytes[end] == UInt8(ascii: ".") {
                end += 1
                while isDigit(end) { end += 1; digits += 1 }
            }
            guard digits > 0 else { return .nan }
            if end < bytes.count, bytes[end] == UInt8(ascii: "e") || bytes[end] == UInt8(ascii: "E") {
                var exponent = end + 1
                if exponent < bytes.count, bytes[exponent] == UInt8(ascii: "+") || bytes[exponent] == UInt8(ascii: "-") { exponent += 1 }
                if isDigit(exponent) {
                    while isDigit(exponent) { exponent += 1 }
                    end = exponent
                }
            }
            return Double(String(decoding: bytes[..<end], as: UTF8.self)) ?? .nan
        case .array: return LogicValue.string(text).parsedFloat
        default: return .nan
        }
    }

    /// JavaScript truthiness as JSONLogic defines it (an empty array is false).
    var truthy: Bool {
        switch self {
        case .null: false
        case .bool(let b): b
        case .number(let n): n != 0 && !n.isNaN
        case .string(let s): !s.isEmpty
        case .array(let items): !items.isEmpty
        case .object: true
        }
    }

    /// JavaScript's ToNumber.
    var number: Double {
        switch self {
        case .null: 0
        case .bool(let b): b ? 1 : 0
        case .number(let n): n
        case .string(let s):
            s.trimmingWhitespace().isEmpty ? 0 : (Double(s.trimmingWhitespace()) ?? .nan)
        case .array(let items): items.isEmpty ? 0 : (items.count == 1 ? items[0].number : .nan)
        case .object: .nan
        }
    }

    /// JavaScript's String().
    var text: String {
        switch self {
        case .null: "null"
        case .bool(let b): b ? "true" : "false"
        case .number(let n): n.isNaN ? "NaN" : LogicValue.format(n)
        case .string(let s): s
        case .array(let items): items.map { $0 == .null ? "" : $0.text }.joined(separator: ",")
        case .object: "[object Object]"
        }
    }

    subscript(member: String) -> LogicValue? {
        if case .object(let object) = self { return object[member] }
        return nil
    }
}

/// Why a rule could not be evaluated (flagd's PARSE_ERROR).
public struct RuleError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong.
    public var message: String
    /// The message.
    public var description: String { message }
}

/// The fractional hashing versions of flagd.
public enum FractionalVersion: Int, Sendable, CaseIterable {
    /// Legacy: percentage buckets from the signed hash.
    case v1 = 1
    /// `(h * total) >> 32` over the UTF-8 of `bucketBy`, or `flagKey + targetingKey`.
    case v2 = 2
    /// v2 arithmetic over the deterministic CBOR encoding of the bucketing value: what current
    /// flagd evaluators use.
    case v3 = 3

    /// The version used unless an invocation or the store's setting asks for another.
    public static let `default` = FractionalVersion.v3
}

/// A compiled JSONLogic rule with flagd's operators.
///
/// ```swift
/// let rule = try JSONLogic(JSONValue(parsing: #"{"ends_with":[{"var":"email"},"@example.com"]}"#))
/// let matched = rule.evaluate(LogicValue(try JSONValue(parsing: #"{"email":"a@example.com"}"#)))  // .bool(true)
/// ```
public struct JSONLogic: Sendable {
    indirect enum Node: Sendable {
        case literal(LogicValue)
        case array([Node])
        case op(Operator, [Node])
        /// An evaluator's rule reached through `{"$ref": name}`: only in rules compiled for
        /// `flag explain` (``RuleCompiler/marksReferences``); evaluation passes through it.
        case reference(String, Node)
    }

    enum Operator: String, Sendable, CaseIterable {
        case `var`, missing, missingSome = "missing_some", `if`, ternary = "?:", eq = "==", strictEq = "===", ne = "!=",
            strictNe = "!==", not = "!", notNot = "!!", or, and, lt = "<", le = "<=", gt = ">", ge = ">=", mod = "%",
            div = "/", mul = "*", add = "+", sub = "-", min, max, merge, cat, substr, `in`, map, filter, all, none, some,
            reduce, startsWith = "starts_with", endsWith = "ends_with", semVer = "sem_ver", fractional,
            lower, upper, rollout
    }

    let root: Node
    /// The hashing version used by `fractional`.
    public var fractionalVersion: FractionalVersion

    /// Compiles a rule.
    ///
    /// - Throws: ``RuleError`` for an unknown operator or a `$ref` (there are no evaluators).
    public init(_ rule: JSONValue, fractionalVersion: FractionalVersion = .v3) throws {
        var compiler = RuleCompiler(evaluators: [:])
        do throws(RuleCompiler.Failure) {
            root = try compiler.compile(rule).node
        } catch {
            throw RuleError(message: error.describe(root: "$"))
        }
        self.fractionalVersion = fractionalVersion
    }

    init(root: Node, fractionalVersion: FractionalVersion) {
        self.root = root
        self.fractionalVersion = fractionalVersion
    }

    /// How much work one evaluation may do: every operator applied counts 1, and building a
    /// string, array or `reduce` accumulator counts its size. A rule that would need more
    /// (`reduce` doubling a string 40 times, nested `map`s over large arrays) is stopped
    /// instead of exhausting memory or time.
    public static let evaluationBudget = 2_000_000

    /// Evaluates the rule against data; `null` when the evaluation exceeds its limits
    /// (see ``evaluate(checking:)`` for the reason).
    public func evaluate(_ data: LogicValue) -> LogicValue {
        (try? evaluate(checking: data)) ?? .null
    }

    /// Evaluates the rule against data.
    ///
    /// - Throws: ``RuleError`` when the evaluation would exceed ``evaluationBudget`` or build
    ///   a value nested deeper than ``JSONParser/maximumDepth`` levels.
    public func evaluate(checking data: LogicValue) throws(RuleError) -> LogicValue {
        var shared = EvaluationBudget.unlimited
        return try evaluate(checking: data, budget: &shared)
    }

    /// Evaluates the rule against data, spending at most what `budget` has left (and never
    /// more than ``evaluationBudget``); the steps taken are taken from `budget`.
    ///
    /// - Throws: ``RuleError`` when the evaluation would exceed ``evaluationBudget`` or what
    ///   `budget` has left (then `budget.exceeded` is true), or build a value nested deeper
    ///   than ``JSONParser/maximumDepth`` levels.
    public func evaluate(checking data: LogicValue, budget shared: inout EvaluationBudget) throws(RuleError) -> LogicValue {
        let sharedLimits = shared.remaining < JSONLogic.evaluationBudget
        let allowed = sharedLimits ? shared.remaining : JSONLogic.evaluationBudget
        var budget = Budget(remaining: allowed, shared: sharedLimits ? shared.limit : nil)
        defer {
            if budget.remaining < 0 && sharedLimits { shared.exceeded = true }
            if shared.limit != .max { shared.remaining -= min(allowed, allowed - budget.remaining) }
        }
        do {
            return try eval(root, data, &budget)
        } catch let error as RuleError {
            throw error
        } catch {
            throw RuleError(message: "\(error)")
        }
    }

    /// The work an evaluation has left.
    struct Budget {
        var remaining: Int
        /// The limit of an ``EvaluationBudget`` shared with other evaluations, when that is
        /// what this evaluation may spend (less than ``JSONLogic/evaluationBudget``).
        var shared: Int? = nil

        mutating func charge(_ cost: Int) throws {
            remaining -= cost
            if remaining < 0 {
                if let shared {
                    throw RuleError(message: "the request needs more than its budget of \(shared) evaluation steps")
                }
                throw RuleError(message: "the rule needs more than \(JSONLogic.evaluationBudget) steps to evaluate")
            }
        }

        /// Charges the size of a value built from shared parts (nodes and string bytes), and
        /// refuses one nested deeper than the parser accepts.
        mutating func charge(built value: LogicValue) throws {
            // Fast path without allocating: a flat array (fractional's buckets, most literals).
            if case .array(let items) = value {
                var cost = 1 + items.count
                var flat = true
                for item in items {
                    switch item {
                    case .array, .object: flat = false
                    case .string(let s): cost += s.utf8.count / 16
                    default: break
                    }
                    if !flat { break }
                }
                if flat { return try charge(cost) }
            }
            var stack: [(LogicValue, Int)] = [(value, 1)]
            while let (current, depth) = stack.popLast() {
                if depth > JSONParser.maximumDepth {
                    throw RuleError(message: "the rule builds a value nested deeper than \(JSONParser.maximumDepth) levels")
                }
                try charge(1)
                switch current {
                case .string(let s): try charge(s.utf8.count / 16)
                case .array(let items): stack += items.map { ($0, depth + 1) }
                case .object(let object): stack += object.values.map { ($0, depth + 1) }
                default: break
                }
            }
        }
    }

    func eval(_ node: Node, _ data: LogicValue, _ budget: inout Budget) throws -> LogicValue {
        try budget.charge(1)
        switch node {
        case .literal(let value): return value
        case .array(let items):
            let value = LogicValue.array(try items.map { try eval($0, data, &budget) })
            try budget.charge(built: value)
            return value
        case .op(let op, let args): return try apply(op, args, data, &budget)
        case .reference(_, let rule): return try eval(rule, data, &budget)
        }
    }

    func apply(_ op: Operator, _ args: [Node], _ data: LogicValue, _ budget: inout Budget) throws -> LogicValue {
        func arg(_ i: Int) throws -> LogicValue { i < args.count ? try eval(args[i], data, &budget) : .null }
        switch op {
        case .var:
            guard let found = JSONLogic.find(data, try arg(0)) else { return args.count > 1 ? try arg(1) : .null }
            return found
        case .missing:
            var keys = try args.map { try eval($0, data, &budget) }
            if case .array(let first)? = keys.first { keys = first }
            return .array(
                keys.filter {
                    let v = JSONLogic.lookup(data, $0); return v == .null || v == .string("")
                })
        case .missingSome:
            let need = JSONLogic.int(try arg(0).number)
            guard case .array(let keys) = try arg(1) else { return .array([]) }
            let missing = keys.filter {
                let v = JSONLogic.lookup(data, $0); return v == .null || v == .string("")
            }
            return keys.count - missing.count >= need ? .array([]) : .array(missing)
        case .if, .ternary:
            var i = 0
            while i + 1 < args.count {
                if try eval(args[i], data, &budget).truthy { return try eval(args[i + 1], data, &budget) }
                i += 2
            }
            return args.count % 2 == 1 ? try eval(args[args.count - 1], data, &budget) : .null
        case .eq: return try .bool(JSONLogic.looseEquals(arg(0), arg(1)))
        case .ne: return try .bool(!JSONLogic.looseEquals(arg(0), arg(1)))
        case .strictEq: return try .bool(JSONLogic.strictEquals(arg(0), arg(1)))
        case .strictNe: return try .bool(!JSONLogic.strictEquals(arg(0), arg(1)))
        case .not: return try .bool(!arg(0).truthy)
        case .notNot: return try .bool(arg(0).truthy)
        case .or:
            // json-logic-js returns undefined for no arguments; false as the JSONLogic suites expect.
            guard !args.isEmpty else { return .bool(false) }
            var last = LogicValue.null
            for node in args {
                last = try eval(node, data, &budget)
                if last.truthy { return last }
            }
            return last
        case .and:
            guard !args.isEmpty else { return .bool(false) }
            var last = LogicValue.null
            for node in args {
                last = try eval(node, data, &budget)
                if !last.truthy { return last }
            }
            return last
        case .lt, .le:
            let values = try args.map { try eval($0, data, &budget) }
            guard values.count >= 2 else { return .bool(false) }
            let compare: (LogicValue, LogicValue) -> Bool =
                op == .lt ? { JSONLogic.less($0, $1) } : { !JSONLogic.less($1, $0) && JSONLogic.comparable($0, $1) }
            if values.count == 3 { return .bool(compare(values[0], values[1]) && compare(values[1], values[2])) }
            return .bool(compare(values[0], values[1]))
        // A missing operand is JavaScript's undefined: every comparison with it is false, and
        // arithmetic with it is NaN (no JSON form: null in results).
        case .gt:
            guard args.count >= 2 else { return .bool(false) }
            return try .bool(JSONLogic.less(arg(1), arg(0)))
        case .ge:
            guard args.count >= 2 else { return .bool(false) }
            return try .bool(!JSONLogic.less(arg(0), arg(1)) && JSONLogic.comparable(arg(0), arg(1)))
        case .mod:
            guard args.count >= 2 else { return .number(.nan) }
            return try .number(arg(0).number.truncatingRemainder(dividingBy: arg(1).number))
        case .div:
            guard args.count >= 2 else { return .number(.nan) }
            return try .number(arg(0).number / arg(1).number)
        case .mul:
            // One operand: JavaScript's `+x` (true 1, null 0, "" 0), as the JSONLogic suites expect.
            if args.count == 1 { return try .number(arg(0).number) }
            return .number(try args.reduce(1) { try $0 * eval($1, data, &budget).parsedFloat })
        case .add: return .number(try args.reduce(0) { try $0 + eval($1, data, &budget).parsedFloat })
        case .sub:
            if args.count == 1 { return try .number(-arg(0).number) }
            return try .number(arg(0).number - arg(1).number)
        case .min, .max:
            let numbers = try args.map { try eval($0, data, &budget).number }
            guard !numbers.isEmpty else { return .null }
            if numbers.contains(where: \.isNaN) { return .null }
            return .number(op == .min ? numbers.min() ?? 0 : numbers.max() ?? 0)
        case .merge:
            var result: [LogicValue] = []
            for node in args {
                let value = try eval(node, data, &budget)
                if case .array(let items) = value { result += items } else { result.append(value) }
                try budget.charge(result.count)
            }
            return .array(result)
        case .cat:
            var result = ""
            for node in args {
                // Array.join: null (and a missing value) is the empty string.
                let value = try eval(node, data, &budget)
                if case .null = value { continue }
                result += value.text
                try budget.charge(result.utf8.count / 16)
            }
            // flagd's Go evaluator (diegoholiveira/jsonlogic's concat) trims white space
            // around the joined text; json-logic-js does not. docs/flags.md: Go decides.
            return .string(JSONLogic.trimmingWhiteSpace(result))
        case .substr:
            // JavaScript strings are UTF-16.
            let units = Array(try arg(0).text.utf16)
            try budget.charge(units.count / 16)
            var start = JSONLogic.int(try arg(1).number)
            if start < 0 { start = max(units.count + start, 0) }
            start = min(start, units.count)
            var end = units.count
            if args.count > 2 {
                let length = JSONLogic.int(try arg(2).number)
                end = length < 0 ? max(units.count + length, start) : min(start &+ min(length, units.count), units.count)
            }
            return .string(String(decoding: units[start..<max(end, start)], as: UTF16.self))
        case .in:
            let needle = try arg(0)
            switch try arg(1) {
            case .string(let haystack):
                let text = needle.text
                try budget.charge((haystack.utf8.count + text.utf8.count) / 16)
                return .bool(text.isEmpty || haystack.utf8.count >= text.utf8.count && haystack.containsLiteral(text))
            case .array(let items): return .bool(items.contains { JSONLogic.strictEquals($0, needle) })
            default: return .bool(false)
            }
        case .map, .filter, .all, .none, .some:
            guard case .array(let items) = try arg(0) else {
                return op == .map || op == .filter ? .array([]) : .bool(op == .none)
            }
            let rule = args.count > 1 ? args[1] : .literal(.null)
            switch op {
            case .map: return .array(try items.map { try eval(rule, $0, &budget) })
            case .filter: return .array(try items.filter { try eval(rule, $0, &budget).truthy })
            case .all: return .bool(try !items.isEmpty && items.allSatisfy { try eval(rule, $0, &budget).truthy })
            case .none: return .bool(try !items.contains { try eval(rule, $0, &budget).truthy })
            default: return .bool(try items.contains { try eval(rule, $0, &budget).truthy })
            }
        case .reduce:
            guard case .array(let items) = try arg(0) else { return try arg(2) }
            let rule = args.count > 1 ? args[1] : .literal(.null)
            var accumulator = try arg(2)
            for current in items {
                accumulator = try eval(rule, .object(["current": current, "accumulator": accumulator]), &budget)
                // The accumulator may grow from shared parts (doubling in each step).
                try budget.charge(built: accumulator)
            }
            return accumulator
        case .startsWith, .endsWith:
            guard args.count == 2, case .string(let subject) = try arg(0), case .string(let affix) = try arg(1) else { return .null }
            let bytes = Array(subject.utf8)
            let part = Array(affix.utf8)
            return .bool(op == .startsWith ? bytes.starts(with: part) : bytes.reversed().starts(with: part.reversed()))
        case .semVer:
            return JSONLogic.semVer(try args.map { try eval($0, data, &budget) })
        case .fractional:
            return Fractional.evaluate(try args.map { try eval($0, data, &budget) }, data: data, version: fractionalVersion)
        case .lower, .upper:
            // flagd's string casing: one operand that is a string, ASCII letters only.
            guard args.count == 1, case .string(let text) = try arg(0) else { return .null }
            try budget.charge(text.utf8.count / 16)
            return .string(op == .lower ? StringCasing.lower(text) : StringCasing.upper(text))
        case .rollout:
            guard case .valid(let plan) = try Rollout.plan(args, data: data, evaluate: { try eval($0, data, &budget) }) else {
                return .null
            }
            guard let side = plan.toWins ? plan.to : plan.from else { return .null }
            return try eval(side, data, &budget)
        }
    }

    /// The text without the Unicode white space around it (Go's `strings.TrimSpace`).
    static func trimmingWhiteSpace(_ text: String) -> String {
        let scalars = text.unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        guard let last = scalars.lastIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        if first == scalars.startIndex && last == scalars.index(before: scalars.endIndex) { return text }
        return String(scalars[first...last])
    }

    /// A double as an Int, NaN as 0 and clamped (never a crash on 1e19 or infinity).
    static func int(_ value: Double) -> Int {
        if value.isNaN { return 0 }
        if value >= 9.0e15 { return 9_000_000_000_000_000 }
        if value <= -9.0e15 { return -9_000_000_000_000_000 }
        return Int(value)
    }

    static func lookup(_ data: LogicValue, _ path: LogicValue) -> LogicValue {
        find(data, path) ?? .null
    }

    /// The value at a path; nil when it does not exist (an explicit null is found).
    static func find(_ data: LogicValue, _ path: LogicValue) -> LogicValue? {
        let text: String
        switch path {
        case .null: return data
        case .string(let s): text = s
        case .number(let n): text = LogicValue.format(n)
        case .array(let items): return items.first.map { find(data, $0) } ?? data
        default: return nil
        }
        if text.isEmpty { return data }
        var current = data
        for part in text.split(separator: ".", omittingEmptySubsequences: false) {
            switch current {
            case .object(let object):
                guard let next = object[String(part)] else { return nil }
                current = next
            case .array(let items):
                guard let index = Int(part), index >= 0, index < items.count else { return nil }
                current = items[index]
            default: return nil
            }
        }
        return current
    }

    static func strictEquals(_ a: LogicValue, _ b: LogicValue) -> Bool {
        switch (a, b) {
        case (.array, .array), (.object, .object): return false  // JavaScript compares references
        case (.string(let x), .string(let y)): return BytewiseString.equal(x, y)
        default: return a == b
        }
    }

    static func looseEquals(_ a: LogicValue, _ b: LogicValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.null, _), (_, .null): return false
        case (.string(let x), .string(let y)): return BytewiseString.equal(x, y)
        case (.bool, .bool), (.number, .number): return a == b
        case (.array, .array), (.object, .object): return false
        case (.array, _), (.object, _): return looseEquals(.string(a.text), b)
        case (_, .array), (_, .object): return looseEquals(a, .string(b.text))
        default: return a.number == b.number
        }
    }

    static func comparable(_ a: LogicValue, _ b: LogicValue) -> Bool {
        if case .string = a, case .string = b { return true }
        return !a.number.isNaN && !b.number.isNaN
    }

    static func less(_ a: LogicValue, _ b: LogicValue) -> Bool {
        if case .string(let x) = a, case .string(let y) = b { return x < y }
        return a.number < b.number
    }

    static func semVer(_ args: [LogicValue]) -> LogicValue {
        guard args.count == 3, case .string(let op) = args[1] else { return .null }
        func version(_ value: LogicValue) -> SemanticVersion? {
            switch value {
            case .string(let s): SemanticVersion(s)
            case .number(let n): SemanticVersion(LogicValue.format(n) == "\(n)" ? LogicValue.format(n) : "\(n)")
            default: nil
            }
        }
        guard let left = version(args[0]), let right = version(args[2]) else { return .null }
        switch op {
        case "=": return .bool(left == right)
        case "!=": return .bool(left != right)
        case "<": return .bool(left < right)
        case "<=": return .bool(left <= right)
        case ">": return .bool(left > right)
        case ">=": return .bool(left >= right)
        case "^": return .bool(left.sameMajor(right))
        case "~": return .bool(left.sameMinor(right))
        default: return .null
        }
    }
}
