import FoundationEssentials
import Glibc

extension KeyValueStack {
    /// Visits the flags of `switch`, the one rule every flag path uses (`flag list`, `eval`,
    /// `enabled`, `explain`, `diff`, `stats`, `export`, `show`, and `prefs serve`'s OFREP answers
    /// and inspector): a key is a flag when its value is stored, given by an override
    /// (`--override`, `PREFS_OVERRIDES`) or by the project or system layer (``Layers``). A default, the schema's or one registered in code, is
    /// a configuration value that `get` answers, not a flag. `$evaluators` and `$metadata` are
    /// visited too (they are not flags; `FlagSet` reads them apart).
    ///
    /// - Throws: `PrefsError` when the store cannot be read, or what `body` throws.
    public func forEachFlagEntry(_ body: (Entry, ValueOrigin) throws -> Void) throws {
        try forEachEffectiveEntry(in: .switch) { entry, origin in
            if origin != .default && origin != .schema { try body(entry, origin) }
        }
    }

    /// The value of the flag `key` under the rule of ``forEachFlagEntry(_:)``: an override, else
    /// the stored value; nil when `key` is no flag (a default alone does not make one).
    ///
    /// - Throws: `PrefsError` when the store cannot be read.
    public func flagValue(_ key: String) throws -> JSONValue? {
        if layers.lock(in: .switch, forKey: key) != nil { return layers.system[.switch]?[key]?.value }
        if let value = overrides[.switch]?[key] { return value }
        return try storedValue(in: .switch, forKey: key) ?? layers.layered(in: .switch, forKey: key)?.value.value
    }

    /// The flags of the `switch` domain (overrides included, defaults not: see
    /// ``forEachFlagEntry(_:)``), compiled.
    ///
    /// ```swift
    /// let result = try stack.flags().evaluate("new-checkout", type: .boolean, default: .bool(false))
    /// ```
    /// - Parameter fractionalVersion: the hashing of `fractional`; nil: the store's setting
    ///   (``fractionalVersionSetting()``), else `FractionalVersion/default`.
    /// - Throws: `PrefsError` when the store cannot be read.
    public func flags(fractionalVersion: FractionalVersion? = nil) throws -> FlagSet {
        let version = try fractionalVersion ?? fractionalVersionSetting() ?? .default
        var entries: [(key: String, value: JSONValue)] = []
        try forEachFlagEntry { entry, _ in entries.append((entry.key, try entry.value())) }
        return FlagSet(entries: entries, fractionalVersion: version)
    }

    /// The flag `key` alone, compiled for evaluation with `$evaluators` and the flag-set
    /// metadata: only these entries are read and only the flag's targeting (and the
    /// evaluators it names) compiled, so evaluating one flag costs the same however many
    /// other flags `switch` holds. For `key` it answers as ``flags(fractionalVersion:)`` does;
    /// another flag's problems (a rule that does not compile, a damaged row) do not matter.
    /// When `switch` has no flag `key` the set holds no flag and the answer is FLAG_NOT_FOUND
    /// (no other flag is read or compiled); ``flagNames()`` lists the flags for a "did you mean".
    ///
    /// ```swift
    /// let result = try stack.flags(only: "new-checkout").evaluate("new-checkout", type: .boolean, default: .bool(false))
    /// ```
    /// - Throws: `PrefsError` when the store cannot be read (the flag's own row included).
    public func flags(only key: String, fractionalVersion: FractionalVersion? = nil) throws -> FlagSet {
        let version = try fractionalVersion ?? fractionalVersionSetting() ?? .default
        guard key != FlagSet.evaluatorsKey, key != FlagSet.metadataKey, (try? KeyName.validate(key)) != nil,
            let definition = try flagValue(key)
        else { return FlagSet(entries: [], fractionalVersion: version) }
        var entries: [(key: String, value: JSONValue)] = [(key, definition)]
        for shared in [FlagSet.evaluatorsKey, FlagSet.metadataKey] {
            if let value = try flagValue(shared) { entries.append((shared, value)) }
        }
        return FlagSet(entries: entries, fractionalVersion: version)
    }

    /// The names of the flags (`FlagSet/sortedKeys` of ``flags(fractionalVersion:)``), read
    /// without their definitions: the keys of `switch` that are flags (stored keys, queued
    /// writes, overrides, the project and system layers; a default is no flag) but
    /// `$evaluators` and `$metadata`, in bytewise order. What a "did you mean" after FLAG_NOT_FOUND needs, at the cost of
    /// reading names, not of parsing and compiling every flag.
    ///
    /// ```swift
    /// let names = try stack.flagNames()
    /// ```
    /// - Throws: `PrefsError` when the store cannot be read.
    public func flagNames() throws -> [String] {
        try flagNames { db, now, names in
            try DomainTable(.switch).forEachKey(db, now: now) { names.append($0) }
        }
    }

