import ArgumentParser
import PrefsCore

extension Prefs {
    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export",
            abstract: "Write domains as one JSON object {\"domain\":{\"key\":value}}.",
            discussion: """
                Without DOMAIN, every persistent domain that holds a key; memory only when named. \
                Domains and keys are sorted, so the output is stable. --format env prints one \
                DOMAIN's keys as shell assignments (export NAME='value') that a script can eval; \
                --format dotenv as NAME='value' lines for a .env file (double quotes with \\ \\n \\r \\" \
                escapes when the value has a quote or a line break). NAME is the key in upper \
                case with every character other than A-Z and 0-9 replaced by _ (and _ before a \
                leading digit); strings are written raw, other values as compact JSON. Two keys \
                with the same NAME, a NAME that changes how the shell or programs run (PATH, \
                IFS, HOME, LD_*, BASH_*, PREFS_* and the like), a key with non-ASCII characters \
                or a value with a NUL character are refused with exit 6, and nothing is printed.
                """)

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The domains to export (default: all persistent domains).")
        var domains: [String] = []

        @Option(
            name: .short, help: ArgumentHelp("Write to this file (mode 0600) instead of standard output.", valueName: "file"),
            completion: .file())
        var output: String?

        @Flag(help: "Indent the JSON.")
        var pretty = false

        @Option(help: ArgumentHelp("json (default), env or dotenv.", valueName: "format"))
        var format: ExportFormat = .json

        @Flag(help: "Export what reads answer: overrides and registered defaults included.")
        var effective = false

        func validate() throws {
            if format != .json && domains.count != 1 { throw ValidationError("--format \(format.rawValue) takes exactly one DOMAIN") }
            if format != .json && pretty { throw ValidationError("--pretty is for --format json") }
        }

        func run() throws {
            let selected = try domains.map(parseDomain)
            let stack = try global.openStack()
            if format != .json {
                let text = try assignments(stack, selected[0])
                if let output {
                    try PrivateFile.write(Array(text.utf8), to: output, purpose: "export", store: global.storePath)
                } else {
                    Output.standard.write(text)
                }
                return
            }
            var text = effective ? try effectiveJSON(stack, selected) : try stack.exportJSON(selected.isEmpty ? nil : selected)
            if pretty { text = try JSONValue(parsing: text, wrappingLevels: 2).prettyText }
            text += "\n"
            if let output {
                try PrivateFile.write(Array(text.utf8), to: output, purpose: "export", store: global.storePath)
            } else {
                Output.standard.write(text)
            }
        }
    }

    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Load a JSON object {\"domain\":{\"key\":value}} into the store.",
            discussion: """
                The whole document is checked first; nothing changes when any part is invalid \
                (exit 6). Keys are added or changed; with --replace, each domain in the file \
                becomes exactly its content there. One transaction. --dry-run prints \
                ACTION<TAB>DOMAIN<TAB>KEY[<TAB>JSON] lines (add, change, remove) and writes nothing.
                """)

        @OptionGroup var global: GlobalOptions

        @Argument(help: ArgumentHelp("The file to read, or - for standard input.", valueName: "file"), completion: .file())
        var file: String = "-"

        @Flag(help: "Make each domain named in the file exactly the file's content.")
        var replace = false

        @Flag(help: "Print what would change and write nothing.")
        var dryRun = false

        @Flag(help: "Skip the schema's checks (with a warning).")
        var force = false

        func run() throws {
            let bytes = try readInput(file)
            let source = file == "-" ? "standard input" : file
            let stack = try global.openStack(force: force)
            let plan: ImportPlan
            do {
                plan = try stack.importDocument(utf8: consume bytes, replace: replace, dryRun: dryRun)
            } catch let error as PrefsError where error.kind == .invalidValue {
                throw PrefsError(.invalidValue, "\(source): \(error.message)")
            }
            guard dryRun else { return }
            let out = Output.standard
            for change in plan.changes {
                out.write("\(change.action.rawValue)\t\(change.domain.name)\t\(change.key)")
                if let json = change.json { out.write("\t" + json) }
                out.write("\n")
            }
            Output.error(
                "dry run: would add \(plan.count(.add)), change \(plan.count(.change)), remove \(plan.count(.remove)); \(plan.unchanged) unchanged"
            )
        }
    }
}

/// `export --format`.
enum ExportFormat: String, ExpressibleByArgument, CaseIterable {
    case json, env, dotenv
}

