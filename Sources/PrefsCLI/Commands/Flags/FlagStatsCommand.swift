import ArgumentParser
import FoundationEssentials
import Glibc
import PrefsCore

extension Prefs {
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
            } else if CommandContext.active == nil, isatty(1) == 1 {
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
}