    /// The flag names a "did you mean" after FLAG_NOT_FOUND of `name` looks at, at a cost
    /// that does not grow with the number of flags: the `window` stored names before and
    /// the `window` after `name` in bytewise order (a typo after the first character sorts
    /// near the name: `new-chekout` beside `new-checkout`), the same around `name` without
    /// its first character (one typed too many), and the flags that are not stored
    /// (queued writes, overrides, layers), in bytewise order as ``flagNames()``. With at
    /// most `window` flags on either side, that is every flag.
    ///
    /// ```swift
    /// let candidates = try stack.flagNames(near: "new-chekout")
    /// ```
    /// - Throws: `PrefsError` when the store cannot be read.
    public func flagNames(near name: String, window: Int = 64) throws -> [String] {
        try flagNames { db, now, names in
            var seen = Set<String>()
            let table = DomainTable(.switch)
            for around in [name, String(name.dropFirst())] {
                try table.forEachKey(db, now: now, around: around, limit: window) { if seen.insert($0).inserted { names.append($0) } }
            }
            names.sort { BytewiseString.precedes($0, $1) }
        }
    }

    /// The names of the flags with the stored ones `stored` reads (in bytewise order).
    private func flagNames(stored: (Database, Int64, inout [String]) throws -> Void) throws -> [String] {
        let now = WallClock.nowMilliseconds()
        // The stored keys come in order from the table; the few others are merged in.
        var names: [String] = []
        _ = try database(for: .switch).read { db in
            guard try DomainTable.mayExist(db, .switch) else { return }
            try stored(db, now, &names)
        }
        var added = Set<BytewiseString>()
        var removed = Set<BytewiseString>()
        for (pending, change) in queue.overlay(domain: .switch) {
            if change.visibleJSON(at: now) == nil {
                removed.insert(BytewiseString(pending.key))
            } else {
                added.insert(BytewiseString(pending.key))
            }
        }
        added.formUnion((overrides[.switch] ?? [:]).keys.map(BytewiseString.init))
        // The project and system layers' keys are flags too (``forEachFlagEntry(_:)``).
        added.formUnion((layers.project[.switch] ?? [:]).keys.map(BytewiseString.init))
        added.formUnion((layers.system[.switch] ?? [:]).keys.map(BytewiseString.init))
        // Where `name` is or would go in `names` (binary search, bytewise).
        func position(_ name: String) -> (index: Int, found: Bool) {
            var low = 0
            var high = names.count
            while low < high {
                let middle = (low + high) / 2
                if BytewiseString.precedes(names[middle], name) { low = middle + 1 } else { high = middle }
            }
            return (low, low < names.count && BytewiseString.equal(names[low], name))
        }
        // A removal queued for a key an override still answers hides nothing.
        for name in removed.subtracting(added) {
            let (index, found) = position(name.value)
            if found { names.remove(at: index) }
        }
        for name in added {
            let (index, found) = position(name.value)
            if !found { names.insert(name.value, at: index) }
        }
        for shared in [FlagSet.evaluatorsKey, FlagSet.metadataKey] {
            let (index, found) = position(shared)
            if found { names.remove(at: index) }
        }
        return names
    }

    /// Evaluates one flag with a context given as JSON (an object).
    ///
    /// ```swift
    /// let r = try stack.evaluateFlag("new-checkout", type: .boolean, default: .bool(false),
    ///                                context: JSONValue(parsing: #"{"email":"a@example.com"}"#))
    /// ```
    /// - Parameters:
    ///   - targetingKey: overrides the context's `targetingKey`; an empty one, here or in the
    ///     context, counts as absent.
    ///   - key: the flag.
    ///   - type: the type the caller expects; another type gives TYPE_MISMATCH.
    ///   - defaultValue: what the caller gets when evaluation fails.
    ///   - context: the evaluation context (a JSON object).
    ///   - fractionalVersion: nil: the store's setting, else `FractionalVersion/default`.
    /// - Throws: `PrefsError`: `invalidValue` when the context is not an object;
    ///   `storeUnreadable`. Evaluation problems are results, not errors. Only the flag, the
    ///   evaluators and the metadata are read (``flags(only:fractionalVersion:)``).
    public func evaluateFlag(
        _ key: String, type: FlagType, default defaultValue: JSONValue, context: JSONValue = .object([]), targetingKey: String? = nil,
        fractionalVersion: FractionalVersion? = nil
    ) throws -> FlagResolution {
        let data = try FlagSet.context(context)
        return try flags(only: key, fractionalVersion: fractionalVersion).evaluate(
            key, type: type, default: defaultValue, context: data, targetingKey: targetingKey)
    }

