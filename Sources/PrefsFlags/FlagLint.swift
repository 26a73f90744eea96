import PrefsBase
import PrefsJSON

/// Checks a flagd document beyond validity (`prefs flag lint`): targeting that returns a name
/// that is not a variant, variants nothing can reach, `fractional` weights that sum to 0, are
/// negative or name a variant twice, unused and missing `$evaluators`, variants of mixed types,
/// `defaultVariant` null without targeting, a disabled flag never enabled. Each finding has
/// its JSON path and, from the text, its line and column.
///
/// ```swift
/// let findings = FlagLint.lint(Array(text.utf8), validate: { _ = try FlagDocument.validate($0) })
/// ```
public enum FlagLint {
    /// Lints a document given as its text.
    ///
    /// - Parameters:
    ///   - validate: the validity check an import makes (``FlagDocument/validate(_:)``); its
    ///     error becomes a finding.
    ///   - problems: all the problems that check finds (``FlagDocument/problems(_:)``), each a
    ///     finding; used instead of `validate` when given.
    ///   - everEnabled: for a store, the keys of flags whose history shows them ENABLED; a
    ///     DISABLED flag not among them is reported. nil: no history (a file).
    ///   - bytes: the document as read (for line:column of each finding).
    public static func lint(
        _ bytes: [UInt8], validate: ((JSONValue) throws -> Void)? = nil, problems: ((JSONValue) -> [PrefsError])? = nil,
        everEnabled: Set<String>? = nil
    ) -> [FlagLintFinding] {
        let document: JSONValue
        do {
            document = try JSONValue(parsingUTF8: bytes)
        } catch let error as PrefsError {
            var finding = FlagLintFinding(.error, "json", error.message, path: "$")
            if let range = error.message.firstRange(of: "at byte "),
                let offset = Int(error.message[range.upperBound...].prefix { $0.isNumber })
            {
                let located = JSONPositions.lineAndColumn(in: bytes, atOffset: max(offset - 1, 0))
                (finding.line, finding.column) = (located.line, located.column)
            }
            return [finding]
        } catch {
            return [FlagLintFinding(.error, "json", "\(error)", path: "$")]
        }
        var findings = check(document, everEnabled: everEnabled)
        if let problems {
            for error in problems(document) {
                let (path, message) = split(error.message)
                if !findings.contains(where: { $0.severity == .error && $0.path == path }) {
                    findings.append(FlagLintFinding(.error, "invalid", message, path: path))
                }
            }
        } else if let validate {
            do {
                try validate(document)
            } catch let error as PrefsError {
                let (path, message) = split(error.message)
                if !findings.contains(where: { $0.severity == .error && $0.path == path }) {
                    findings.append(FlagLintFinding(.error, "invalid", message, path: path))
                }
            } catch {
                findings.append(FlagLintFinding(.error, "invalid", "\(error)", path: "$"))
            }
        }
        let positions = JSONPositions(bytes)
        for index in findings.indices {
            if let place = positions.lineAndColumn(of: findings[index].path) {
                (findings[index].line, findings[index].column) = (place.line, place.column)
            }
        }
        return findings.sorted { ($0.line ?? 0, $0.column ?? 0, $0.severity) < ($1.line ?? 0, $1.column ?? 0, $1.severity) }
    }

    /// The findings that make a document one an import refuses although it is valid: targeting
    /// that returns a literal name that is not a variant of its flag (`unknown-variant`), or an
    /// array or object where a name is returned (`not-a-name`). Each answers a GENERAL error at
    /// evaluation for the contexts that reach it.
    public static func returnsNoVariant(_ document: JSONValue) -> [FlagLintFinding] {
        check(document, everEnabled: nil).filter { $0.check == "unknown-variant" || $0.check == "not-a-name" }
    }

    /// `"$.a.b: message"` → (`$.a.b`, `message`).
    static func split(_ text: String) -> (String, String) {
        guard text.hasPrefix("$"), let colon = text.firstRange(of: ": ") else { return ("$", text) }
        return (String(text[..<colon.lowerBound]), String(text[colon.upperBound...]))
    }

