import ArgumentParser
import FoundationEssentials
import Glibc
import PrefsCore

extension Prefs {
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
}