    /// The store's `fractional` hashing setting (`prefs flag config fractional-version`), nil
    /// when none is set (`FractionalVersion/default` applies).
    ///
    /// - Throws: `PrefsError` of kind `storeUnreadable`.
    public func fractionalVersionSetting() throws -> FractionalVersion? {
        guard let stored = try main.read({ try StoreMeta.value($0, .flagFractionalVersion) }), let text = stored else { return nil }
        guard let number = Int(text), let version = FractionalVersion(rawValue: number) else {
            throw PrefsError(.storeUnreadable, "the fractional-version stored in \(main.displayPath) is damaged: \(text)")
        }
        return version
    }

    /// Sets (or with nil removes) the store's `fractional` hashing version, for fleets whose
    /// applications use an older flagd provider.
    ///
    /// ```swift
    /// try stack.setFractionalVersion(.v2)
    /// ```
    /// - Throws: `PrefsError` of kind `cannotWrite`.
    public func setFractionalVersion(_ version: FractionalVersion?) throws {
        try main.write { db in
            if let version {
                try StoreMeta.set(db, .flagFractionalVersion, String(version.rawValue))
            } else {
                try StoreMeta.remove(db, .flagFractionalVersion)
            }
        }
    }

    /// Checks a flagd document completely and loads it into `switch`: flags, `$evaluators`
    /// and flag-set metadata. With `replace`, `switch` becomes exactly the document.
    ///
    /// - Returns: what changed (see ``importDocument(_:replace:dryRun:)``).
    /// - Throws: `PrefsError` of kind `invalidValue` with the JSON path of the first
    ///   problem (also targeting that returns a name that is not a variant:
    ///   `FlagLint.returnsNoVariant(_:)`), with or without `dryRun`; nothing changes then.
    @discardableResult
    public func importFlags(_ document: JSONValue, replace: Bool = false, dryRun: Bool = false) throws -> ImportPlan {
        var members = try FlagDocument.validate(document)
        let noVariant = FlagLint.returnsNoVariant(document)
        if let first = noVariant.first {
            let more = noVariant.count > 1 ? " (and \(noVariant.count - 1) more: prefs flag lint lists them)" : ""
            throw PrefsError(.invalidValue, "\(first.path): \(first.message)\(more)")
        }
        if !replace {
            // Merge shared evaluators and set metadata by name, so flags already stored keep
            // the evaluators their $refs name.
            for key in [FlagSet.evaluatorsKey, FlagSet.metadataKey] {
                guard let index = members.firstIndex(where: { $0.key == key }),
                    case .object(var merged)? = try storedValue(in: .switch, forKey: key),
                    let incoming = members[index].value.objectMembers
                else { continue }
                for member in incoming {
                    if let existing = merged.firstIndex(where: { $0.key == member.key }) {
                        merged[existing] = member
                    } else {
                        merged.append(member)
                    }
                }
                members[index].value = .object(merged)
                if key == FlagSet.evaluatorsKey {
                    // New evaluators may combine with stored ones into a chain.
                    try FlagDocument.checkReferences(
                        evaluators: merged, flags: members.filter { $0.key != FlagSet.evaluatorsKey && $0.key != FlagSet.metadataKey })
                }
            }
        }
        return try importDocument(.object([JSONValue.Member(Domain.switch.name, .object(members))]), replace: replace, dryRun: dryRun)
    }

