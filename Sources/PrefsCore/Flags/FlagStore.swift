import FoundationEssentials
import Glibc

/// The feature flags of a store's `switch` domain: reading them as a `FlagSet`, evaluating
/// one, their names, enabling, disabling and default variants, the `fractional` hashing
/// setting, and flagd documents in and out. Held apart from ``KeyValueStack`` (as GRDB keeps
/// `DatabaseMigrator` apart from `DatabaseQueue`); the flags are keys of `switch`, so the
/// stack's reads and writes see them too.
///
/// ```swift
/// let store = FlagStore(stack)   // or stack.flags
/// let on = try store.evaluate("new-checkout", type: .boolean, default: false).value
/// ```
public struct FlagStore: Sendable {
    /// The stack whose `switch` domain holds the flags.
    public let stack: KeyValueStack

    /// The flags of `stack`'s store.
    public init(_ stack: KeyValueStack) {
        self.stack = stack
    }

    /// Visits the flags of `switch`, the one rule every flag path uses (`flag list`, `eval`,
    /// `enabled`, `explain`, `diff`, `stats`, `export`, `show`, and `prefs serve`'s OFREP answers
    /// and inspector): a key is a flag when its value is stored, given by an override
    /// (`--override`, `PREFS_OVERRIDES`) or by the project or system layer (``Layers``). A default, the schema's or one registered in code, is
    /// a configuration value that `get` answers, not a flag. `$evaluators` and `$metadata` are
    /// visited too (they are not flags; `FlagSet` reads them apart).
    ///
    /// - Throws: `PrefsError` when the store cannot be read, or what `body` throws.
    public func forEachEntry(_ body: (Entry, ValueOrigin) throws -> Void) throws {
        try stack.forEachEffectiveEntry(in: .switch) { entry, origin in
            if origin != .default && origin != .schema { try body(entry, origin) }
        }
    }

    /// The value of the flag `key` under the rule of ``forEachEntry(_:)``: an override, else
    /// the stored value; nil when `key` is no flag (a default alone does not make one).
    ///
    /// - Throws: `PrefsError` when the store cannot be read.
    public func value(_ key: String) throws -> JSONValue? {
        if stack.layers.lock(in: .switch, forKey: key) != nil { return stack.layers.system[.switch]?[key]?.value }
        if let value = stack.overrides[.switch]?[key] { return value }
        return try stack.storedValue(in: .switch, forKey: key) ?? stack.layers.layered(in: .switch, forKey: key)?.value.value
    }

    /// The flags of the `switch` domain (overrides included, defaults not: see
    /// ``forEachEntry(_:)``), compiled.
    ///
    /// ```swift
    /// let result = try stack.flags.flagSet().evaluate("new-checkout", type: .boolean, default: .bool(false))
    /// ```
    /// - Parameter fractionalVersion: the hashing of `fractional`; nil: the store's setting
    ///   (``fractionalVersionSetting()``), else `FractionalVersion/default`.
    /// - Throws: `PrefsError` when the store cannot be read.
    public func flagSet(fractionalVersion: FractionalVersion? = nil) throws -> FlagSet {
        let version = try fractionalVersion ?? fractionalVersionSetting() ?? .default
        var entries: [(key: String, value: JSONValue)] = []
        try forEachEntry { entry, _ in entries.append((entry.key, try entry.value())) }
        return FlagSet(entries: entries, fractionalVersion: version)
    }

    /// The flag `key` alone, compiled for evaluation with `$evaluators` and the flag-set
    /// metadata: only these entries are read and only the flag's targeting (and the
    /// evaluators it names) compiled, so evaluating one flag costs the same however many
    /// other flags `switch` holds. For `key` it answers as ``flagSet(fractionalVersion:)`` does;
    /// another flag's problems (a rule that does not compile, a damaged row) do not matter.
    /// When `switch` has no flag `key` the set holds no flag and the answer is FLAG_NOT_FOUND
    /// (no other flag is read or compiled); ``names()`` lists the flags for a "did you mean".
    ///
    /// ```swift
    /// let result = try stack.flags.flagSet(only: "new-checkout").evaluate("new-checkout", type: .boolean, default: .bool(false))
    /// ```
    /// - Throws: `PrefsError` when the store cannot be read (the flag's own row included).
    public func flagSet(only key: String, fractionalVersion: FractionalVersion? = nil) throws -> FlagSet {
        let version = try fractionalVersion ?? fractionalVersionSetting() ?? .default
        guard key != FlagSet.evaluatorsKey, key != FlagSet.metadataKey, (try? KeyName.validate(key)) != nil,
            let definition = try value(key)
        else { return FlagSet(entries: [], fractionalVersion: version) }
        var entries: [(key: String, value: JSONValue)] = [(key, definition)]
        for shared in [FlagSet.evaluatorsKey, FlagSet.metadataKey] {
            if let found = try value(shared) { entries.append((shared, found)) }
        }
        return FlagSet(entries: entries, fractionalVersion: version)
    }

