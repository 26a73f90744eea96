import PrefsBase
import PrefsJSON

/// Compiles targeting rules whose `{"$ref": "name"}`s name shared evaluators.
///
/// Each evaluator is compiled once and its node shared by every rule that refers to it, so a
/// chain where each level refers twice to the next takes memory in proportion to the
/// document, not 2^levels. The rule as if expanded is still bounded: at most
/// ``maximumExpandedSize`` nodes and ``maximumDepth`` levels, with no cycles; what goes beyond
/// is refused with the JSON path of the `$ref` (by import) or is a PARSE_ERROR (evaluation of
/// a document that reached the store another way). Evaluating shared nodes counts every visit
/// in ``JSONLogic/evaluationBudget``.
package struct RuleCompiler {
    /// The most nodes a rule may have with every `$ref` expanded.
    static let maximumExpandedSize = 1_000_000
    /// The most levels a rule may nest with every `$ref` expanded: as deep as one JSON
    /// document may nest.
    static let maximumDepth = JSONParser.maximumDepth

    /// A compiled rule with its expanded size and height.
    package struct Compiled {
        var node: JSONLogic.Node
        var size: Int
        var height: Int
    }

    /// Why a rule cannot be compiled, and where.
    package struct Failure: Error {
        var message: String
        /// Whether the failure depends on the depth the rule was reached at.
        var dependsOnDepth = false
        /// The evaluator the path starts at; nil: the rule being compiled.
        var evaluator: String?
        /// Path components, innermost first.
        var components: [String] = []

        /// `PATH: message`, the path starting at `root` unless inside an evaluator.
        package func describe(root: String) -> String {
            let start = evaluator.map { "$.$evaluators" + JSONPath.member($0) } ?? root
            return start + components.reversed().joined() + ": " + message
        }
    }

    let evaluators: [String: JSONValue]
    /// Whether unknown operators and `$ref`s to missing evaluators compile (to null): import
    /// checks only the size, depth and cycles and leaves those to evaluation (PARSE_ERROR).
    let lenient: Bool
    /// Whether a `$ref` compiles to a ``JSONLogic/Node/reference(_:_:)`` naming its evaluator
    /// (for `flag explain`); otherwise to the evaluator's node itself.
    var marksReferences = false
    private var compiled: [String: Compiled] = [:]
    private var literals: [String: (value: JSONValue, size: Int, height: Int)] = [:]
    private var failed: [String: Failure] = [:]
    private var visiting: Set<String> = []

    package init(evaluators: [String: JSONValue], lenient: Bool = false) {
        self.evaluators = evaluators
        self.lenient = lenient
    }

    /// Compiles a rule whose root sits at `depth` (1 for a flag's targeting).
    package mutating func compile(_ rule: JSONValue, depth: Int = 1) throws(Failure) -> Compiled {
        // Each case in its own function keeps this frame small: the recursion goes through
        // here once per level.
        guard depth <= Self.maximumDepth else { throw Self.tooDeep(rule) }
        switch rule {
        case .array(let items):
            return try compileArray(items, depth: depth)
        case .object(let members) where members.count == 1:
            if members[0].key == "$ref" { return try reference(members[0].value, depth: depth) }
            return try compileOperator(members[0], depth: depth)
        default:
            let expanded = try literal(rule, depth: depth)
            return Compiled(node: .literal(LogicValue(expanded.value)), size: expanded.size, height: expanded.height)
        }
    }

    private static func tooDeep(_ rule: JSONValue) -> Failure {
        let what = referenceName(rule).map { "$ref \(JSONValue.string($0).compactText) nests" } ?? "nests"
        return Failure(message: "\(what) the rule deeper than \(maximumDepth) levels", dependsOnDepth: true)
    }

    private mutating func compileArray(_ items: [JSONValue], depth: Int) throws(Failure) -> Compiled {
        var nodes: [JSONLogic.Node] = []
        nodes.reserveCapacity(items.count)
        var size = 1
        var height = 0
        for (index, item) in items.enumerated() {
            let part = try child(item, depth: depth + 1, "[\(index)]", size: &size)
            nodes.append(part.node)
            height = max(height, part.height)
        }
        return Compiled(node: .array(nodes), size: size, height: height + 1)
    }

    private mutating func compileOperator(_ member: JSONValue.Member, depth: Int) throws(Failure) -> Compiled {
        let op = JSONLogic.Operator(rawValue: member.key)
        if op == nil && !lenient {
            throw Failure(message: "unknown operator \(JSONValue.string(member.key).compactText)")
        }
        let component = JSONPath.member(member.key)
        var size = 1
        var height = 0
        var args: [JSONLogic.Node] = []
        // `{"op": {"$ref": …}}` whose evaluator is an array reads as `{"op": [...]}`, as
        // flagd's textual replacement does.
        let value = argumentsThroughReferences(member.value)
        if case .array(let items) = value {
            args.reserveCapacity(items.count)
            for (index, item) in items.enumerated() {
                let part: Compiled
                do throws(Failure) {
                    part = try child(item, depth: depth + 1, "[\(index)]", size: &size)
                } catch var failure {
                    if failure.evaluator == nil { failure.components.append(component) }
                    throw failure
                }
                args.append(part.node)
                height = max(height, part.height)
            }
        } else {
            let part = try child(value, depth: depth + 1, component, size: &size)
            args.append(part.node)
            height = part.height
        }
        guard let op else { return Compiled(node: .literal(.null), size: size, height: height + 1) }
        return Compiled(node: .op(op, args), size: size, height: height + 1)
    }

    /// Compiles one part and adds its size to the whole, refusing the part that makes the
    /// whole too large.
    private mutating func child(_ rule: JSONValue, depth: Int, _ component: String, size: inout Int) throws(Failure) -> Compiled {
        let part: Compiled
        do throws(Failure) {
            part = try compile(rule, depth: depth)
        } catch {
            throw Self.located(error, component)
        }
        try Self.add(part.size, of: rule, component, to: &size)
        return part
    }

    /// A part's failure, its place named (unless it lies inside an evaluator, which names its own).
    private static func located(_ failure: Failure, _ component: String) -> Failure {
        var failure = failure
        if failure.evaluator == nil { failure.components.append(component) }
        return failure
    }

    /// Adds a part's size to the whole, refusing the part that makes the whole too large.
    private static func add(_ partSize: Int, of part: JSONValue, _ component: String, to size: inout Int) throws(Failure) {
        size += partSize
        guard size > maximumExpandedSize else { return }
        let what = referenceName(part).map { "$ref \(JSONValue.string($0).compactText) expands" } ?? "expands"
        throw Failure(message: "\(what) the rule beyond \(maximumExpandedSize) nodes", components: [component])
    }

    /// The name in `{"$ref": "name"}`, when the value is one.
    private static func referenceName(_ value: JSONValue) -> String? {
        guard case .object(let members) = value, members.count == 1, members[0].key == "$ref" else { return nil }
        return members[0].value.stringValue ?? members[0].value.compactText
    }

    /// The operator's value, following `$ref`s when they lead to an array.
    private func argumentsThroughReferences(_ value: JSONValue) -> JSONValue {
        var current = value
        var steps = 0
        while let name = Self.referenceName(current), let target = evaluators[name] {
            steps += 1
            if steps > evaluators.count { return value }  // a cycle: reported when compiled
            current = target
        }
        if case .array = current { return current }
        return value
    }

    /// The shared compiled node of an evaluator.
    private mutating func reference(_ value: JSONValue, depth: Int) throws(Failure) -> Compiled {
        guard let name = value.stringValue, let target = evaluators[name] else {
            if lenient { return Compiled(node: .literal(.null), size: 1, height: 1) }
            throw Failure(message: "$ref to a missing evaluator \(value.compactText)")
        }
        let shown = JSONValue.string(name).compactText
        if let done = compiled[name] {
            guard depth - 1 + done.height <= Self.maximumDepth else {
                throw Failure(message: "$ref \(shown) nests the rule deeper than \(Self.maximumDepth) levels", dependsOnDepth: true)
            }
            return marked(name, done)
        }
        if let failure = failed[name] { throw failure }
        if visiting.contains(name) { throw Failure(message: "$ref \(shown) forms a cycle") }
        visiting.insert(name)
        defer { visiting.remove(name) }
        do throws(Failure) {
            let result = try compile(target, depth: depth)
            compiled[name] = result
            return marked(name, result)
        } catch var failure {
            if failure.evaluator == nil { failure.evaluator = name }
            if !failure.dependsOnDepth && visiting.count == 1 { failed[name] = failure }
            throw failure
        }
    }

    private func marked(_ name: String, _ result: Compiled) -> Compiled {
        guard marksReferences else { return result }
        return Compiled(node: .reference(name, result.node), size: result.size, height: result.height)
    }

    /// A literal (not a rule) with the `$ref`s inside replaced by their evaluators' JSON.
    private mutating func literal(_ value: JSONValue, depth: Int) throws(Failure) -> (value: JSONValue, size: Int, height: Int) {
        guard depth <= Self.maximumDepth else { throw Self.tooDeep(value) }
        switch value {
        case .object(let members) where members.count == 1 && members[0].key == "$ref":
            guard let name = members[0].value.stringValue, let target = evaluators[name] else {
                if lenient { return (.null, 1, 1) }
                throw Failure(message: "$ref to a missing evaluator \(members[0].value.compactText)")
            }
            let shown = JSONValue.string(name).compactText
            if let done = literals[name] {
                guard depth - 1 + done.height <= Self.maximumDepth else {
                    throw Failure(message: "$ref \(shown) nests the rule deeper than \(Self.maximumDepth) levels", dependsOnDepth: true)
                }
                return done
            }
            if visiting.contains(name) { throw Failure(message: "$ref \(shown) forms a cycle") }
            visiting.insert(name)
            defer { visiting.remove(name) }
            do throws(Failure) {
                let result = try literal(target, depth: depth)
                literals[name] = result
                return result
            } catch var failure {
                if failure.evaluator == nil { failure.evaluator = name }
                throw failure
            }
        case .object(let members):
            var size = 1
            var height = 0
            var result: [JSONValue.Member] = []
            result.reserveCapacity(members.count)
            for member in members {
                let part = try literalPart(member.value, depth: depth + 1, JSONPath.member(member.key), size: &size)
                result.append(.init(member.key, part.value))
                height = max(height, part.height)
            }
            return (.object(result), size, height + 1)
        case .array(let items):
            var size = 1
            var height = 0
            var result: [JSONValue] = []
            result.reserveCapacity(items.count)
            for (index, item) in items.enumerated() {
                let part = try literalPart(item, depth: depth + 1, "[\(index)]", size: &size)
                result.append(part.value)
                height = max(height, part.height)
            }
            return (.array(result), size, height + 1)
        default:
            return (value, 1, 1)
        }
    }

    private mutating func literalPart(_ value: JSONValue, depth: Int, _ component: String, size: inout Int) throws(Failure) -> (
        value: JSONValue, size: Int, height: Int
    ) {
        let part: (value: JSONValue, size: Int, height: Int)
        do throws(Failure) {
            part = try literal(value, depth: depth)
        } catch {
            throw Self.located(error, component)
        }
        try Self.add(part.size, of: value, component, to: &size)
        return part
    }

    /// Checks every evaluator on its own (as if a rule were just `{"$ref": name}`).
    package mutating func checkEvaluators(_ names: [String]) throws(Failure) {
        for name in names { _ = try reference(.string(name), depth: 1) }
    }
}