    /// The checks on a parsed document.
    static func check(_ document: JSONValue, everEnabled: Set<String>?) -> [FlagLintFinding] {
        var findings: [FlagLintFinding] = []
        guard let flags = document["flags"]?.objectMembers else { return findings }
        let evaluatorMembers = document["$evaluators"]?.objectMembers ?? []
        var evaluators: [String: JSONValue] = [:]
        for member in evaluatorMembers { evaluators[member.key] = member.value }
        // $refs: where each is, and which evaluators are used.
        var used: Set<String> = []
        var references: [(name: JSONValue, path: String)] = []
        func collectReferences(_ value: JSONValue, path: String, depth: Int) {
            guard depth < JSONParser.maximumDepth, references.count < 100_000 else { return }
            switch value {
            case .object(let members):
                if members.count == 1, members[0].key == "$ref" {
                    references.append((members[0].value, path))
                    if let name = members[0].value.stringValue { used.insert(name) }
                    return
                }
                for member in members { collectReferences(member.value, path: path + JSONPath.member(member.key), depth: depth + 1) }
            case .array(let items):
                for (index, item) in items.enumerated() { collectReferences(item, path: path + "[\(index)]", depth: depth + 1) }
            default: break
            }
        }
        for member in evaluatorMembers {
            collectReferences(member.value, path: "$.$evaluators" + JSONPath.member(member.key), depth: 0)
        }
        for flag in flags {
            if let targeting = flag.value["targeting"] {
                collectReferences(targeting, path: "$.flags" + JSONPath.member(flag.key) + ".targeting", depth: 0)
            }
        }
        for reference in references where reference.name.stringValue.map({ evaluators[$0] == nil }) ?? true {
            findings.append(
                FlagLintFinding(
                    .error, "missing-evaluator", "$ref to \(reference.name.compactText), which is not in $evaluators: PARSE_ERROR",
                    path: reference.path))
        }
        for member in evaluatorMembers where !used.contains(member.key) {
            findings.append(
                FlagLintFinding(
                    .warning, "unused-evaluator", "evaluator \(JSONValue.string(member.key).compactText) is not used by any flag",
                    path: "$.$evaluators" + JSONPath.member(member.key)))
        }
        for member in evaluatorMembers {
            findings += OperandCheck.check(member.value, path: "$.$evaluators" + JSONPath.member(member.key))
        }
        for flag in flags {
            if let targeting = flag.value["targeting"] {
                findings += OperandCheck.check(targeting, path: "$.flags" + JSONPath.member(flag.key) + ".targeting")
            }
        }
        var compiler = RuleCompiler(evaluators: evaluators)
        for flag in flags {
            findings += checkFlag(flag, evaluators: evaluators, compiler: &compiler, everEnabled: everEnabled)
        }
        return findings
    }

