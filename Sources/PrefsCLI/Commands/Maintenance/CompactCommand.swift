import ArgumentParser
import PrefsCore

extension Prefs {
    struct CompactCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "compact",
            abstract: "Give the store file's free pages back while other processes keep using it.",
            discussion: """
                Prints the file's size before and after. A store prefs made gives back the pages of \
                large removals by itself; one made by an earlier prefs keeps them until compact, which \
                also switches it to doing so. Waits for the write lock like any write (PREFS_BUSY_TIMEOUT); \
                readers and writers of other processes go on, and no write is lost. `prefs doctor` \
                reports the free pages (check space).
                """)

        @OptionGroup var global: GlobalOptions

        func run() throws {
            let report = try global.openStack().maintenance.compact()
            Output.standard.write("\(report.bytesBefore) -> \(report.bytesAfter) bytes\n")
        }
    }
}
