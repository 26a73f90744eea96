import ArgumentParser
import PrefsCore

extension Prefs {
    struct DoctorCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "doctor",
            abstract:
                "Check the store: integrity, schema version and objects, values, WAL, permissions, its memory file, leftover temporary copies, expired keys.",
            discussion: """
                One line per finding: LEVEL<TAB>CHECK<TAB>MESSAGE (ok, warning, error). Exit 0 when healthy, \
                3 when damaged. Only what concerns this store is reported; --all adds the memory-tier \
                files of other stores that are gone (check memory-other). A temporary copy of the \
                store left in its directory by an interrupted backup or restore (.NAME.XXXXXX and its \
                -wal/-shm) is named; --fix removes those no running process holds (the process that \
                makes one holds a lock on it until it is done).
                """)

        @OptionGroup var global: GlobalOptions

        @Flag(help: "Print JSON Lines.")
        var json = false

        @Flag(help: "Remove leftover temporary copies of the store that no process holds.")
        var fix = false

        @Flag(help: "Also list the memory-tier files of other stores that are gone.")
        var all = false

        func run() throws {
            let findings = try global.openStack().maintenance.doctor(fix: fix, otherStores: all)
            for finding in findings {
                Output.standard.write(json ? finding.json + "\n" : "\(finding.level.rawValue)\t\(finding.check)\t\(finding.message)\n")
            }
            let errors = findings.filter { $0.level == .error }
            if !errors.isEmpty {
                Output.standard.flush()
                // A full file system stops even reads (no room for the -shm index): not damage.
                if errors.allSatisfy({ $0.message.hasSuffix(": disk full") }) {
                    throw PrefsError(.cannotWrite, "the file system is full; see the findings above")
                }
                throw PrefsError(.storeUnreadable, "the store is damaged; see the findings above")
            }
        }
    }
}
