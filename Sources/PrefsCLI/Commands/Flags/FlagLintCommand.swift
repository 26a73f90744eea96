import ArgumentParser
import FoundationEssentials
import Glibc
import PrefsCore

extension Prefs {
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
                bytes = Array((try stack.flags.exportDocument().document.prettyText + "\n").utf8)
                everEnabled = try stack.flags.everEnabled()
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
