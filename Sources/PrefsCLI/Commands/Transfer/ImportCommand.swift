import ArgumentParser
import PrefsCore

extension Prefs {
    struct ImportCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Load a JSON object {\"domain\":{\"key\":value}} into the store.",
            discussion: """
                The whole document is checked first; nothing changes when any part is invalid \
                (exit 6). Keys are added or changed; with --replace, each domain in the file \
                becomes exactly its content there. One transaction. --dry-run prints \
                ACTION<TAB>DOMAIN<TAB>KEY[<TAB>JSON] lines (add, change, remove) and writes nothing.
                """)

        @OptionGroup var global: GlobalOptions

        @Argument(help: ArgumentHelp("The file to read, or - for standard input.", valueName: "file"), completion: .file())
        var file: String = "-"

        @Flag(help: "Make each domain named in the file exactly the file's content.")
        var replace = false

        @Flag(help: "Print what would change and write nothing.")
        var dryRun = false

        @Flag(help: "Skip the schema's checks (with a warning).")
        var force = false

        func run() throws {
            let bytes = try readInput(file)
            let source = file == "-" ? "standard input" : file
            let stack = try global.openStack(force: force)
            let plan: ImportPlan
            do {
                plan = try stack.importDocument(utf8: consume bytes, replace: replace, dryRun: dryRun)
            } catch let error as PrefsError where error.kind == .invalidValue {
                throw PrefsError(.invalidValue, "\(source): \(error.message)")
            }
            guard dryRun else { return }
            let out = Output.standard
            for change in plan.changes {
                out.write("\(change.action.rawValue)\t\(change.domain.name)\t\(change.key)")
                if let json = change.json { out.write("\t" + json) }
                out.write("\n")
            }
            Output.error(
                "dry run: would add \(plan.count(.add)), change \(plan.count(.change)), remove \(plan.count(.remove)); \(plan.unchanged) unchanged"
            )
        }
    }
}
