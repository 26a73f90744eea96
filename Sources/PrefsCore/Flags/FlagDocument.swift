import FoundationEssentials
import Glibc

/// Validation of flagd flag-definition documents.
public enum FlagDocument {
    /// Checks a document and returns the `switch` entries it stands for: one per flag, plus
    /// `$evaluators` and `$metadata` when present.
    ///
    /// - Throws: `PrefsError` of kind `invalidValue` naming the JSON path of the problem.
    /// The flag metadata `prefs flag export` gives a plain value of `switch` (a flag with the
    /// one variant `static`), so that importing the export stores the plain value again.
    public static let plainValueMarker = "prefsPlainValue"

    /// The plain value an exported plain key stands for: a flag marked with
    /// ``plainValueMarker``, enabled, with the one variant `static` as its default and no
    /// targeting; nil for any other flag.
    static func plainValue(of definition: JSONValue) -> JSONValue? {
        guard definition["metadata"] == .object([JSONValue.Member(plainValueMarker, .bool(true))]),
            definition["state"] == .string("ENABLED"),
            definition["defaultVariant"] == .string(FlagSet.staticVariant), definition["targeting"] == nil,
            let variants = definition["variants"]?.objectMembers, variants.count == 1, variants[0].key == FlagSet.staticVariant
        else { return nil }
        return variants[0].value
    }

    public static func validate(_ document: JSONValue) throws -> [JSONValue.Member] {
        var first: PrefsError?
        let members = check(document) { if first == nil { first = $0 } }
        if let first { throw first }
        return members
    }

    /// Every problem ``validate(_:)`` would refuse the document for, in document order (it
    /// throws the first): `flag lint` reports them all at once.
    public static func problems(_ document: JSONValue) -> [PrefsError] {
        var problems: [PrefsError] = []
        _ = check(document) { problems.append($0) }
        return problems
    }

    /// The checks of ``validate(_:)``, each problem given to `report`; a problem that makes the
    /// rest of its flag (or document) unreadable ends the checks of that flag (or document).
    private static func check(_ document: JSONValue, report: (PrefsError) -> Void) -> [JSONValue.Member] {
        func fail(_ path: String, _ message: String) { report(PrefsError(.invalidValue, "\(path): \(message)")) }
        guard let top = document.objectMembers else {
            fail("$", "a flagd document is a JSON object")
            return []
        }
        for member in top where !["$schema", "flags", "$evaluators", "metadata"].contains(member.key) {
            fail("$" + JSONPath.member(member.key), "unknown property")
        }
        let flagMembers = document["flags"]?.objectMembers
        if flagMembers == nil { fail("$.flags", "required, an object of flags") }
        var result: [JSONValue.Member] = []
        var evaluators: [JSONValue.Member] = []
        if let value = document["$evaluators"] {
            if let members = value.objectMembers {
                evaluators = members
                result.append(.init(FlagSet.evaluatorsKey, value))
            } else {
                fail("$.$evaluators", "expected an object")
            }
        }
        if let metadata = document["metadata"] {
            do {
                try checkMetadata(metadata, path: "$.metadata")
                result.append(.init(FlagSet.metadataKey, metadata))
            } catch let error as PrefsError {
                report(error)
            } catch {
                fail("$.metadata", "\(error)")
            }
        }
        guard let flags = flagMembers else { return result }
        for flag in flags {
            let path = "$.flags" + JSONPath.member(flag.key)
            var valid = true
            func flagFail(_ path: String, _ message: String) {
                fail(path, message)
                valid = false
            }
            do {
                try KeyName.validate(flag.key)
            } catch let error as PrefsError {
                flagFail(path, error.message)
            } catch {
                flagFail(path, "\(error)")
            }
            if flag.key == FlagSet.evaluatorsKey || flag.key == FlagSet.metadataKey { flagFail(path, "reserved name") }
            guard let members = flag.value.objectMembers else {
                fail(path, "expected an object")
                continue
            }
            let known: Set<String> = ["state", "variants", "defaultVariant", "targeting", "metadata"]
            for unknown in members where !known.contains(unknown.key) {
                flagFail(path + JSONPath.member(unknown.key), "unknown property")
            }
            if flag.value["state"]?.stringValue.map({ $0 == "ENABLED" || $0 == "DISABLED" }) != true {
                flagFail(path + ".state", "required, ENABLED or DISABLED")
            }
            if let variants = flag.value["variants"]?.objectMembers, !variants.isEmpty {
                let types = Set(variants.map(\.value.typeName))
                if !(types.count == 1 && types.first.map({ ["boolean", "string", "number", "object"].contains($0) }) == true) {
                    flagFail(path + ".variants", "all variants must be of one type: boolean, string, number or object")
                }
                switch flag.value["defaultVariant"] {
                case nil, .null?: break
                case .string(let name)?:
                    if !variants.contains(where: { $0.key == name }) {
                        flagFail(path + ".defaultVariant", "\(JSONValue.string(name).compactText) is not a variant")
                    }
                default: flagFail(path + ".defaultVariant", "expected a variant name or null")
                }
            } else {
                flagFail(path + ".variants", "required, an object with at least one variant")
            }
            if let targeting = flag.value["targeting"], case .object = targeting {
            } else if flag.value["targeting"] != nil {
                flagFail(path + ".targeting", "expected a JSONLogic object")
            }
            if let metadata = flag.value["metadata"] {
                do {
                    try checkMetadata(metadata, path: path + ".metadata")
                } catch let error as PrefsError {
                    report(error)
                    valid = false
                } catch {
                    flagFail(path + ".metadata", "\(error)")
                }
            }
            if valid { result.append(plainValue(of: flag.value).map { JSONValue.Member(flag.key, $0) } ?? flag) }
        }
        do {
            try checkReferences(evaluators: evaluators, flags: flags.filter { $0.value.objectMembers != nil })
        } catch let error as PrefsError {
            report(error)
        } catch {
            fail("$", "\(error)")
        }
        return result
    }

