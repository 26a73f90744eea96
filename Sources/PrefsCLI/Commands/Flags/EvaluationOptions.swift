import ArgumentParser
import FoundationEssentials
import PrefsCore

extension Prefs {
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
            guard stack.layers.holdsFlags || FileManager.default.fileExists(atPath: stack.path) else {
                throw PrefsError(.usage, "no store at \(stack.path): import flags first (prefs flag import FILE)")
            }
            return try stack.flags.evaluate(
                key, type: type, default: value, context: contextValue(), targetingKey: targetingKey,
                fractionalVersion: fractionalVersion.flatMap(FractionalVersion.init(rawValue:)))
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
