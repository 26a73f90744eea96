import ArgumentParser
import FoundationEssentials
import PrefsCore

extension Prefs {
    struct FlagImportCommand: ParsableCommand {
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
                let plan = try global.openStack().flags.importDocument(document, replace: replace, dryRun: dryRun)
                if dryRun {
                    for change in plan.changes { Output.standard.write("\(change.action.rawValue)\t\(change.key)\n") }
                }
            } catch let error as PrefsError where error.kind == .invalidValue {
                throw PrefsError(.invalidValue, "\(source): \(error.message)")
            }
        }
    }
}