    /// Checks that the evaluators, and the flags' targeting rules with every `$ref` expanded,
    /// stay within the rule compiler's size and depth and have no `$ref` cycles. Every path that
    /// accepts flag definitions (import, refresh, sync) uses this check.
    ///
    /// - Throws: `PrefsError` of kind `invalidValue` naming the JSON path of the `$ref`.
    public static func checkReferences(evaluators: [JSONValue.Member], flags: [JSONValue.Member], flagsAt: String = "$.flags") throws {
        var table: [String: JSONValue] = [:]
        for member in evaluators { table[member.key] = member.value }
        var compiler = RuleCompiler(evaluators: table, lenient: true)
        var root = "$"
        do throws(RuleCompiler.Failure) {
            try compiler.checkEvaluators(evaluators.map(\.key))
            for flag in flags {
                guard let targeting = flag.value["targeting"] else { continue }
                root = flagsAt + JSONPath.member(flag.key) + ".targeting"
                _ = try compiler.compile(targeting)
            }
        } catch {
            throw PrefsError(.invalidValue, error.describe(root: root))
        }
    }

    /// Whether a `switch` entry from a sync peer passes the checks an import makes: the
    /// shared evaluators (`$evaluators`) stay within the `$ref` limits.
    public static func accepts(_ value: JSONValue, forKey key: String) -> Bool {
        guard key == FlagSet.evaluatorsKey else { return true }
        guard let members = value.objectMembers else { return false }
        return (try? checkReferences(evaluators: members, flags: [])) != nil
    }

    /// Checks `switch` given as plain key → value entries (a refresh document without
    /// `flags`): its `$evaluators` and the flag definitions among the entries, as an import
    /// checks a flagd document.
    ///
    /// - Throws: `PrefsError` of kind `invalidValue` naming the JSON path of the `$ref`.
    public static func checkEntries(_ members: [JSONValue.Member]) throws {
        var evaluators: [JSONValue.Member] = []
        if let value = members.last(where: { $0.key == FlagSet.evaluatorsKey })?.value {
            guard let object = value.objectMembers else {
                throw PrefsError(.invalidValue, "$" + JSONPath.member(FlagSet.evaluatorsKey) + ": expected an object")
            }
            evaluators = object
        }
        try checkReferences(evaluators: evaluators, flags: members.filter { FlagSet.isDefinition($0.value) }, flagsAt: "$")
    }

    private static func checkMetadata(_ metadata: JSONValue, path: String) throws {
        guard let members = metadata.objectMembers else { throw PrefsError(.invalidValue, "\(path): expected an object") }
        for member in members {
            switch member.value {
            case .string, .number, .bool: continue
            default:
                throw PrefsError(.invalidValue, "\(path)\(JSONPath.member(member.key)): metadata values are strings, numbers or booleans")
            }
        }
    }
}

extension FlagDocument {
    /// A flagd document checked as an import checks it, compiled for evaluation (what
    /// `flag diff OLD NEW` compares when given files).
    ///
    /// - Throws: `PrefsError` of kind `invalidValue` with the JSON path of the first problem.
    public static func flagSet(_ document: JSONValue, fractionalVersion: FractionalVersion = .default) throws -> FlagSet {
        let members = try validate(document)
        return FlagSet(entries: members.map { ($0.key, $0.value) }, fractionalVersion: fractionalVersion)
    }

    /// Lints a document given as its text (`FlagLint`), with the validity check of an import.
    ///
    /// - Parameters:
    ///   - bytes: the document as read (for line:column of each finding).
    ///   - everEnabled: for a store, the flags its history shows ENABLED at some time
    ///     (``FlagStore/everEnabled()``); nil for a file.
    public static func lint(_ bytes: [UInt8], everEnabled: Set<String>? = nil) -> [FlagLintFinding] {
        FlagLint.lint(bytes, problems: { problems($0) }, everEnabled: everEnabled)
    }
}
