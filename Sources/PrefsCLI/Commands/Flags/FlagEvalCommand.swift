import ArgumentParser
import FoundationEssentials
import PrefsCore

extension Prefs {
    struct FlagEvalCommand: ParsableCommand {
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
            guard stack.layers.holdsFlags || FileManager.default.fileExists(atPath: stack.path) else {
                throw PrefsError(.usage, "no store at \(stack.path): import flags first (prefs flag import FILE)")
            }
            // Only this flag is read and compiled; for a missing one, the flags' names (the hint).
            let flags = try stack.flags.flagSet(
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
                let hint = TypoHint.suffix(key, among: try stack.flags.names(near: key))
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
}
