import ArgumentParser
import FoundationEssentials
import Glibc
import PrefsCore

/// Where `flag explain`, `diff`, `stats` and `lint` read flags from: a flagd file or `@store`
/// (the current `switch` domain).
struct FlagSource {
    static let store = "@store"

    /// The fractional hashing: the option, else the store's setting when there is a store, else the default.
    static func fractionalVersion(_ option: Int?, global: GlobalOptions) throws -> FractionalVersion {
        if let option, let version = FractionalVersion(rawValue: option) { return version }
        guard FileManager.default.fileExists(atPath: global.storePath) else { return .default }
        return try global.openStack().flags.fractionalVersionSetting() ?? .default
    }

    static func load(_ source: String, global: GlobalOptions, version: FractionalVersion) throws -> FlagSet {
        if source == store {
            guard FileManager.default.fileExists(atPath: global.storePath) else { return FlagSet(entries: [], fractionalVersion: version) }
            return try global.openStack().flags.flagSet(fractionalVersion: version)
        }
        let name = source == "-" ? "standard input" : source
        do {
            let document = try JSONValue(parsingUTF8: try readInput(source), wrappingLevels: 4)
            return try FlagDocument.flagSet(document, fractionalVersion: version)
        } catch let error as PrefsError where error.kind == .invalidValue {
            throw PrefsError(.invalidValue, "\(name): \(error.message)")
        }
    }

    /// `--contexts FILE` or `--synthetic N [--seed S]`: exactly one.
    static func contexts(file: String?, synthetic: Int?, seed: UInt64) throws -> EvaluationContexts {
        switch (file, synthetic) {
        case (let file?, nil):
            if file == "-" { return .lines(try readInput("-"), name: "standard input") }
            guard FileManager.default.isReadableFile(atPath: file) else { throw PrefsError(.usage, "cannot read \(file): no such file") }
            return .file(file)
        case (nil, let count?): return .synthetic(count: count, seed: seed)
        case (nil, nil): throw PrefsError(.usage, "give --contexts FILE (JSON Lines) or --synthetic N")
        default: throw PrefsError(.usage, "give --contexts or --synthetic, not both")
        }
    }
}