    /// The names of the flags (`FlagSet/sortedKeys` of ``flagSet(fractionalVersion:)``), read
    /// without their definitions: the keys of `switch` that are flags (stored keys, queued
    /// writes, overrides, the project and system layers; a default is no flag) but
    /// `$evaluators` and `$metadata`, in bytewise order. What a "did you mean" after FLAG_NOT_FOUND needs, at the cost of
    /// reading names, not of parsing and compiling every flag.
    ///
    /// ```swift
    /// let names = try stack.flags.names()
    /// ```
    /// - Throws: `PrefsError` when the store cannot be read.
    public func names() throws -> [String] {
        try names { db, now, names in
            try DomainTable(.switch).forEachKey(db, now: now) { names.append($0) }
        }
    }

    /// The flag names a "did you mean" after FLAG_NOT_FOUND of `name` looks at, at a cost
    /// that does not grow with the number of flags: the `window` stored names before and
    /// the `window` after `name` in bytewise order (a typo after the first character sorts
    /// near the name: `new-chekout` beside `new-checkout`), the same around `name` without
    /// its first character (one typed too many), and the flags that are not stored
    /// (queued writes, overrides, layers), in bytewise order as ``names()``. With at
    /// most `window` flags on either side, that is every flag.
    ///
    /// ```swift
    /// let candidates = try stack.flags.names(near: "new-chekout")
    /// ```
    /// - Throws: `PrefsError` when the store cannot be read.
    public func names(near name: String, window: Int = 64) throws -> [String] {
        try names { db, now, names in
            var seen = Set<String>()
            let table = DomainTable(.switch)
            for around in [name, String(name.dropFirst())] {
                try table.forEachKey(db, now: now, around: around, limit: window) { if seen.insert($0).inserted { names.append($0) } }
            }
            names.sort { BytewiseString.precedes($0, $1) }
        }
    }

