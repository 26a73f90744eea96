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
        return try global.openStack().fractionalVersionSetting() ?? .default
    }

    static func load(_ source: String, global: GlobalOptions, version: FractionalVersion) throws -> FlagSet {
        if source == store {
            guard FileManager.default.fileExists(atPath: global.storePath) else { return FlagSet(entries: [], fractionalVersion: version) }
            return try global.openStack().flags(fractionalVersion: version)
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

extension Prefs {
    struct FlagExplain: ParsableCommand {
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
                guard FileManager.default.fileExists(atPath: global.storePath) else {
                    throw PrefsError(.usage, "no store at \(global.storePath): import flags first (prefs flag import FILE)")
                }
            }
            // From the store, only this flag is read and compiled.
            let flags =
                try document.map { try FlagSource.load($0, global: global, version: version) }
                ?? global.openStack().flags(only: key, fractionalVersion: version)
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

    struct FlagDiffCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "diff",
            abstract: "Show which contexts change variant between two flag documents (exit 0 none, 1 changes).",
            discussion: """
                OLD and NEW are flagd files, - for standard input, or @store for the current switch domain. Every \
                flag of either is evaluated for every context under both; per changed flag a matrix of old → new \
                outcomes (variant names, or (default), (disabled), (static), (absent), (error CODE)) with counts, \
                percentages and example contexts. Exit 0 when nothing differs, 1 when a flag was added, removed or \
                changed, 6 for an invalid document or context (the line is named), 2 for a file that cannot be read.
                """)

        @OptionGroup var global: GlobalOptions

        @Argument(help: ArgumentHelp("The flags before: a flagd file, - or @store.", valueName: "old"))
        var old: String

        @Argument(help: ArgumentHelp("The flags after: a flagd file, - or @store.", valueName: "new"))
        var new: String

        @Option(help: ArgumentHelp("Evaluation contexts, one JSON object per line (- for standard input).", valueName: "file"))
        var contexts: String?

        @Option(help: ArgumentHelp("Instead of --contexts: N contexts with generated targeting keys.", valueName: "n"))
        var synthetic: Int?

        @Option(help: ArgumentHelp("The seed of --synthetic's keys (default 0): the same seed, the same keys.", valueName: "n"))
        var seed: UInt64 = 0

        @Option(help: ArgumentHelp("Example contexts shown per cell (default 3).", valueName: "n"))
        var examples: Int = 3

        @Option(help: ArgumentHelp("fractional hashing: 3 (the default), 2 or 1; overrides prefs flag config.", valueName: "n"))
        var fractionalVersion: Int?

        @Flag(help: "Print the comparison as one JSON object.")
        var json = false

        func validate() throws {
            if let fractionalVersion, FractionalVersion(rawValue: fractionalVersion) == nil {
                throw ValidationError("--fractional-version must be 1, 2 or 3")
            }
            if old == "-" && new == "-" { throw ValidationError("only one of OLD and NEW can be standard input") }
            if examples < 0 { throw ValidationError("--examples must be 0 or more") }
        }

        func run() throws {
            let version = try FlagSource.fractionalVersion(fractionalVersion, global: global)
            let source = try FlagSource.contexts(file: contexts, synthetic: synthetic, seed: seed)
            let before = try FlagSource.load(old, global: global, version: version)
            let after = try FlagSource.load(new, global: global, version: version)
            let diff = try FlagDiff.compare(before, after, contexts: source, examples: examples)
            Output.standard.write(json ? diff.json.compactText + "\n" : Self.text(diff))
            if diff.hasChanges { throw ExitCode(1) }
        }

        static func text(_ diff: FlagDiff) -> String {
            var lines = [
                "\(diff.contexts) context\(diff.contexts == 1 ? "" : "s"), \(diff.flags.count) flag\(diff.flags.count == 1 ? "" : "s")"
            ]
            for flag in diff.flags where flag.status != .unchanged {
                let share = FlagDiff.percent(flag.moved, of: diff.contexts)
                var head = "\(flag.status.rawValue) \(flag.key): \(flag.moved) of \(diff.contexts) contexts (\(share)%) change"
                if flag.status == .changed && flag.moved == 0 { head = "changed \(flag.key): the definition differs; no context changes" }
                lines.append(head)
                let width = flag.transitions.map { $0.from.count + $0.to.count + 3 }.max() ?? 0
                for cell in flag.transitions {
                    var arrow = "\(cell.from) → \(cell.to)"
                    if cell.from == cell.to && cell.changes { arrow += " (\(cell.fromValue.compactText) → \(cell.toValue.compactText))" }
                    let padded = arrow.padded(toUTF16Length: max(width, arrow.count))
                    var line =
                        "  \(cell.changes ? "*" : " ") \(padded)  \(String(cell.count).leftPadded(8))  \(FlagDiff.percent(cell.count, of: diff.contexts).leftPadded(5))%"
                    if cell.changes, !cell.examples.isEmpty {
                        line += "  e.g. " + cell.examples.map { FlagTraceNode.shortenedForLine($0.compactText) }.joined(separator: " ")
                    }
                    lines.append(line)
                }
            }
            let unchanged = diff.flags.filter { $0.status == .unchanged }.count
            lines.append("unchanged: \(unchanged) flag\(unchanged == 1 ? "" : "s")")
            return lines.joined(separator: "\n") + "\n"
        }
    }

    struct FlagStatsCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "stats",
            abstract: "Show how a flag's variants spread over contexts, with a bar chart on a terminal.",
            discussion: """
                On a terminal: one bar per outcome; otherwise OUTCOME, COUNT, PERCENT (and CONFIGURED percent for a \
                fractional rule) tab-separated, or --json. For a fractional rule the configured share of each variant \
                is shown next to the observed one.
                """)

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The flag.", completion: Completions.flag)
        var key: String

        @Option(help: ArgumentHelp("Evaluation contexts, one JSON object per line (- for standard input).", valueName: "file"))
        var contexts: String?

        @Option(help: ArgumentHelp("Instead of --contexts: N contexts with generated targeting keys.", valueName: "n"))
        var synthetic: Int?

        @Option(help: ArgumentHelp("The seed of --synthetic's keys (default 0).", valueName: "n"))
        var seed: UInt64 = 0

        @Option(help: ArgumentHelp("Use the flags of this flagd file instead of the store.", valueName: "file"))
        var document: String?

        @Option(help: ArgumentHelp("fractional hashing: 3 (the default), 2 or 1; overrides prefs flag config.", valueName: "n"))
        var fractionalVersion: Int?

        @Flag(help: "Print the distribution as one JSON object.")
        var json = false

        func validate() throws {
            if let fractionalVersion, FractionalVersion(rawValue: fractionalVersion) == nil {
                throw ValidationError("--fractional-version must be 1, 2 or 3")
            }
        }

        func run() throws {
            let version = try FlagSource.fractionalVersion(fractionalVersion, global: global)
            let source = try FlagSource.contexts(file: contexts, synthetic: synthetic, seed: seed)
            let flags = try FlagSource.load(document ?? FlagSource.store, global: global, version: version)
            guard flags.flags[key] != nil else { throw PrefsError(.notFound, "flag \(JSONValue.string(key).compactText) not found") }
            let stats = try FlagDistribution.measure(key, in: flags, contexts: source)
            if json {
                Output.standard.write(stats.json.compactText + "\n")
            } else if isatty(1) == 1 {
                Output.standard.write(Self.chart(stats))
            } else {
                for bucket in stats.buckets {
                    var fields = [bucket.outcome, String(bucket.count), FlagDiff.percent(bucket.count, of: stats.total)]
                    if stats.hasFractional { fields.append(bucket.configuredPercent.map { LogicValue.formatted($0) } ?? "-") }
                    Output.standard.write(fields.joined(separator: "\t") + "\n")
                }
            }
        }

        static func chart(_ stats: FlagDistribution) -> String {
            let width = 40
            let nameWidth = min(stats.buckets.map(\.outcome.count).max() ?? 0, 30)
            var lines = ["\(stats.key): \(stats.total) context\(stats.total == 1 ? "" : "s")"]
            for bucket in stats.buckets {
                let share = stats.total == 0 ? 0 : Double(bucket.count) / Double(stats.total)
                let eighths = Int((share * Double(width) * 8).rounded())
                let partial = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"][eighths % 8]
                let bar = String(repeating: "█", count: eighths / 8) + partial
                let name = bucket.outcome.count > 30 ? String(bucket.outcome.prefix(29)) + "…" : bucket.outcome
                var line =
                    "  \(name.padded(toUTF16Length: nameWidth))  \(bar.padded(toUTF16Length: width))  \(String(bucket.count).leftPadded(8))  \(FlagDiff.percent(bucket.count, of: stats.total).leftPadded(5))%"
                if let configured = bucket.configuredPercent { line += "  (configured \(LogicValue.formatted(configured))%)" }
                lines.append(line)
            }
            return lines.joined(separator: "\n") + "\n"
        }
    }

    struct FlagLintCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "lint",
            abstract: "Check a flagd document beyond validity; exit 1 on an error-level finding.",
            discussion: """
                Reports targeting that returns a name that is not a variant, variants nothing reaches, fractional \
                weights that sum to 0 or name a variant twice, unused or missing $evaluators, variants of mixed types, \
                defaultVariant null without targeting, and (for @store) a DISABLED flag whose history never shows it \
                ENABLED. Each finding names its JSON path and line:column. --format github prints GitHub Actions \
                annotations (::error file=…,line=…,col=…::). Exit 0 with warnings only, 1 with an error.
                """)

        @OptionGroup var global: GlobalOptions

        @Argument(help: ArgumentHelp("The flagd file, - for standard input, or @store (the default).", valueName: "file"))
        var file: String = FlagSource.store

        @Option(help: ArgumentHelp("text (the default), json or github.", valueName: "format"))
        var format: String = "text"

        func validate() throws {
            guard ["text", "json", "github"].contains(format) else { throw ValidationError("--format must be text, json or github") }
        }

        func run() throws {
            let bytes: [UInt8]
            var everEnabled: Swift.Set<String>?
            let name: String
            if file == FlagSource.store {
                name = "@store"
                guard FileManager.default.fileExists(atPath: global.storePath) else {
                    throw PrefsError(.usage, "no store at \(global.storePath): import flags first (prefs flag import FILE)")
                }
                let stack = try global.openStack()
                bytes = Array((try stack.exportFlags().document.prettyText + "\n").utf8)
                everEnabled = try stack.flagsEverEnabled()
            } else {
                name = file == "-" ? "standard input" : file
                bytes = try readInput(file)
            }
            let findings = FlagDocument.lint(bytes, everEnabled: everEnabled)
            switch format {
            case "json":
                Output.standard.write(JSONValue.array(findings.map { $0.json }).compactText + "\n")
            case "github":
                for finding in findings {
                    var place = "file=\(Self.escapeProperty(name))"
                    if let line = finding.line { place += ",line=\(line)" }
                    if let column = finding.column { place += ",col=\(column)" }
                    place += ",title=\(Self.escapeProperty("prefs flag lint: " + finding.check))"
                    Output.standard.write(
                        "::\(finding.severity.rawValue) \(place)::\(Self.escapeData(finding.message + " (" + finding.path + ")"))\n")
                }
            default:
                for finding in findings {
                    var place = name
                    if let line = finding.line { place += ":\(line)" }
                    if let column = finding.column { place += ":\(column)" }
                    Output.standard.write("\(place): \(finding.severity.rawValue): \(finding.message) [\(finding.check)] \(finding.path)\n")
                }
                let errors = findings.filter { $0.severity == .error }.count
                let warnings = findings.count - errors
                if !findings.isEmpty {
                    Output.error("\(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s")")
                }
            }
            if findings.contains(where: { $0.severity == .error }) { throw ExitCode(1) }
        }

        /// GitHub workflow commands: `%`, CR and LF escaped in data; also `:` and `,` in properties.
        static func escapeData(_ text: String) -> String {
            text.replacingLiteral("%", with: "%25").replacingLiteral("\r", with: "%0D").replacingLiteral("\n", with: "%0A")
        }

        static func escapeProperty(_ text: String) -> String {
            escapeData(text).replacingLiteral(":", with: "%3A").replacingLiteral(",", with: "%2C")
        }
    }
}

extension String {
    fileprivate func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}

extension FlagTraceNode {
    fileprivate static func shortenedForLine(_ text: String) -> String {
        text.count > 80 ? String(text.prefix(80)) + "…" : text
    }
}

extension LogicValue {
    fileprivate static func formatted(_ percent: Double) -> String {
        let rounded = (percent * 10).rounded() / 10
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }
}
