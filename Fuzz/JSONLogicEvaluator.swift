// libFuzzer target: the JSONLogic evaluator with flagd's operators (sem_ver, fractional,
// MurmurHash3, CBOR). Built by scripts/fuzz with the SQLite-free modules it imports.

@testable import PrefsBase
@testable import PrefsFlags
@testable import PrefsJSON

/// The first line of the input is a rule, the rest the data it is evaluated against. Both
/// are parsed, the rule compiled and evaluated with every fractional hashing version; the
/// result must always be writable as JSON that parses again. The data's `$evaluators`, when
/// it has some, are also the evaluators the rule's `$ref`s name (compiled once and shared,
/// within RuleCompiler's size and depth limits), and are checked as an import checks them.
/// The tracer of `flag explain` must give the evaluator's result.
@_cdecl("LLVMFuzzerTestOneInput")
public func jsonLogicFuzzTest(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
    guard let ruleJSON = try? JSONValue(parsingUTF8: Array(bytes[..<newline])) else { return 0 }
    var context = LogicValue.object([:])
    var evaluators: [JSONValue.Member] = []
    if newline < bytes.count, let dataJSON = try? JSONValue(parsingUTF8: Array(bytes[(newline + 1)...])) {
        context = LogicValue(dataJSON)
        evaluators = dataJSON["$evaluators"]?.objectMembers ?? []
    }
    if !evaluators.isEmpty {
        var table: [String: JSONValue] = [:]
        for member in evaluators { table[member.key] = member.value }
        var compiler = RuleCompiler(evaluators: table)
        if let compiled = try? compiler.compile(ruleJSON) {
            _ = JSONLogic(root: compiled.node, fractionalVersion: .v3).evaluate(context)
        }
        var check = RuleCompiler(evaluators: table, lenient: true)
        _ = try? check.checkEvaluators(evaluators.map(\.key))
    }
    for version in FractionalVersion.allCases {
        guard let rule = try? JSONLogic(ruleJSON, fractionalVersion: version) else { return 0 }
        let result = rule.evaluate(context).json
        guard let again = try? JSONValue(parsing: result.compactText), again == result else {
            fatalError("result is not valid JSON: \(result.compactText.debugDescription)")
        }
        _ = rule.evaluate(.object(["targetingKey": .string("user-1"), "$flagd": .object(["flagKey": .string("flag")])]))
        // `flag explain`'s tracer must reach the evaluator's result.
        if let plain = try? rule.evaluate(checking: context) {
            var tracer = RuleTracer(logic: rule)
            if let (traced, _) = try? tracer.trace(context), traced.json != plain.json {
                fatalError("the trace gives \(traced.json.compactText), evaluation \(plain.json.compactText)")
            }
        }
    }
    return 0
}
