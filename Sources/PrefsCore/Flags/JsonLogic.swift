import Foundation

/// A JSON value inside rule evaluation, with numbers as doubles (JsonLogic follows
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
            return n == 0 ? "0" : String(format: "%.0f", n)
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
            let trimmed = s.drop { $0 == " " || $0 == "\t" || $0 == "\n" }
            var best = Double.nan
            var prefix = ""
            for character in trimmed {
                prefix.append(character)
                if let value = Double(prefix) { best = value } else if !"+-.eE".contains(character) { break }
            }
            return best
        case .array: return LogicValue.string(text).parsedFloat
        default: return .nan
        }
    }

    /// JavaScript truthiness as JsonLogic defines it (an empty array is false).
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
            s.trimmingCharacters(in: .whitespaces).isEmpty ? 0 : (Double(s.trimmingCharacters(in: .whitespaces)) ?? .nan)
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
    /// flagd's current default: `(h * total) >> 32` over `flagKey + targetingKey`.
    case v2 = 2
    /// v2 arithmetic over the deterministic CBOR encoding of the bucketing value.
    case v3 = 3
}

/// A compiled JsonLogic rule with flagd's operators.
///
/// ```swift
/// let rule = try JsonLogic(JSONValue(parsing: #"{"ends_with":[{"var":"email"},"@example.com"]}"#))
/// rule.evaluate(LogicValue(JSONValue(parsing: #"{"email":"a@example.com"}"#)))  // .bool(true)
/// ```
public struct JsonLogic: Sendable {
    indirect enum Node: Sendable {
        case literal(LogicValue)
        case array([Node])
        case op(Operator, [Node])
    }

    enum Operator: String, Sendable, CaseIterable {
        case `var`, missing, missingSome = "missing_some", `if`, ternary = "?:", eq = "==", strictEq = "===", ne = "!=",
            strictNe = "!==", not = "!", notNot = "!!", or, and, lt = "<", le = "<=", gt = ">", ge = ">=", mod = "%",
            div = "/", mul = "*", add = "+", sub = "-", min, max, merge, cat, substr, `in`, map, filter, all, none, some,
            reduce, startsWith = "starts_with", endsWith = "ends_with", semVer = "sem_ver", fractional
    }

    let root: Node
    /// The hashing version used by `fractional`.
    public var fractionalVersion: FractionalVersion

    /// Compiles a rule.
    ///
    /// - Throws: ``RuleError`` for an unknown operator.
    public init(_ rule: JSONValue, fractionalVersion: FractionalVersion = .v2) throws {
        root = try JsonLogic.compile(rule)
        self.fractionalVersion = fractionalVersion
    }

    static func compile(_ rule: JSONValue) throws -> Node {
        switch rule {
        case .array(let items): return .array(try items.map(compile))
        case .object(let members) where members.count == 1:
            let member = members[0]
            guard let op = Operator(rawValue: member.key) else {
                throw RuleError(message: "unknown operator \(JSONValue.string(member.key).compactText)")
            }
            if case .array(let args) = member.value { return .op(op, try args.map(compile)) }
            return .op(op, [try compile(member.value)])
        default:
            return .literal(LogicValue(rule))
        }
    }

    /// Evaluates the rule against data.
    public func evaluate(_ data: LogicValue) -> LogicValue {
        eval(root, data)
    }

    private func eval(_ node: Node, _ data: LogicValue) -> LogicValue {
        switch node {
        case .literal(let value): return value
        case .array(let items): return .array(items.map { eval($0, data) })
        case .op(let op, let args): return apply(op, args, data)
        }
    }

