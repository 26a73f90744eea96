import ArgumentParser
import FoundationEssentials
import Glibc
import PrefsCore

extension Prefs {
    struct FlagExplainCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "explain",
            abstract: "Show why a flag evaluates as it does: every rule node with its inputs and result.",
            discussion: """
                Prints the steps before targeting, the targeting as a tree (each JsonLogic node with its result, the \
                if branch taken, $refs named, var lookups, sem_ver's parsed versions, fractional's bucketing value, \
                hash, bucket and ranges) and the value, variant and reason exactly as flag eval gives them. Without \
                --type the flag's own variant type is used and the default is null. An evaluation error is a result: exit 0.
                """)

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The flag.", completion: Completions.flag)
        var key: String

        @Option(help: ArgumentHelp("The evaluation context: a JSON object, or @FILE to read one from a file.", valueName: "json|@file"))
        var context: String?

        @Option(
            parsing: .unconditional,
            help: ArgumentHelp("The targeting key (the context's targetingKey); an empty one counts as absent.", valueName: "key"))
        var targetingKey: String?

        @Option(help: ArgumentHelp("boolean, string, integer, float or object (default: the flag's variant type).", valueName: "type"))
        var type: FlagTypeArgument?

        @Option(
            name: .customLong("default"), help: ArgumentHelp("The caller's default, read as --type (needs --type).", valueName: "value"))
        var defaultValue: String?

        @Option(help: ArgumentHelp("Explain a flag of this flagd file instead of the store.", valueName: "file"))
        var document: String?

        @Option(help: ArgumentHelp("fractional hashing: 3 (the default), 2 or 1; overrides prefs flag config.", valueName: "n"))
        var fractionalVersion: Int?

        @Flag(help: "Print the explanation as one JSON object.")
        var json = false

        func validate() throws {
            if let fractionalVersion, FractionalVersion(rawValue: fractionalVersion) == nil {
                throw ValidationError("--fractional-version must be 1, 2 or 3")
            }
            if defaultValue != nil && type == nil { throw ValidationError("--default needs --type") }
        }

        func run() throws {
            let version = try FlagSource.fractionalVersion(fractionalVersion, global: global)
            if document == nil {
                guard
                    Layers.current(environment: ProcessEnvironment.current(), workingDirectory: CommandContext.runDirectory).holdsFlags
                        || FileManager.default.fileExists(atPath: global.storePath)
                else {
                    throw PrefsError(.usage, "no store at \(global.storePath): import flags first (prefs flag import FILE)")
                }
            }
            // From the store, only this flag is read and compiled.
            let flags =
                try document.map { try FlagSource.load($0, global: global, version: version) }
                ?? global.openStack().flags.flagSet(only: key, fractionalVersion: version)
            let fallback = try defaultValue.map { try type?.parse($0) ?? .null } ?? .null
            let data = try EvaluationContexts.data(try Self.readContext(context))
            let explanation = flags.explain(key, type: type?.type, default: fallback, context: data, targetingKey: targetingKey)
            Output.standard.write(json ? explanation.json.compactText + "\n" : explanation.text)
        }

        /// `--context`: JSON, or `@FILE`; at most ``EvaluationContexts/maximumLineBytes``.
        static func readContext(_ option: String?) throws -> JSONValue {
            guard let option else { return .object([]) }
            let bytes: [UInt8]
            let name: String
            if option.hasPrefix("@") {
                name = String(option.dropFirst())
                bytes = try readInput(name)
            } else {
                name = "--context"
                bytes = Array(option.utf8)
            }
            guard bytes.count <= EvaluationContexts.maximumLineBytes else {
                throw PrefsError(.invalidValue, "\(name): a context longer than \(EvaluationContexts.maximumLineBytes) bytes")
            }
            let value: JSONValue
            do {
                value = try JSONValue(parsingUTF8: bytes)
            } catch let error as PrefsError {
                throw PrefsError(.invalidValue, "\(name): \(error.message)")
            }
            guard case .object = value else { throw PrefsError(.invalidValue, "\(name) must be a JSON object, got \(value.typeName)") }
            return value
        }
    }
}
