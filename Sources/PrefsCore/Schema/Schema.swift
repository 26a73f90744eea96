import FoundationEssentials
import Synchronization

/// Typed keys with defaults and constraints, per domain: the `prefs schema` file.
///
/// ```json
/// {"user": {"theme": {"type": "string", "default": "light", "enum": ["light", "dark"],
///                     "description": "UI theme"},
///           "onboarding.*": {"type": "boolean", "default": false}},
///  "switch": {"max_retries": {"type": "integer", "default": 3, "minimum": 0, "maximum": 10}}}
/// ```
/// A key ending in `*` declares every key with that prefix; an exact key wins over a
/// prefix, and a longer prefix over a shorter one.
public struct Schema: Sendable, Equatable {
    /// The type a key's values must have.
    public enum ValueKind: String, Sendable, CaseIterable {
        case string, number, integer, boolean, object, array, any
    }

    /// What the schema says about one key (or one prefix).
    public struct KeySpec: Sendable, Equatable {
        /// The key, or the prefix without its `*`.
        public var key: String
        /// Whether ``key`` is a prefix.
        public var isPrefix: Bool
        /// The type of the values.
        public var type: ValueKind
        /// The value read when nothing is stored.
        public var defaultValue: JSONValue?
        /// A description for `prefs describe`.
        public var description: String?
        /// The allowed values.
        public var allowed: [JSONValue]?
        /// The smallest allowed number, as written in the schema.
        public var minimum: String?
        /// The largest allowed number, as written in the schema.
        public var maximum: String?
        /// A regular expression that string values must match (anywhere; anchor it with ^…$).
        public var pattern: String? {
            didSet { compiled = pattern.map(CompiledPattern.init) }
        }
        /// ``pattern``, compiled when a value is first checked against it (a command that
        /// writes one key does not compile the other keys' patterns).
        fileprivate var compiled: CompiledPattern?
        /// Set when the key is deprecated: true, or a message.
        public var deprecated: JSONValue?

        /// Checks a value against the spec.
        ///
        /// - Throws: `PrefsError` of kind `invalidValue` naming the constraint.
        public func validate(_ value: JSONValue, name: String) throws {
            func fail(_ message: String) -> PrefsError {
                let rule = message.split(separator: ":", maxSplits: 1).first.flatMap { PrefsError.SchemaRule(rawValue: String($0)) }
                return PrefsError(.invalidValue, "\(name): \(message)", reason: rule.map { .schemaViolation($0) })
            }
            switch (type, value) {
            case (.any, _), (.string, .string), (.number, .number), (.boolean, .bool), (.object, .object), (.array, .array): break
            // JSON Schema (2020-12) counts a number with a zero fractional part as an integer:
            // `5.0` and `1e1` pass, and are stored as written.
            case (.integer, .number(let text)) where value.isIntegerNumber || ExactDecimal(text).isInteger: break
            default:
                let got = value.typeName == "number" && type == .integer ? "a non-integer number" : "a \(value.typeName)"
                throw fail("type: expected \(type.rawValue), got \(got)")
            }
            if let allowed, !allowed.contains(where: { $0.isEquivalent(to: value) }) {
                throw fail("enum: \(preview(value)) is not one of \(allowed.map(\.compactText).joined(separator: ", "))")
            }
            if case .number(let text) = value {
                if let minimum, Schema.compare(text, minimum) == .orderedAscending {
                    throw fail("minimum: \(text) is less than \(minimum)")
                }
                if let maximum, Schema.compare(text, maximum) == .orderedDescending {
                    throw fail("maximum: \(text) is greater than \(maximum)")
                }
            }
            if let pattern, let compiled, case .string(let text) = value {
                switch compiled.program {
                case .success(let program):
                    let matched: Bool
                    do {
                        matched = try program.matches(text)
                    } catch let error as PrefsError {
                        throw fail(
                            "pattern: \(preview(.string(pattern))) \(error.message) of a value of \(text.unicodeScalars.count) scalars; "
                                + "simplify the pattern (a smaller counted repetition) or shorten the value")
                    }
                    if !matched {
                        throw fail("pattern: \(preview(value)) does not match \(preview(.string(pattern)))")
                    }
                case .failure(let error):
                    // A stored schema from a build whose pattern engine read more (see
                    // ``Schema/init(parsing:)``): writes of this key wait for a corrected schema.
                    throw fail(
                        "pattern: \(preview(.string(pattern))) cannot be checked (\(error.message)); load a corrected schema with 'prefs schema load'"
                    )
                }
            }
        }

