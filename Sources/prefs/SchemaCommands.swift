import ArgumentParser
import PrefsCore

extension Prefs {
    struct SchemaGroup: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "schema",
            abstract: "Load or show the schema: typed keys with defaults and constraints.",
            subcommands: [Load.self, Show.self])

        struct Load: ParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "load",
                abstract: "Check a schema file and make it the store's schema.",
                discussion: """
                    The file maps domain → key → {"type", "default", "description", "enum", "minimum", \
                    "maximum", "pattern", "deprecated"}; a key ending in * covers a prefix. A file with \
                    an error is refused (exit 6, with its JSON path) and the previous schema stays. \
                    Stored values that break the new schema are printed, one per line.
                    """)

            @OptionGroup var global: GlobalOptions

            @Argument(help: ArgumentHelp("The schema file, or - for standard input.", valueName: "file"), completion: .file())
            var file: String

            func run() throws {
                let source = file == "-" ? "standard input" : file
                let document: JSONValue
                do {
                    document = try JSONValue(parsingUTF8: try readInput(file), wrappingLevels: 4)
                } catch let error as PrefsError where error.kind == .invalidValue {
                    throw PrefsError(.invalidValue, "\(source): \(error.message)")
                }
                let violations: [String]
                do {
                    violations = try global.openStack().loadSchema(document)
                } catch let error as PrefsError where error.kind == .invalidValue {
                    throw PrefsError(.invalidValue, "\(source): \(error.message)")
                }
                for violation in violations { Output.standard.write("violation\t\(violation)\n") }
            }
        }

        struct Show: ParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "show", abstract: "Print the active schema ({} when none is loaded).")

            @OptionGroup var global: GlobalOptions

            func run() throws {
                Output.standard.write(try global.openStack().schema().document.prettyText + "\n")
            }
        }
    }

    struct Describe: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "describe",
            abstract: "Show a key's type, default, constraints, description and current value with its origin.")

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The domain.", completion: Completions.domain)
        var domain: String

        @Argument(help: "The key.", completion: Completions.key)
        var key: String

        @Flag(help: "Print one JSON object.")
        var json = false

        func run() throws {
            let domain = try parseDomain(domain)
            try KeyName.validate(key)
            let stack = try global.openStack()
            let spec = try stack.schema().spec(in: domain, forKey: key)
            let resolved = try stack.resolve(in: domain, forKey: key)
            let unset = PrefsError(.notFound, "\(domain.name)/\(key) is not set and has no default")
            // Nothing to describe: as `get`, exit 1 (a key the schema declares still shows its rules).
            if resolved == nil && spec == nil { throw unset }
            var fields: [(String, JSONValue)] = [("domain", .string(domain.name)), ("key", .string(key))]
            fields.append(("type", .string(spec?.type.rawValue ?? "any")))
            if let spec, spec.isPrefix { fields.append(("declaredBy", .string(spec.key + "*"))) }
            if let value = try stack.defaultValue(in: domain, forKey: key) { fields.append(("default", value)) }
            if let allowed = spec?.allowed { fields.append(("enum", .array(allowed))) }
            if let minimum = spec?.minimum { fields.append(("minimum", .number(minimum))) }
            if let maximum = spec?.maximum { fields.append(("maximum", .number(maximum))) }
            if let pattern = spec?.pattern { fields.append(("pattern", .string(pattern))) }
            if let deprecated = spec?.deprecated { fields.append(("deprecated", deprecated)) }
            if let description = spec?.description { fields.append(("description", .string(description))) }
            if let resolved {
                fields.append(("value", resolved.value))
                fields.append(("origin", .string(resolved.origin.rawValue)))
            }
            if spec == nil { fields.append(("inSchema", .bool(false))) }
            defer { if resolved == nil { Output.standard.flush() } }
            if json {
                Output.standard.write(JSONValue.object(fields.map { JSONValue.Member($0.0, $0.1) }).compactText + "\n")
                if resolved == nil { throw unset }
                return
            }
            for (name, value) in fields {
                let shown: String
                switch (name, value) {
                case ("enum", .array(let items)): shown = items.map(\.compactText).joined(separator: ", ")
                case (_, .string(let text)) where name != "default" && name != "value": shown = text
                default: shown = value.compactText
                }
                Output.standard.write("\(name):\t\(shown)\n")
            }
            if resolved == nil { throw unset }
        }

    }

    struct Reset: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reset",
            abstract: "Remove stored values so the defaults answer again (logged as reset).",
            discussion: "prefs reset DOMAIN KEY..., prefs reset DOMAIN --prefix P, or prefs reset DOMAIN --all.")

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The domain.", completion: Completions.domain)
        var domain: String

        @Argument(help: "The keys to reset.", completion: Completions.key)
        var keys: [String] = []

        @Flag(help: "Reset every key of the domain.")
        var all = false

        @Option(help: ArgumentHelp("Reset every key that starts with this text.", valueName: "prefix"))
        var prefix: String?

        func validate() throws {
            let ways = [!keys.isEmpty, all, prefix != nil].filter { $0 }.count
            if ways == 0 { throw ValidationError("Missing expected argument '<keys>' (or --all or --prefix)") }
            if ways > 1 { throw ValidationError("give keys, --all or --prefix, not several") }
            if prefix == "" { throw ValidationError("--prefix must not be empty; use --all") }
        }

        func run() throws {
            let domain = try parseDomain(domain)
            for key in keys { try KeyName.validate(key) }
            let stack = try global.openStack()
            if all {
                try stack.reset(in: domain)
            } else if let prefix {
                try stack.reset(in: domain, prefix: prefix)
            } else {
                try stack.reset(in: domain, keys: keys)
            }
        }
    }
}