    private static func checkFlag(
        _ flag: JSONValue.Member, evaluators: [String: JSONValue], compiler: inout RuleCompiler, everEnabled: Set<String>?
    ) -> [FlagLintFinding] {
        var findings: [FlagLintFinding] = []
        let path = "$.flags" + JSONPath.member(flag.key)
        let shown = JSONValue.string(flag.key).compactText
        guard let variants = flag.value["variants"]?.objectMembers else { return findings }
        let names = Set(variants.map(\.key))
        let types = Set(variants.map(\.value.typeName))
        if types.count > 1 {
            findings.append(
                FlagLintFinding(
                    .error, "mixed-types", "the variants of \(shown) are of mixed types (\(types.sorted().joined(separator: ", ")))",
                    path: path + ".variants"))
        }
        let defaultVariant = flag.value["defaultVariant"]?.stringValue
        let targeting = flag.value["targeting"].flatMap { $0 == .object([]) || $0 == .null ? nil : $0 }
        if defaultVariant == nil && targeting == nil {
            findings.append(
                FlagLintFinding(
                    .warning, "no-default", "\(shown) has no defaultVariant and no targeting: it always answers the caller's default",
                    path: flag.value["defaultVariant"] == nil ? path : path + ".defaultVariant"))
        }
        if flag.value["state"]?.stringValue == "DISABLED", let everEnabled, !everEnabled.contains(flag.key) {
            findings.append(
                FlagLintFinding(
                    .warning, "never-enabled", "\(shown) is DISABLED and its history shows it never ENABLED", path: path + ".state"))
        }
        var reachable: Set<String> = defaultVariant.map { [$0] } ?? []
        var dynamic = false
        if let targeting {
            let targetingPath = path + ".targeting"
            do throws(RuleCompiler.Failure) {
                _ = try compiler.compile(targeting)
            } catch {
                if !error.message.hasPrefix("$ref to a missing evaluator") {
                    let (place, message) = split(error.describe(root: targetingPath))
                    findings.append(FlagLintFinding(.error, "targeting", message + ": PARSE_ERROR", path: place))
                }
            }
            var analysis = ReturnAnalysis(evaluators: evaluators)
            analysis.visit(targeting, path: targetingPath, depth: 0)
            dynamic = analysis.dynamic
            findings += analysis.findings
            for returned in analysis.names {
                reachable.insert(returned.name)
                if !names.contains(returned.name) {
                    let what =
                        returned.fromBoolean ? "can return \(returned.name)" : "returns \(JSONValue.string(returned.name).compactText)"
                    findings.append(
                        FlagLintFinding(
                            .error, "unknown-variant", "the targeting of \(shown) \(what), which is not a variant: GENERAL error",
                            path: returned.path))
                }
            }
        }
        // A static boolean switch (no targeting, one true and one false variant): the variant
        // that is not the default is the other position of the switch, not a mistake.
        let staticSwitch =
            targeting == nil && variants.count == 2 && Set(variants.map(\.value)) == [.bool(true), .bool(false)]
        if !dynamic && !staticSwitch {
            for variant in variants where !reachable.contains(variant.key) {
                findings.append(
                    FlagLintFinding(
                        .warning, "unreachable-variant",
                        "variant \(JSONValue.string(variant.key).compactText) of \(shown) is neither the default nor returned by the targeting",
                        path: path + ".variants" + JSONPath.member(variant.key)))
            }
        }
        return findings
    }

    /// What a targeting rule can return, where, and the `fractional` problems on the way.
    private struct ReturnAnalysis {
        let evaluators: [String: JSONValue]
        var names: [(name: String, path: String, fromBoolean: Bool)] = []
        var dynamic = false
        var findings: [FlagLintFinding] = []
        var visiting: Set<String> = []
        var steps = 0

        static let booleanOperators: Set<String> = [
            "==", "===", "!=", "!==", "!", "!!", "<", "<=", ">", ">=", "in", "starts_with", "ends_with", "sem_ver", "all", "none", "some",
        ]

        package init(evaluators: [String: JSONValue]) {
            self.evaluators = evaluators
        }