        private func preview(_ value: JSONValue) -> String {
            let text = value.compactText
            return text.count > 60 ? String(text.prefix(60)) + "…" : text
        }
    }

    /// The specs of each domain.
    public var domains: [Domain: [KeySpec]]
    /// The document as loaded (for `prefs schema show`).
    public var document: JSONValue

    /// An empty schema.
    public init() {
        domains = [:]
        document = .object([])
    }

    /// Parses and checks a schema document.
    ///
    /// - Throws: `PrefsError` of kind `invalidValue` with the JSON path of the first problem.
    public init(parsing document: JSONValue) throws {
        try self.init(parsing: document, checkingPatterns: true)
    }

    /// Parses a schema document; with `checkingPatterns` false (a schema already stored) the
    /// patterns are compiled only when a value is checked, and one this build cannot compile
    /// refuses the writes of its keys instead of the whole store (a schema loaded by a build
    /// whose pattern engine read more must not lock every command out).
    init(parsing document: JSONValue, checkingPatterns: Bool) throws {
        self.document = document
        self.domains = [:]
        guard let domainMembers = document.objectMembers else {
            throw PrefsError(.invalidValue, "$: a schema is a JSON object of domains, got \(document.typeName)")
        }
        for domainMember in domainMembers {
            let domainPath = "$" + JSONPath.member(domainMember.key)
            guard Domain.isValidName(domainMember.key), let domain = try? Domain(domainMember.key) else {
                throw PrefsError(.invalidValue, "\(domainPath): invalid domain name")
            }
            guard let keyMembers = domainMember.value.objectMembers else {
                throw PrefsError(.invalidValue, "\(domainPath): expected an object of keys")
            }
            var specs: [KeySpec] = []
            for keyMember in keyMembers {
                specs.append(
                    try Schema.parseSpec(
                        keyMember.key, keyMember.value, path: domainPath + JSONPath.member(keyMember.key),
                        checkingPatterns: checkingPatterns))
            }
            domains[domain] = specs
        }
    }

