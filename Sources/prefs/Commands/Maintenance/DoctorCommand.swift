import ArgumentParser
import PrefsCore

extension Prefs {
    struct DoctorCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "doctor",
            abstract:
                "Check the store: integrity, schema version and objects, values, WAL, permissions, orphaned memory files, expired keys.",
            discussion: "One line per finding: LEVEL<TAB>CHECK<TAB>MESSAGE (ok, warning, error). Exit 0 when healthy, 3 when damaged.")

        @OptionGroup var global: GlobalOptions

        @Flag(help: "Print JSON Lines.")
        var json = false

        func run() throws {
            let findings = try global.openStack().doctor()
            for finding in findings {
                Output.standard.write(json ? finding.json + "\n" : "\(finding.level.rawValue)\t\(finding.check)\t\(finding.message)\n")
            }
            if findings.contains(where: { $0.level == .error }) {
                Output.standard.flush()
                throw PrefsError(.storeUnreadable, "the store is damaged; see the findings above")
            }
        }
    }
}