        mutating func visit(_ rule: JSONValue, path: String, depth: Int) {
            steps += 1
            guard steps < 100_000, depth < JSONParser.maximumDepth else {
                dynamic = true
                return
            }
            switch rule {
            case .string(let s): names.append((s, path, false))
            case .bool(let b): names.append((b ? "true" : "false", path, true))
            case .null: break
            case .number(let text) where Double(text)?.isFinite == true:
                // A number names the variant of its JSON text, as flagd's Go evaluator reads it.
                names.append((LogicValue.format(Double(text) ?? 0), path, false))
            case .object(let members) where members.count == 1:
                let op = members[0].key
                let argsPath = path + JSONPath.member(op)
                let args = members[0].value.arrayItems ?? [members[0].value]
                func item(_ index: Int) -> String { members[0].value.arrayItems == nil ? argsPath : argsPath + "[\(index)]" }
                switch op {
                case "$ref":
                    guard let name = members[0].value.stringValue, let target = evaluators[name], !visiting.contains(name) else {
                        dynamic = true
                        return
                    }
                    visiting.insert(name)
                    visit(target, path: "$.$evaluators" + JSONPath.member(name), depth: depth + 1)
                    visiting.remove(name)
                case "if", "?:":
                    var index = 1
                    while index < args.count {
                        visit(args[index], path: item(index), depth: depth + 1)
                        index += 2
                    }
                    if args.count % 2 == 1 { visit(args[args.count - 1], path: item(args.count - 1), depth: depth + 1) }
                case "and", "or":
                    for index in args.indices { visit(args[index], path: item(index), depth: depth + 1) }
                case "fractional":
                    fractional(args, path: argsPath)
                case "rollout":
                    // The sides it can return: `to`, and `from` unless it is the default variant.
                    guard let layout = OperandCheck.rolloutLayout(args) else {
                        dynamic = true
                        return
                    }
                    for index in layout.sides { visit(args[index], path: item(index), depth: depth + 1) }
                case _ where Self.booleanOperators.contains(op):
                    names.append(("true", path, true))
                    names.append(("false", path, true))
                default:
                    dynamic = true
                }
            default:
                // An array or object literal is never a variant name: GENERAL error.
                findings.append(
                    FlagLintFinding(
                        .error, "not-a-name", "targeting can return \(rule.compactText), which is not a variant name", path: path))
            }
        }

        mutating func fractional(_ args: [JSONValue], path: String) {
            var start = 0
            if let first = args.first, first.arrayItems == nil { start = 1 }
            var seen: Set<String> = []
            var total = 0.0
            for index in args.indices where index >= start {
                guard let parts = args[index].arrayItems, !parts.isEmpty else {
                    dynamic = true
                    continue
                }
                let bucketPath = path + "[\(index)]"
                switch parts[0] {
                case .string(let s):
                    names.append((s, bucketPath + "[0]", false))
                    if !seen.insert(s).inserted {
                        findings.append(
                            FlagLintFinding(
                                .error, "fractional-duplicate", "fractional names variant \(JSONValue.string(s).compactText) twice",
                                path: bucketPath + "[0]"))
                    }
                case .bool(let b): names.append((b ? "true" : "false", bucketPath + "[0]", true))
                default: dynamic = true
                }
                if parts.count > 1 {
                    if case .number(let text) = parts[1], let weight = Double(text), weight < 0 {
                        findings.append(
                            FlagLintFinding(
                                .error, "fractional-negative-weight", "a negative fractional weight: it always returns null",
                                path: bucketPath + "[1]"))
                    }
                    if case .number(let text) = parts[1], let weight = Double(text) { total += max(weight, 0) } else { total += 1 }
                } else {
                    total += 1
                }
            }
            if total == 0 && args.count > start {
                findings.append(
                    FlagLintFinding(.error, "fractional-weights", "the fractional weights sum to 0: it always returns null", path: path))
            }
        }
    }
}

extension JSONValue {
    fileprivate var arrayItems: [JSONValue]? {
        if case .array(let items) = self { return items }
        return nil
    }
}

/// Arity and operand types of flagd's `lower`, `upper` and `rollout`, wherever they appear:
/// what flagd's Go evaluator would answer null for.
enum OperandCheck {
    /// Where `rollout`'s operands are: the index of its start time and of the sides it returns
    /// (nil when the start cannot be told from the literal operands).
    static func rolloutLayout(_ args: [JSONValue]) -> (start: Int, sides: [Int])? {
        guard let first = args.first else { return nil }
        let start: Int
        switch first {
        case .number: start = 0
        case .null, .object: start = 1
        default: return nil
        }
        let remaining = args.count - start - 2
        guard remaining >= 1 else { return nil }
        return (start, remaining == 1 ? [start + 2] : [start + 2, start + 3])
    }

