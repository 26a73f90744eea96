import ArgumentParser
import PrefsCore

extension Prefs {
    struct BackupCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "backup",
            abstract: "Write a consistent copy of the store while other processes keep writing (mode 0600).")

        @OptionGroup var global: GlobalOptions

        @Argument(help: ArgumentHelp("The backup file.", valueName: "file"), completion: .file())
        var file: String

        @Flag(help: "Overwrite an existing file.")
        var force = false

        func run() throws {
            // An interrupted backup leaves no hidden copy behind (the binary's handlers: a run in
            // a test's process leaves the test's signals alone).
            if CommandContext.active == nil { SignalCleanup.installHandlers() }
            try global.openStack().maintenance.backup(to: file, overwrite: force)
        }
    }
}
