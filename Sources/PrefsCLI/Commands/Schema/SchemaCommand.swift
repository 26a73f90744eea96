import ArgumentParser
import PrefsCore

extension Prefs {
    struct SchemaCommand: ParsableCommand {
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
}
