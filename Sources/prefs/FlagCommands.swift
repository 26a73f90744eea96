import ArgumentParser
import FoundationEssentials
import PrefsCore

extension Prefs {
    struct FlagGroup: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "flag",
            abstract: "Feature flags in the switch domain, in OpenFeature flagd's format.",
            subcommands: [
                FlagImport.self, FlagExport.self, FlagList.self, FlagShow.self, FlagEval.self, FlagEnabled.self, FlagEnable.self,
                FlagDisable.self, FlagConfig.self, FlagExplain.self, FlagDiffCommand.self, FlagStatsCommand.self, FlagLintCommand.self,
            ])
    }

    struct FlagImport: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Load a flagd document into switch (flags, $evaluators, metadata).",
            discussion: "The document is checked whole first: any problem is exit 6 with its JSON path and nothing changes.")

        @OptionGroup var global: GlobalOptions

        @Argument(help: ArgumentHelp("The flagd file, or - for standard input.", valueName: "file"))
        var file: String = "-"

        @Flag(help: "Make the switch domain exactly the document's flags.")
        var replace = false

        @Flag(help: "Print what would change and write nothing.")
        var dryRun = false

        func run() throws {
            let source = file == "-" ? "standard input" : file
            do {
                let document = try JSONValue(parsingUTF8: try readInput(file), wrappingLevels: 4)
                let plan = try global.openStack().importFlags(document, replace: replace, dryRun: dryRun)
                if dryRun {
                    for change in plan.changes { Output.standard.write("\(change.action.rawValue)\t\(change.key)\n") }
                }
            } catch let error as PrefsError where error.kind == .invalidValue {
                throw PrefsError(.invalidValue, "\(source): \(error.message)")
            }
        }
    }

    struct FlagExport: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "export", abstract: "Write switch as a flagd document.")

        @OptionGroup var global: GlobalOptions

        @Option(name: .short, help: ArgumentHelp("Write to this file instead of standard output.", valueName: "file"))
        var output: String?

        func run() throws {
            let (document, skipped) = try global.openStack().exportFlags()
            for key in skipped { Output.error("warning: switch/\(key) is not exported: arrays and null cannot be flagd variants") }
            let text = document.prettyText + "\n"
            if let output {
                try PrivateFile.write(Array(text.utf8), to: output, purpose: "flag export", store: global.storePath)
            } else {
                Output.standard.write(text)
            }
        }
    }

    struct FlagList: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List flags: KEY, STATE, TYPE, DEFAULT VARIANT, TARGETING (yes/no), VARIANTS, tab-separated.")

        @OptionGroup var global: GlobalOptions

        @Flag(help: "Print one JSON object per line.")
        var json = false

        func run() throws {
            let stack = try global.openStack()
            let version = try stack.fractionalVersionSetting() ?? .default
            let flags = try stack.flags(fractionalVersion: version)
            for key in flags.flags.keys.sorted(by: { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }) {
                guard let flag = flags.flags[key] else { continue }
                let type = flag.isStatic ? flag.definition.typeName : flag.variantType
                if json {
                    let object: JSONValue = .object([
                        .init("key", .string(key)), .init("state", .string(flag.state)), .init("type", .string(type)),
                        .init("static", .bool(flag.isStatic)), .init("variants", .array(flag.variants.map { .string($0.key) })),
                        .init("defaultVariant", flag.defaultVariant.map(JSONValue.string) ?? .null),
                        .init("targeting", .bool(flag.hasTargeting)), .init("metadata", .object(flag.metadata)),
                        .init("fractionalVersion", .number(String(version.rawValue))),
                    ])
                    Output.standard.write(object.compactText + "\n")
                } else {
                    let fields = [
                        key, flag.state, type, flag.isStatic ? "static" : (flag.defaultVariant ?? "-"), flag.hasTargeting ? "yes" : "no",
                        flag.isStatic ? flag.definition.compactText : flag.variants.map(\.key).joined(separator: ","),
                    ]
                    Output.standard.write(fields.joined(separator: "\t") + "\n")
                }
            }
        }
    }

    struct FlagShow: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "show", abstract: "Print a flag's definition.")

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The flag.", completion: Completions.flag)
        var key: String

        func run() throws {
            try KeyName.validate(key)
            guard let value = try global.openStack().value(in: .switch, forKey: key) else {
                throw PrefsError(.notFound, "flag \(JSONValue.string(key).compactText) not found")
            }
            Output.standard.write(value.prettyText + "\n")
        }
    }

    /// Options shared by `flag eval` and `flag enabled`.
    struct EvaluationOptions: ParsableArguments {
        @Option(help: ArgumentHelp("The evaluation context, a JSON object.", valueName: "json"))
        var context: String?

        // Unconditional: a key may be empty or start with "-" (`--targeting-key -x`).
        @Option(
            parsing: .unconditional,
            help: ArgumentHelp("The targeting key (the context's targetingKey); an empty one counts as absent.", valueName: "key"))
        var targetingKey: String?

        @Option(
            help: ArgumentHelp(
                "fractional hashing: 3 (CBOR, current flagd; the default), 2 or 1 (older flagd); overrides prefs flag config.",
                valueName: "n"))
        var fractionalVersion: Int?

        func validate() throws {
            if let fractionalVersion, FractionalVersion(rawValue: fractionalVersion) == nil {
                throw ValidationError("--fractional-version must be 1, 2 or 3")
            }
        }

        func contextValue() throws -> JSONValue {
            guard let context else { return .object([]) }
            let value: JSONValue
            do {
                value = try JSONValue(parsing: context)
            } catch let error as PrefsError {
                throw PrefsError(.invalidValue, "--context: \(error.message)")
            }
            guard case .object = value else { throw PrefsError(.invalidValue, "--context must be a JSON object, got \(value.typeName)") }
            return value
        }

        func evaluate(_ stack: KeyValueStack, _ key: String, type: FlagType, default value: JSONValue) throws -> FlagResolution {
            guard FileManager.default.fileExists(atPath: stack.path) else {
                throw PrefsError(.usage, "no store at \(stack.path): import flags first (prefs flag import FILE)")
            }
            return try stack.evaluateFlag(
                key, type: type, default: value, context: contextValue(), targetingKey: targetingKey,
                fractionalVersion: fractionalVersion.flatMap(FractionalVersion.init(rawValue:)))
        }
    }

    struct FlagEval: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "eval",
            abstract: "Evaluate a flag for a context.",
            discussion: """
                Prints the value (strings raw), or with --json one object with value, variant, reason, \
                errorCode, errorMessage and metadata. Without --type the flag's own variant type is \
                used. With --default, an evaluation error is a result (exit 0; a flag that does not \
                exist is also named on stderr, with the nearest flag's name); without it, or with \
                --strict (or PREFS_STRICT_FLAGS=1) for a missing flag, an error is exit 1 for a \
                missing flag and exit 6 for any other.
                """)

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The flag.", completion: Completions.flag)
        var key: String

        @Option(help: ArgumentHelp("boolean, string, integer, float or object (default: the flag's variant type).", valueName: "type"))
        var type: FlagTypeArgument?

        @Option(
            name: .customLong("default"),
            help: ArgumentHelp("The value when the flag does not give one, read as the type.", valueName: "value"))
        var defaultValue: String?

        @Flag(help: "A flag that does not exist is exit 1 even with --default (also PREFS_STRICT_FLAGS=1).")
        var strict = false

        @OptionGroup var evaluation: EvaluationOptions

        @Flag(help: "Print the whole result as JSON.")
        var json = false

        func run() throws {
            try KeyName.validate(key)
            let stack = try global.openStack()
            guard FileManager.default.fileExists(atPath: stack.path) else {
                throw PrefsError(.usage, "no store at \(stack.path): import flags first (prefs flag import FILE)")
            }
            // Only this flag is read and compiled; a missing one reads them all, for the hint.
            let flags = try stack.flags(
                only: key, fractionalVersion: evaluation.fractionalVersion.flatMap(FractionalVersion.init(rawValue:)))
            let flagType = type?.type ?? flags.naturalType(of: key)
            var fallback = JSONValue.null
            if let defaultValue {
                // Read as the type asked for; without --type as the flag's type, else (no such
                // flag) as typed JSON, the way `set` reads a value.
                fallback =
                    type != nil
                    ? try FlagTypeArgument(flagType).parse(defaultValue)
                    : try (try? FlagTypeArgument(flagType).parse(defaultValue)) ?? ValueType.auto.value(from: defaultValue)
            }
            let result = flags.evaluate(
                key, type: flagType, default: fallback, context: try FlagSet.context(evaluation.contextValue()),
                targetingKey: evaluation.targetingKey)
            if result.errorCode == "FLAG_NOT_FOUND" {
                let hint = TypoHint.suffix(key, among: flags.sortedKeys)
                if defaultValue == nil || strict || ProcessEnvironment.value("PREFS_STRICT_FLAGS") == "1" {
                    throw PrefsError(.notFound, "flag '\(key)' not found" + hint)
                }
                Output.error("warning: flag '\(key)' not found, answered the default" + hint)
            } else if result.reason == "ERROR" && defaultValue == nil {
                throw PrefsError(
                    .invalidValue, "flag '\(key)': \(result.errorCode ?? "GENERAL")\(result.errorMessage.map { ": " + $0 } ?? "")")
            }
            if json {
                Output.standard.write(result.json + "\n")
            } else {
                Output.standard.writeValue(result.value, json: false)
            }
        }
    }

    struct FlagEnabled: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "enabled",
            abstract: "Exit 0 when the flag evaluates to true, 1 otherwise (for shell conditions).")

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The flag.", completion: Completions.flag)
        var key: String

        @OptionGroup var evaluation: EvaluationOptions

        func run() throws {
            try KeyName.validate(key)
            let stack = try global.openStack()
            let result = try evaluation.evaluate(stack, key, type: .boolean, default: .bool(false))
            if result.errorCode == "FLAG_NOT_FOUND" {
                // Still a plain "no" (exit 1), but a typo is never silent.
                Output.error("warning: flag '\(key)' not found" + TypoHint.suffix(key, among: try stack.flags().sortedKeys))
            }
            if result.value != .bool(true) { throw ExitCode(1) }
        }
    }

    struct FlagEnable: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "enable", abstract: "Set a flag's state to ENABLED.")

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The flag.", completion: Completions.flag)
        var key: String

        func run() throws {
            try KeyName.validate(key)
            try global.openStack().setFlag(key, enabled: true)
        }
    }

    struct FlagDisable: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "disable", abstract: "Set a flag's state to DISABLED.")

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The flag.", completion: Completions.flag)
        var key: String

        func run() throws {
            try KeyName.validate(key)
            try global.openStack().setFlag(key, enabled: false)
        }
    }

    struct FlagConfig: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "config",
            abstract: "Show or set a flag setting of the store: fractional-version 1|2|3.",
            discussion: """
                fractional-version is the hashing `fractional` uses to bucket users: 3 (CBOR, what current flagd \
                providers use; the default), 2 or 1 for fleets on older flagd releases. Without a value, prints the \
                current one. --fractional-version of flag eval/enabled wins over it.
                """)

        @OptionGroup var global: GlobalOptions

        @Argument(help: ArgumentHelp("The setting: fractional-version.", valueName: "name"))
        var name: String

        @Argument(help: ArgumentHelp("The new value: 1, 2 or 3.", valueName: "value"))
        var value: Int?

        @Flag(help: "Remove the setting (back to the default, 3).")
        var unset = false

        func validate() throws {
            guard name == "fractional-version" else { throw ValidationError("unknown flag setting '\(name)' (known: fractional-version)") }
            if let value, FractionalVersion(rawValue: value) == nil { throw ValidationError("fractional-version must be 1, 2 or 3") }
            if value != nil && unset { throw ValidationError("give a value or --unset, not both") }
        }

        func run() throws {
            let stack = try global.openStack()
            if let value {
                try stack.setFractionalVersion(FractionalVersion(rawValue: value))
            } else if unset {
                try stack.setFractionalVersion(nil)
            } else {
                Output.standard.write("\((try stack.fractionalVersionSetting() ?? .default).rawValue)\n")
            }
        }
    }
}

/// `--type` of `flag eval`, and how it reads `--default`.
struct FlagTypeArgument: ExpressibleByArgument {
    var type: FlagType

    init(_ type: FlagType) {
        self.type = type
    }

    init?(argument: String) {
        guard let type = FlagType(rawValue: argument) else { return nil }
        self.type = type
    }

    static var allValueStrings: [String] { FlagType.allCases.map(\.rawValue) }

    func parse(_ text: String) throws -> JSONValue {
        switch type {
        case .string: return .string(text)
        case .boolean: return try ValueType.boolean.value(from: text)
        case .integer: return try ValueType.integer.value(from: text)
        case .float: return try ValueType.number.value(from: text)
        case .object: return try ValueType.object.value(from: text)
        }
    }
}