    private func apply(_ op: Operator, _ args: [Node], _ data: LogicValue) -> LogicValue {
        func arg(_ i: Int) -> LogicValue { i < args.count ? eval(args[i], data) : .null }
        switch op {
        case .var:
            guard let found = JsonLogic.find(data, arg(0)) else { return args.count > 1 ? arg(1) : .null }
            return found
        case .missing:
            var keys = args.map { eval($0, data) }
            if case .array(let first)? = keys.first { keys = first }
            return .array(
                keys.filter {
                    let v = JsonLogic.lookup(data, $0); return v == .null || v == .string("")
                })
        case .missingSome:
            let need = JsonLogic.int(arg(0).number)
            guard case .array(let keys) = arg(1) else { return .array([]) }
            let missing = keys.filter {
                let v = JsonLogic.lookup(data, $0); return v == .null || v == .string("")
            }
            return keys.count - missing.count >= need ? .array([]) : .array(missing)
        case .if, .ternary:
            var i = 0
            while i + 1 < args.count {
                if eval(args[i], data).truthy { return eval(args[i + 1], data) }
                i += 2
            }
            return args.count % 2 == 1 ? eval(args[args.count - 1], data) : .null
        case .eq: return .bool(JsonLogic.looseEquals(arg(0), arg(1)))
        case .ne: return .bool(!JsonLogic.looseEquals(arg(0), arg(1)))
        case .strictEq: return .bool(JsonLogic.strictEquals(arg(0), arg(1)))
        case .strictNe: return .bool(!JsonLogic.strictEquals(arg(0), arg(1)))
        case .not: return .bool(!arg(0).truthy)
        case .notNot: return .bool(arg(0).truthy)
        case .or:
            var last = LogicValue.null
            for node in args {
                last = eval(node, data)
                if last.truthy { return last }
            }
            return last
        case .and:
            var last = LogicValue.null
            for node in args {
                last = eval(node, data)
                if !last.truthy { return last }
            }
            return last
        case .lt, .le:
            let values = args.map { eval($0, data) }
            guard values.count >= 2 else { return .bool(false) }
            let compare: (LogicValue, LogicValue) -> Bool =
                op == .lt ? { JsonLogic.less($0, $1) } : { !JsonLogic.less($1, $0) && JsonLogic.comparable($0, $1) }
            if values.count == 3 { return .bool(compare(values[0], values[1]) && compare(values[1], values[2])) }
            return .bool(compare(values[0], values[1]))
        case .gt: return .bool(JsonLogic.less(arg(1), arg(0)))
        case .ge: return .bool(!JsonLogic.less(arg(0), arg(1)) && JsonLogic.comparable(arg(0), arg(1)))
        case .mod: return .number(arg(0).number.truncatingRemainder(dividingBy: arg(1).number))
        case .div: return .number(arg(0).number / arg(1).number)
        case .mul: return .number(args.reduce(1) { $0 * eval($1, data).parsedFloat })
        case .add: return .number(args.reduce(0) { $0 + eval($1, data).parsedFloat })
        case .sub:
            if args.count == 1 { return .number(-arg(0).number) }
            return .number(arg(0).number - arg(1).number)
        case .min, .max:
            let numbers = args.map { eval($0, data).number }
            guard !numbers.isEmpty else { return .null }
            if numbers.contains(where: \.isNaN) { return .null }
            return .number(op == .min ? numbers.min() ?? 0 : numbers.max() ?? 0)
        case .merge:
            var result: [LogicValue] = []
            for node in args {
                let value = eval(node, data)
                if case .array(let items) = value { result += items } else { result.append(value) }
            }
            return .array(result)
        case .cat: return .string(args.map { eval($0, data).text }.joined())
        case .substr:
            // JavaScript strings are UTF-16.
            let units = Array(arg(0).text.utf16)
            var start = JsonLogic.int(arg(1).number)
            if start < 0 { start = max(units.count + start, 0) }
            start = min(start, units.count)
            var end = units.count
            if args.count > 2 {
                let length = JsonLogic.int(arg(2).number)
                end = length < 0 ? max(units.count + length, start) : min(start &+ min(length, units.count), units.count)
            }
            return .string(String(decoding: units[start..<max(end, start)], as: UTF16.self))
        case .in:
            let needle = arg(0)
            switch arg(1) {
            case .string(let haystack):
                let text = needle.text
                return .bool(text.isEmpty || haystack.utf8.count >= text.utf8.count && haystack.range(of: text, options: .literal) != nil)
            case .array(let items): return .bool(items.contains { JsonLogic.strictEquals($0, needle) })
            default: return .bool(false)
            }
        case .map, .filter, .all, .none, .some:
            guard case .array(let items) = arg(0) else {
                return op == .map || op == .filter ? .array([]) : .bool(op == .none)
            }
            let rule = args.count > 1 ? args[1] : .literal(.null)
            switch op {
            case .map: return .array(items.map { eval(rule, $0) })
            case .filter: return .array(items.filter { eval(rule, $0).truthy })
            case .all: return .bool(!items.isEmpty && items.allSatisfy { eval(rule, $0).truthy })
            case .none: return .bool(!items.contains { eval(rule, $0).truthy })
            default: return .bool(items.contains { eval(rule, $0).truthy })
            }
        case .reduce:
            guard case .array(let items) = arg(0) else { return arg(2) }
            let rule = args.count > 1 ? args[1] : .literal(.null)
            return items.reduce(arg(2)) { accumulator, current in
                eval(rule, .object(["current": current, "accumulator": accumulator]))
            }
        case .startsWith, .endsWith:
            guard args.count == 2, case .string(let subject) = arg(0), case .string(let affix) = arg(1) else { return .null }
            let bytes = Array(subject.utf8)
            let part = Array(affix.utf8)
            return .bool(op == .startsWith ? bytes.starts(with: part) : bytes.reversed().starts(with: part.reversed()))
        case .semVer:
            return JsonLogic.semVer(args.map { eval($0, data) })
        case .fractional:
            return Fractional.evaluate(args.map { eval($0, data) }, data: data, version: fractionalVersion)
        }
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
        case "^": return .bool(left.major == right.major)
        case "~": return .bool(left.major == right.major && left.minor == right.minor)
        default: return .null
        }
    }
}