    /// The flags of `switch` (``forEachFlagEntry(_:)``: stored or overridden, no defaults) as a
    /// flagd document. Plain values become flags with one variant named `static`
    /// (`FlagSet.staticVariant`) and the metadata `{"prefsPlainValue":true}`, so a flagd provider
    /// evaluates them the same, and importing the document stores the plain values again
    /// (export → import → export is byte-identical, and `get` answers the same). Plain arrays and nulls cannot be flagd variants: they are
    /// left out and their keys returned in `skipped`.
    ///
    /// - Throws: `PrefsError` when the store cannot be read.
    public func exportFlags() throws -> (document: JSONValue, skipped: [String]) {
        var skipped: [String] = []
        var flags: [JSONValue.Member] = []
        var evaluators: JSONValue?
        var metadata: JSONValue?
        try forEachFlagEntry { entry, _ in
            let value = try entry.value()
            switch entry.key {
            case FlagSet.evaluatorsKey: evaluators = value
            case FlagSet.metadataKey: metadata = value
            default:
                if FlagSet.isDefinition(value) {
                    flags.append(JSONValue.Member(entry.key, value))
                } else if case .array = value {
                    skipped.append(entry.key)
                } else if case .null = value {
                    skipped.append(entry.key)
                } else {
                    flags.append(
                        JSONValue.Member(
                            entry.key,
                            .object([
                                .init("state", .string("ENABLED")), .init("variants", .object([.init(FlagSet.staticVariant, value)])),
                                .init("defaultVariant", .string(FlagSet.staticVariant)),
                                .init("metadata", .object([.init(FlagDocument.plainValueMarker, .bool(true))])),
                            ])))
                }
            }
        }
        var document: [JSONValue.Member] = [.init("$schema", .string("https://flagd.dev/schema/v0/flags.json"))]
        if let metadata { document.append(.init("metadata", metadata)) }
        if let evaluators { document.append(.init("$evaluators", evaluators)) }
        document.append(.init("flags", .object(flags)))
        return (.object(document), skipped)
    }

    /// Sets a flag's `state` (a definition) or value (a plain boolean) and commits.
    ///
    /// - Throws: `PrefsError`: `notFound` for a missing flag; `invalidValue` for a plain
    ///   value that is not a boolean; `preconditionFailed` when it changed meanwhile.
    public func setFlag(_ key: String, enabled: Bool) throws {
        guard let current = try storedValue(in: .switch, forKey: key) else {
            throw PrefsError(.notFound, "flag \(JSONValue.string(key).compactText) not found")
        }
        let updated: JSONValue
        if FlagSet.isDefinition(current), case .object(var members) = current {
            if let index = members.firstIndex(where: { $0.key == "state" }) {
                members[index].value = .string(enabled ? "ENABLED" : "DISABLED")
            }
            updated = .object(members)
        } else if case .bool = current {
            updated = .bool(enabled)
        } else {
            throw PrefsError(.invalidValue, "switch/\(key) is a plain \(current.typeName), not a flag definition or a boolean")
        }
        try set(updated, in: .switch, forKey: key, if: .value(current))
    }

    /// Sets a flag's `defaultVariant` (`prefs flag default KEY VARIANT`: the everyday "turn the
    /// kill switch on") and commits, as one write of the flag's key: checked against the flag's
    /// variants and the schema, logged, and compare-and-set against the version read (or
    /// `expectedVersion` when given). Returns the key's new version.
    ///
    /// ```swift
    /// try stack.setFlagDefault("deploy-frozen", variant: "on")
    /// ```
    /// - Throws: `PrefsError`: `notFound` for a missing flag; `invalidValue` for a variant the
    ///   flag does not have (the message lists its variants) or a plain value;
    ///   `preconditionFailed` when the key is not at `expectedVersion` or changed meanwhile.
    @discardableResult
    public func setFlagDefault(_ key: String, variant: String, ifVersion expectedVersion: Int64? = nil) throws -> Int64 {
        try flushSynchronously()
        guard let entry = try storedEntry(in: .switch, forKey: key) else {
            throw PrefsError(.notFound, "flag \(JSONValue.string(key).compactText) not found")
        }
        let current = try entry.value()
        guard FlagSet.isDefinition(current), case .object(var members) = current, let variants = current["variants"]?.objectMembers
        else {
            throw PrefsError(
                .invalidValue,
                "switch/\(key) is a plain \(current.typeName), not a flag definition with variants (prefs flag enable/disable sets a boolean)"
            )
        }
        guard variants.contains(where: { $0.key == variant }) else {
            let names = variants.map { JSONValue.string($0.key).compactText }.joined(separator: ", ")
            throw PrefsError(
                .invalidValue,
                "\(JSONValue.string(variant).compactText) is not a variant of flag \(JSONValue.string(key).compactText); its variants: \(names)"
            )
        }
        if let index = members.firstIndex(where: { $0.key == "defaultVariant" }) {
            members[index].value = .string(variant)
        } else {
            members.append(.init("defaultVariant", .string(variant)))
        }
        return try set(.object(members), in: .switch, forKey: key, if: .version(expectedVersion ?? entry.version))
    }
}

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