    static func check(_ rule: JSONValue, path: String) -> [FlagLintFinding] {
        var findings: [FlagLintFinding] = []
        var steps = 0
        func walk(_ value: JSONValue, _ path: String, _ depth: Int) {
            steps += 1
            guard steps < 100_000, depth < JSONParser.maximumDepth else { return }
            switch value {
            case .object(let members):
                if members.count == 1 {
                    let op = members[0].key
                    let argsPath = path + JSONPath.member(op)
                    if op == "lower" || op == "upper" { findings += casing(op, members[0].value, argsPath) }
                    if op == "rollout" { findings += rollout(members[0].value, argsPath) }
                }
                for member in members { walk(member.value, path + JSONPath.member(member.key), depth + 1) }
            case .array(let items):
                for (index, item) in items.enumerated() { walk(item, path + "[\(index)]", depth + 1) }
            default: break
            }
        }
        walk(rule, path, 0)
        return findings
    }

    private static func isRule(_ value: JSONValue) -> Bool {
        if case .object(let members) = value, members.count == 1 { return true }
        return false
    }

    private static func casing(_ op: String, _ value: JSONValue, _ path: String) -> [FlagLintFinding] {
        var operand = value
        var operandPath = path
        if let items = value.arrayItems {
            guard items.count == 1 else {
                return [
                    FlagLintFinding(.error, "arity", "\(op) takes one operand, not \(items.count): it returns null", path: path)
                ]
            }
            operand = items[0]
            operandPath = path + "[0]"
        }
        if case .string = operand { return [] }
        if isRule(operand) { return [] }
        return [
            FlagLintFinding(
                .error, "operand-type", "\(op) of \(operand.compactText) returns null: its operand must be a string", path: operandPath)
        ]
    }

    private static func rollout(_ value: JSONValue, _ path: String) -> [FlagLintFinding] {
        guard let args = value.arrayItems else {
            return [FlagLintFinding(.error, "arity", "rollout takes an array of 3 to 5 operands: it returns null", path: path)]
        }
        guard args.count >= 3 else {
            return [
                FlagLintFinding(
                    .error, "arity",
                    "rollout takes 3 to 5 operands (start, end, the variant rolled to), not \(args.count): it returns null",
                    path: path)
            ]
        }
        if case .string(let s) = args[0] {
            return [
                FlagLintFinding(
                    .error, "operand-type",
                    "rollout's first operand \(JSONValue.string(s).compactText) is a literal string: a bucketing value must be an expression "
                        + "such as {\"var\": \"email\"} (it returns null)",
                    path: path + "[0]")
            ]
        }
        guard let layout = rolloutLayout(args) else {
            if case .number = args[0] {
            } else if args[0] != .null && !isRule(args[0]) {
                return [
                    FlagLintFinding(
                        .error, "operand-type",
                        "rollout's first operand \(args[0].compactText) is neither a time nor an expression: it returns null",
                        path: path + "[0]")
                ]
            }
            return [FlagLintFinding(.error, "arity", "rollout has no variant to roll to after its times: it returns null", path: path)]
        }
        var findings: [FlagLintFinding] = []
        var times: [Double] = []
        for index in [layout.start, layout.start + 1] {
            switch args[index] {
            case .number(let text):
                let n = Double(text) ?? .nan
                if !(n > -2_147_483_649 && n < 2_147_483_648) {
                    findings.append(
                        FlagLintFinding(
                            .error, "operand-type", "rollout's time \(text) is beyond 32-bit Unix seconds: it returns null",
                            path: path + "[\(index)]"))
                }
                times.append(n.rounded(.towardZero))
            case let other where isRule(other): break
            default:
                findings.append(
                    FlagLintFinding(
                        .error, "operand-type",
                        "rollout's \(index == layout.start ? "start" : "end") time \(args[index].compactText) is not a number: it returns null",
                        path: path + "[\(index)]"))
            }
        }
        if times.count == 2, times[1] <= times[0] {
            findings.append(
                FlagLintFinding(
                    .error, "rollout-window", "rollout's end time is not after its start time: it returns null",
                    path: path + "[\(layout.start + 1)]"))
        }
        if args.count > layout.start + 4 {
            findings.append(
                FlagLintFinding(
                    .warning, "arity", "rollout ignores the operands after its from and to", path: path + "[\(layout.start + 4)]"))
        }
        return findings
    }
}
