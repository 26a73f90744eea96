import ArgumentParser
import FoundationEssentials
import PrefsCore

extension Prefs {
    struct FlagExportCommand: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "export", abstract: "Write switch as a flagd document.")

        @OptionGroup var global: GlobalOptions

        @Option(name: .short, help: ArgumentHelp("Write to this file instead of standard output.", valueName: "file"))
        var output: String?

        func run() throws {
            let (document, skipped) = try global.openStack().flags.exportDocument()
            for key in skipped { Output.error("warning: switch/\(key) is not exported: arrays and null cannot be flagd variants") }
            let text = document.prettyText + "\n"
            if let output, !PrivateFile.meansStandardOutput(output) {
                try PrivateFile.write(Array(text.utf8), to: output, purpose: "flag export", store: global.storePath)
            } else {
                Output.standard.write(text)
            }
        }
    }
}
