import ArgumentParser
import FoundationEssentials
import Glibc
import PrefsCore

extension Prefs {
    struct RemoteSetCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract: "Sync this store with a PostgreSQL database; queue the synced domains' content for the first push.",
            discussion: """
                From now on every write of a synced domain records a pending operation (operation id, \
                hybrid logical clock timestamp, node id) in its own transaction. Prints how many \
                operations were queued.
                """)

        @OptionGroup var global: GlobalOptions

        @Argument(help: ArgumentHelp("postgres://USER@HOST:PORT/DB, or a libpq connection string (service=NAME)", valueName: "url"))
        var url: String

        @Option(
            help: ArgumentHelp(
                "The synced domains, separated by commas (default: every persistent domain except user, custom ones included).",
                valueName: "domains"))
        var domains: String?

        func run() throws {
            let remote = try RemoteURL(parsing: url)
            let list = try domains.map { text in try text.split(separator: ",").map { try parseDomain(String($0)) } }
            if list?.isEmpty == true { throw PrefsError(.usage, "--domains needs at least one domain") }
            let queued = try global.openStack().sync.setRemote(remote, domains: list)
            Output.standard.write("queued \(queued) operation\(queued == 1 ? "" : "s") for the first sync\n")
        }
    }
}
