import ArgumentParser
import PrefsCore

extension Prefs {
    struct SetCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract: "Store a value under a key.",
            discussion: """
                VALUE is JSON when it is valid JSON (3, true, null, "x", [1], {"a":1}), \
                otherwise the text as a string; text starting with { or [ must be valid JSON. \
                Use - to read VALUE from standard input (one trailing newline is stripped). \
                Negative numbers can be given directly: prefs set user offset -5. \
                The value is committed before the command exits 0. With --path P (a JSON Pointer, RFC 6901: \
                /window/w, /tags/0, /tags/- appends) VALUE replaces or adds the member at P of the stored value, \
                in one transaction; the key and every container on the way must exist (exit 1 otherwise), and \
                the schema checks the whole value. \
                With --project the value goes to the project file instead of the store (see 'prefs help'): \
                PREFS_PROJECT_FILE, else the .prefs.json reads find, else a new .prefs.json at the top of \
                the git work tree (or here outside one); it is rewritten with domains and keys sorted, one \
                member per line, so a change is a one-line diff.
                """)

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The domain: default, dynamic, switch, user, memory or a custom one.", completion: Completions.domain)
        var domain: String

        @Argument(help: "The key.", completion: Completions.key)
        var key: String

        @Argument(
            parsing: .allUnrecognized, help: ArgumentHelp("The value, or - for standard input.", valueName: "value"),
            completion: Completions.value)
        var value: [String] = []

        @Flag(help: "Store VALUE verbatim as a string.")
        var string = false

        @Option(help: ArgumentHelp("Require this type: string, number, integer, boolean, object, array or json.", valueName: "type"))
        var type: ValueTypeArgument?

        @Flag(help: "Skip the schema's checks (with a warning).")
        var force = false

        @Option(help: ArgumentHelp("Expire the key after this long: 30s, 15m, 2h, 7d.", valueName: "duration"))
        var ttl: TTLArgument?

        @Option(parsing: .unconditional, help: ArgumentHelp("Write only if the key is at this version (exit 5 otherwise).", valueName: "n"))
        var ifVersion: Int64?

        @Flag(help: "Write only if the key does not exist (exit 5 otherwise).")
        var ifAbsent = false

        @Option(
            parsing: .unconditional,
            help: ArgumentHelp("Write only if the key holds this JSON value (exit 5 otherwise).", valueName: "json"))
        var ifValue: String?

        @Option(
            parsing: .unconditional,
            help: ArgumentHelp("Set the member at this JSON Pointer inside the value (/window/w; /tags/- appends).", valueName: "pointer"))
        var path: String?

        @Flag(help: "Write the project file (.prefs.json) instead of the store.")
        var project = false

        func validate() throws {
            if project && (ttl != nil || ifVersion != nil || ifAbsent || ifValue != nil || path != nil) {
                throw ValidationError("--project cannot be used with --ttl, --if-version, --if-absent, --if-value or --path")
            }
            if [ifVersion != nil, ifAbsent, ifValue != nil].filter({ $0 }).count > 1 {
                throw ValidationError("--if-version, --if-absent and --if-value cannot be used together")
            }
            // VALUE is parsed by hand so that negative numbers need no escaping; `--` still
            // ends the options, and anything else that starts with a dash is an unknown option.
            let values = value.first == "--" ? Array(value.dropFirst()) : value
            if values.isEmpty {
                // `prefs set user.theme dark` (git config's section.key) or `user/theme`.
                if let cut = domain.firstIndex(where: { $0 == "." || $0 == "/" }), cut != domain.startIndex {
                    let rest = ShellWord.quoted(String(domain[domain.index(after: cut)...]))
                    let shape = "\(ShellWord.quoted(String(domain[..<cut]))) \(rest) \(ShellWord.quoted(key))"
                    throw ValidationError("set takes DOMAIN KEY VALUE as three words: prefs set \(shape)")
                }
                throw ValidationError("Missing expected argument '<value>' (prefs set DOMAIN KEY VALUE)")
            }
            if value.first != "--", let option = values.first(where: { $0.hasPrefix("-") && $0 != "-" && !looksNumeric($0) }) {
                let hint =
                    option == "--json"
                    ? "; VALUE is read as JSON when it is valid JSON (--type json requires it)"
                    : "; to store a value starting with '-', write: prefs set DOMAIN KEY -- VALUE"
                throw ValidationError("Unknown option '\(option)'\(hint)")
            }
            if values.count > 1 {
                throw ValidationError("Unexpected argument '\(values[1])'; quote a value that contains spaces")
            }
            if value.first != "--", let text = values.first, text.hasPrefix("-"), text != "-", !looksNumeric(text) {
                throw ValidationError("Unknown option '\(text)'; to store a value starting with '-', write: prefs set DOMAIN KEY -- VALUE")
            }
            if string && type != nil { throw ValidationError("--string and --type cannot be used together") }
            if path != nil && ttl != nil { throw ValidationError("--path keeps the key's expiry: it cannot be used with --ttl") }
        }

        func run() throws {
            let domain = try parseDomain(domain)
            try KeyName.validate(key)
            let pointer = try path.map { try JSONPointer($0) }
            let stack = try global.openStack(force: force)
            if !project { try TypoHint.checkNewDomain(domain, in: stack) }
            let schema = try stack.schema()
            // With --path VALUE is a member: the schema's type of the key does not say how to read it.
            let spec = pointer == nil ? schema.spec(in: domain, forKey: key) : nil
            // Without --type or --string the schema's type says how to read VALUE
            // (``Schema/value(fromText:in:forKey:)``, as batch's short lines and apply do).
            let text = try readValue(value.last ?? "", type: .auto, verbatim: true).stringValue ?? ""
            let parsed: JSONValue
            if string {
                parsed = .string(text)
            } else if let type = type?.type {
                parsed = try type.value(from: text)
            } else if pointer != nil {
                parsed = try ValueType.auto.value(from: text)
            } else {
                parsed = try schema.value(fromText: text, in: domain, forKey: key)
            }
            var condition: KeyValueStack.Precondition?
            if let ifVersion { condition = .version(ifVersion) }
            if ifAbsent { condition = .absent }
            if let ifValue { condition = .value(try ValueType.json.value(from: ifValue)) }
            if let deprecated = spec?.deprecated {
                Output.error("warning: \(domain.name)/\(key) is deprecated\(deprecated.stringValue.map { ": " + $0 } ?? "")")
            }
            do {
                if project {
                    try stack.setInProject(parsed, in: domain, forKey: key, file: try projectFileTarget())
                } else if let pointer {
                    try stack.perform([KeyValueStack.Operation(.setMember(pointer, parsed), in: domain, forKey: key, if: condition)])
                } else if let condition {
                    try stack.set(parsed, in: domain, forKey: key, if: condition, expiresIn: ttl?.duration)
                } else {
                    try stack.set(parsed, in: domain, forKey: key, expiresIn: ttl?.duration)
                    try flushOrDiscard(stack)
                }
            } catch let error as PrefsError where error.reason == .schemaViolation(.type) {
                throw error.suffixed(" (--type or --string says how to read VALUE)")
            }
        }
    }
}

/// Whether text reads as a JSON number, such as `-5` or `-0.5e3`.
func looksNumeric(_ text: String) -> Bool {
    if case .number = try? JSONValue(parsing: text) { return true }
    return false
}