extension Prefs.Export {
    /// The name a key gets in `--format env|dotenv`; nil when it has non-ASCII characters.
    static func variableName(_ key: String) -> String? {
        guard key.utf8.allSatisfy({ $0 < 0x80 }) else { return nil }
        var name = String(
            key.uppercased().map { ($0 >= "A" && $0 <= "Z") || ($0 >= "0" && $0 <= "9") ? $0 : "_" })
        if let first = name.first, first >= "0" && first <= "9" { name = "_" + name }
        return name
    }

    /// Names an assignment must not set: they change how the shell, the dynamic linker or
    /// programs started later behave (a value from a server or a sync peer could run code),
    /// or are read-only in bash (the eval would fail).
    static func isDangerousName(_ name: String) -> Bool {
        let exact: Swift.Set<String> = [
            "PATH", "IFS", "ENV", "HOME", "CDPATH", "PS1", "PS2", "PS3", "PS4", "PROMPT_COMMAND", "SHELLOPTS", "BASHOPTS",
            "SHELL", "UID", "EUID", "PPID", "GLOBIGNORE", "MAIL", "MAILPATH", "FPATH", "HISTFILE", "TMPDIR", "PYTHONPATH",
            "PYTHONSTARTUP", "PERL5LIB", "PERL5OPT", "RUBYOPT", "NODE_OPTIONS", "JAVA_TOOL_OPTIONS", "GIT_SSH_COMMAND", "EDITOR",
            "VISUAL", "PAGER",
        ]
        return exact.contains(name) || name.hasPrefix("BASH_") || name.hasPrefix("LD_") || name.hasPrefix("PREFS_")
    }

    /// Every key of `domain` as shell or dotenv assignments; refuses collisions and
    /// unrepresentable keys or values before printing anything.
    func assignments(_ stack: KeyValueStack, _ domain: Domain) throws -> String {
        var lines: [String] = []
        var names: [String: String] = [:]
        let read: (Entry) throws -> Void = { entry in
            guard let name = Self.variableName(entry.key) else {
                throw PrefsError(
                    .invalidValue, "\(domain.name)/\(entry.key): the key has non-ASCII characters, which no variable name can hold")
            }
            if Self.isDangerousName(name) {
                throw PrefsError(
                    .invalidValue,
                    "\(domain.name)/\(entry.key) would set \(name), which changes how the shell or programs run; rename the key")
            }
            if let other = names[name] {
                throw PrefsError(.invalidValue, "\(domain.name)/\(other) and \(domain.name)/\(entry.key) would both be \(name)")
            }
            names[name] = entry.key
            let value = try entry.value()
            let text = value.stringValue ?? value.compactText
            if text.utf8.contains(0) {
                throw PrefsError(.invalidValue, "\(domain.name)/\(entry.key): the value has a NUL character, which a variable cannot hold")
            }
            switch format {
            case .env: lines.append("export \(name)='" + text.replacingLiteral("'", with: "'\\''") + "'")
            default:
                // Single quotes are literal in every dotenv reader; double quotes (with \\, \",
                // \n and \r escapes) only for text with a quote or a line break.
                if !text.contains("'") && !text.contains("\n") && !text.contains("\r") {
                    lines.append("\(name)='\(text)'")
                } else {
                    var escaped = ""
                    for character in text {
                        switch character {
                        case "\\": escaped += "\\\\"
                        case "\"": escaped += "\\\""
                        case "\n": escaped += "\\n"
                        case "\r": escaped += "\\r"
                        default: escaped.append(character)
                        }
                    }
                    lines.append("\(name)=\"\(escaped)\"")
                }
            }
        }
        if effective {
            try stack.forEachEffectiveEntry(in: domain) { entry, _ in try read(entry) }
        } else {
            try stack.forEachEntry(in: domain, read)
        }
        return lines.map { $0 + "\n" }.joined()
    }
}

/// `export --effective`: `{domain:{key:value}}` of what reads answer.
func effectiveJSON(_ stack: KeyValueStack, _ domains: [Domain]) throws -> String {
    var members: [JSONValue.Member] = []
    for domain in domains.isEmpty ? [nil] : Array(Set(domains)).sorted().map(Optional.some) {
        try stack.forEachEffectiveEntry(in: domain) { entry, _ in
            guard entry.domain.isPersistent || domain != nil else { return }
            let value = try entry.value()
            if let last = members.last, last.key == entry.domain.name, case .object(var keys) = last.value {
                keys.append(JSONValue.Member(entry.key, value))
                members[members.count - 1].value = .object(keys)
            } else {
                members.append(JSONValue.Member(entry.domain.name, .object([JSONValue.Member(entry.key, value)])))
            }
        }
        if let domain, !members.contains(where: { $0.key == domain.name }) {
            members.append(JSONValue.Member(domain.name, .object([])))
        }
    }
    return JSONValue.object(members).compactText
}