    /// The names of the flags with the stored ones `stored` reads (in bytewise order).
    private func names(stored: (Database, Int64, inout [String]) throws -> Void) throws -> [String] {
        let now = WallClock.nowMilliseconds()
        // The stored keys come in order from the table; the few others are merged in.
        var names: [String] = []
        _ = try stack.database(for: .switch).read { db in
            guard try DomainTable.mayExist(db, .switch) else { return }
            try stored(db, now, &names)
        }
        var added = Set<BytewiseString>()
        var removed = Set<BytewiseString>()
        for (pending, change) in stack.queue.overlay(domain: .switch) {
            if change.visibleJSON(at: now) == nil {
                removed.insert(BytewiseString(pending.key))
            } else {
                added.insert(BytewiseString(pending.key))
            }
        }
        added.formUnion((stack.overrides[.switch] ?? [:]).keys.map(BytewiseString.init))
        // The project and system layers' keys are flags too (``forEachEntry(_:)``).
        added.formUnion((stack.layers.project[.switch] ?? [:]).keys.map(BytewiseString.init))
        added.formUnion((stack.layers.system[.switch] ?? [:]).keys.map(BytewiseString.init))
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
    /// let r = try stack.flags.evaluate("new-checkout", type: .boolean, default: .bool(false),
    ///                                  context: JSONValue(parsing: #"{"email":"a@example.com"}"#))
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
    ///   evaluators and the metadata are read (``flagSet(only:fractionalVersion:)``).
    public func evaluate(
        _ key: String, type: FlagType, default defaultValue: JSONValue, context: JSONValue = .object([]), targetingKey: String? = nil,
        fractionalVersion: FractionalVersion? = nil
    ) throws -> FlagResolution {
        let data = try FlagSet.context(context)
        return try flagSet(only: key, fractionalVersion: fractionalVersion).evaluate(
            key, type: type, default: defaultValue, context: data, targetingKey: targetingKey)
    }

    /// The store's `fractional` hashing setting (`prefs flag config fractional-version`), nil
    /// when none is set (`FractionalVersion/default` applies).
    ///
    /// - Throws: `PrefsError` of kind `storeUnreadable`.
    public func fractionalVersionSetting() throws -> FractionalVersion? {
        guard let stored = try stack.main.read({ try StoreMeta.value($0, .flagFractionalVersion) }), let text = stored else { return nil }
        guard let number = Int(text), let version = FractionalVersion(rawValue: number) else {
            throw PrefsError(.storeUnreadable, "the fractional-version stored in \(stack.main.displayPath) is damaged: \(text)")
        }
        return version
    }

    /// Sets (or with nil removes) the store's `fractional` hashing version, for fleets whose
    /// applications use an older flagd provider.
    ///
    /// ```swift
    /// try stack.flags.setFractionalVersion(.v2)
    /// ```
    /// - Throws: `PrefsError` of kind `cannotWrite`.
    public func setFractionalVersion(_ version: FractionalVersion?) throws {
        try stack.main.write { db in
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
    /// - Returns: what changed (see ``KeyValueStack/importDocument(_:replace:dryRun:)``).
    /// - Throws: `PrefsError` of kind `invalidValue` with the JSON path of the first
    ///   problem (also targeting that returns a name that is not a variant:
    ///   `FlagLint.returnsNoVariant(_:)`), with or without `dryRun`; nothing changes then.
    @discardableResult
    public func importDocument(_ document: JSONValue, replace: Bool = false, dryRun: Bool = false) throws -> ImportPlan {
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
                    case .object(var merged)? = try stack.storedValue(in: .switch, forKey: key),
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
        return try stack.importDocument(.object([JSONValue.Member(Domain.switch.name, .object(members))]), replace: replace, dryRun: dryRun)
    }

    /// The flags of `switch` (``forEachEntry(_:)``: stored or overridden, no defaults) as a
    /// flagd document. Plain values become flags with one variant named `static`
    /// (`FlagSet.staticVariant`) and the metadata `{"prefsPlainValue":true}`, so a flagd provider
    /// evaluates them the same, and importing the document stores the plain values again
    /// (export → import → export is byte-identical, and `get` answers the same). Plain arrays and nulls cannot be flagd variants: they are
    /// left out and their keys returned in `skipped`.
    ///
    /// - Throws: `PrefsError` when the store cannot be read.
    public func exportDocument() throws -> (document: JSONValue, skipped: [String]) {
        var skipped: [String] = []
        var flags: [JSONValue.Member] = []
        var evaluators: JSONValue?
        var metadata: JSONValue?
        try forEachEntry { entry, _ in
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
    public func set(_ key: String, enabled: Bool) throws {
        guard let current = try stack.storedValue(in: .switch, forKey: key) else {
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
        try stack.set(updated, in: .switch, forKey: key, if: .value(current))
    }

    /// Sets a flag's `defaultVariant` (`prefs flag default KEY VARIANT`: the everyday "turn the
    /// kill switch on") and commits, as one write of the flag's key: checked against the flag's
    /// variants and the schema, logged, and compare-and-set against the version read (or
    /// `expectedVersion` when given). Returns the key's new version.
    ///
    /// ```swift
    /// try stack.flags.setDefault("deploy-frozen", variant: "on")
    /// ```
    /// - Throws: `PrefsError`: `notFound` for a missing flag; `invalidValue` for a variant the
    ///   flag does not have (the message lists its variants) or a plain value;
    ///   `preconditionFailed` when the key is not at `expectedVersion` or changed meanwhile.
    @discardableResult
    public func setDefault(_ key: String, variant: String, ifVersion expectedVersion: Int64? = nil) throws -> Int64 {
        try stack.flushSynchronously()
        guard let entry = try stack.storedEntry(in: .switch, forKey: key) else {
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
        return try stack.set(.object(members), in: .switch, forKey: key, if: .version(expectedVersion ?? entry.version))
    }
}

extension KeyValueStack {
    /// The feature flags of this stack's `switch` domain (``FlagStore``).
    ///
    /// ```swift
    /// let names = try stack.flags.names()
    /// ```
    public var flags: FlagStore { FlagStore(self) }
}
