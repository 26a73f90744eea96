import ArgumentParser
import PrefsCore

extension Prefs {
    struct RestoreCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "restore",
            abstract: "Replace the store's content with a backup, while other processes keep using it.",
            discussion: """
                The backup must be an intact prefs store in a regular file (prefs backup makes one). \
                It is read as data: only its keys, values and change log are taken, each checked as \
                import checks them, into a new store prefs makes itself; its triggers, views and \
                other SQL objects never are, and a change log that fails the checks is left behind. \
                Refresh sources and the sync remote come along only with --with-sources. What is \
                restored and what is not is printed on stderr first. The copy is atomic: other \
                processes see the old store or the restored one. A store that holds keys is \
                replaced only with --force (exit 4 otherwise); a backup that is not a regular file \
                or holds a row prefs does not write is refused (exit 3). The memory tier is left alone.
                """)

        @OptionGroup var global: GlobalOptions

        @Argument(help: ArgumentHelp("The backup file.", valueName: "file"), completion: .file())
        var file: String

        @Flag(help: "Replace a store that holds keys.")
        var force = false

        @Flag(help: "Also restore the backup's refresh sources (with their headers) and sync remote.")
        var withSources = false

        func run() throws {
            // An interrupted restore leaves no temporary store behind (the binary's handlers: a run
            // in a test's process leaves the test's signals alone).
            if CommandContext.active == nil { SignalCleanup.installHandlers() }
            try global.openStack().maintenance.restore(from: file, overwrite: force, withSources: withSources) { report in
                for line in report.lines { Output.error(line) }
            }
        }
    }
}
