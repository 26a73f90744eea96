import ArgumentParser
import Dispatch
import FoundationEssentials
import Glibc
import PrefsCore
import Synchronization

extension Prefs {
    struct LogCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "log",
            abstract: "Show the change log, newest first.",
            discussion: """
                One line per change: SEQ<TAB>TIME<TAB>OP<TAB>DOMAIN<TAB>KEY<TAB>OLD<TAB>NEW<TAB>ACTOR, \
                OLD and NEW as JSON, - when the key was absent. --json prints JSON Lines, without old or new when absent. OP is set, rm, \
                expire, refresh, import or reset. The log keeps the last 10,000 changes unless \
                --retain says otherwise. Changes of the memory domain are not logged.
                """)

        @OptionGroup var global: GlobalOptions

        @Argument(help: "Only this domain.", completion: Completions.domain)
        var domain: String?

        @Argument(help: "Only this key.", completion: Completions.key)
        var key: String?

        @Option(parsing: .unconditional, help: ArgumentHelp("At most this many records.", valueName: "n"))
        var limit: Int?

        @Option(help: ArgumentHelp("Only changes since an ISO 8601 time or a duration ago (10m, 7d).", valueName: "time"))
        var since: SinceArgument?

        @Flag(help: "Print JSON Lines.")
        var json = false

        @Option(parsing: .unconditional, help: ArgumentHelp("Keep only the newest N records from now on (and prune now).", valueName: "n"))
        var retain: Int?

        func validate() throws {
            if let limit, limit < 1 { throw ValidationError("--limit must be at least 1") }
            if let retain, retain < 1 { throw ValidationError("--retain must be at least 1") }
        }

        func run() throws {
            let domain = try domain.map(parseDomain)
            if let key { try KeyName.validate(key) }
            let stack = try global.openStack()
            if let retain {
                try stack.setLogRetention(retain)
                return
            }
            let out = Output.standard
            for record in try stack.history(LogFilter(domain: domain, key: key), limit: limit, since: since?.milliseconds) {
                if json {
                    out.write(record.json + "\n")
                } else {
                    let fields = [
                        String(record.seq), ISOTime.format(milliseconds: record.at), record.op, record.domain.name, record.key,
                        record.old ?? "-", record.new ?? "-", record.actor,
                    ]
                    out.write(fields.map(TerminalText.escapingControls).joined(separator: "\t") + "\n")
                }
            }
        }
    }
}