    private static func parseSpec(_ rawKey: String, _ value: JSONValue, path: String, checkingPatterns: Bool) throws -> KeySpec {
        func fail(_ suffix: String, _ message: String) -> PrefsError { PrefsError(.invalidValue, "\(path)\(suffix): \(message)") }
        let isPrefix = rawKey.hasSuffix("*")
        let key = isPrefix ? String(rawKey.dropLast()) : rawKey
        if !isPrefix || !key.isEmpty {
            do { try KeyName.validate(key) } catch let error as PrefsError { throw fail("", error.message) }
        }
        guard let members = value.objectMembers else { throw fail("", "expected an object with \"type\"") }
        let known: Set<String> = ["type", "default", "description", "enum", "minimum", "maximum", "pattern", "deprecated"]
        if let unknown = members.first(where: { !known.contains($0.key) }) {
            throw fail(JSONPath.member(unknown.key), "unknown property (known: \(known.sorted().joined(separator: ", ")))")
        }
        guard let typeName = value["type"]?.stringValue, let type = ValueKind(rawValue: typeName) else {
            throw fail(".type", "expected one of \(ValueKind.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        var spec = KeySpec(key: key, isPrefix: isPrefix, type: type)
        if let description = value["description"] {
            guard let text = description.stringValue else { throw fail(".description", "expected a string") }
            spec.description = text
        }
        if let allowed = value["enum"] {
            guard case .array(let items) = allowed, !items.isEmpty else { throw fail(".enum", "expected a non-empty array") }
            spec.allowed = items
        }
        for (name, target) in [("minimum", \KeySpec.minimum), ("maximum", \KeySpec.maximum)] {
            guard let bound = value[name] else { continue }
            guard case .number(let text) = bound else { throw fail(".\(name)", "expected a number") }
            guard [.number, .integer, .any].contains(type) else { throw fail(".\(name)", "only numbers have a \(name)") }
            spec[keyPath: target] = text
        }
        if let minimum = spec.minimum, let maximum = spec.maximum, compare(minimum, maximum) == .orderedDescending {
            throw fail(".minimum", "is greater than maximum")
        }
        if let allowed = spec.allowed {
            var typeOnly = KeySpec(key: key, isPrefix: isPrefix, type: type)
            typeOnly.minimum = nil
            for (index, item) in allowed.enumerated() {
                do { try typeOnly.validate(item, name: "enum") } catch { throw fail(".enum[\(index)]", "not a \(type.rawValue)") }
            }
        }
        if let pattern = value["pattern"] {
            guard let text = pattern.stringValue else { throw fail(".pattern", "expected a string") }
            guard [.string, .any].contains(type) else { throw fail(".pattern", "only strings have a pattern") }
            spec.pattern = text
            if checkingPatterns, case .failure(let error) = spec.compiled?.program {
                throw fail(".pattern", "not a valid regular expression (\(error.message))")
            }
        }
        if let deprecated = value["deprecated"] {
            guard deprecated.stringValue != nil || deprecated == .bool(true) || deprecated == .bool(false) else {
                throw fail(".deprecated", "expected true, false or a message")
            }
            if deprecated != .bool(false) { spec.deprecated = deprecated }
        }
        if let defaultValue = value["default"] {
            do {
                try spec.validate(defaultValue, name: "default")
            } catch let error as PrefsError {
                throw fail(".default", String(error.message.dropFirst("default: ".count)))
            }
            spec.defaultValue = defaultValue
        }
        return spec
    }

    /// The spec for a key: the exact key, else the longest prefix that matches.
    public func spec(in domain: Domain, forKey key: String) -> KeySpec? {
        guard let specs = domains[domain] else { return nil }
        if let exact = specs.first(where: { !$0.isPrefix && BytewiseString.equal($0.key, key) }) { return exact }
        return specs.filter { $0.isPrefix && key.utf8.starts(with: $0.key.utf8) }.max { $0.key.utf8.count < $1.key.utf8.count }
    }

    /// Checks a value for a key; keys the schema does not mention accept anything, and
    /// `value` is evaluated only for a key it has a rule for (a caller holding JSON text
    /// parses it only then).
    ///
    /// - Throws: `PrefsError` of kind `invalidValue` naming the key and the constraint,
    ///   or what evaluating `value` throws.
    public func validate(_ value: @autoclosure () throws -> JSONValue, in domain: Domain, forKey key: String) throws {
        guard let spec = spec(in: domain, forKey: key) else { return }
        do {
            try spec.validate(value(), name: "\(domain.name)/\(key)")
        } catch let error as PrefsError {
            throw error.naming(domain, key)
        }
    }

    /// Compares two JSON numbers exactly, as decimals of any length and exponent: no
    /// rounding to 38 digits (`Decimal`) or to a `Double`.
    static func compare(_ a: String, _ b: String) -> ComparisonResult {
        ExactDecimal(a).compare(ExactDecimal(b))
    }
}

/// A schema pattern, compiled once when first used (``PatternProgram``: ECMA-262's pattern
/// syntax, matched Unicode scalar by scalar in time linear in the text); equal when the
/// source is.
final class CompiledPattern: Sendable, Equatable {
    let source: String
    private let compiled = Mutex<Result<PatternProgram, PrefsError>?>(nil)

    init(_ source: String) {
        self.source = source
    }

    /// The program, or why ``source`` is refused (``PrefsError`` of kind `invalidValue`).
    var program: Result<PatternProgram, PrefsError> {
        compiled.withLock { cached in
            if let cached { return cached }
            let result: Result<PatternProgram, PrefsError>
            do { result = .success(try PatternProgram(source)) } catch let error as PrefsError { result = .failure(error) } catch {
                result = .failure(PrefsError(.invalidValue, "\(error)"))
            }
            cached = result
            return result
        }
    }

    static func == (a: CompiledPattern, b: CompiledPattern) -> Bool { a.source == b.source }
}
