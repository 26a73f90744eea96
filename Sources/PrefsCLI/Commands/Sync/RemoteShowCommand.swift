import ArgumentParser
import FoundationEssentials
import Glibc
import PrefsCore

extension Prefs {
    struct RemoteShowCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Print the remote URL (exit 1 when none is set).")

        @OptionGroup var global: GlobalOptions

        @Flag(help: "Print {\"url\":…,\"domains\":[…] or null}.")
        var json = false

        func run() throws {
            guard let remote = try global.openStack().sync.remote() else { throw PrefsError(.notFound, "no remote set") }
            if json {
                let domains: JSONValue = remote.domains.map { .array($0.map { .string($0.name) }) } ?? .null
                Output.standard.write(
                    JSONValue.object([.init("url", .string(remote.url.description)), .init("domains", domains)]).compactText + "\n")
            } else {
                Output.standard.write(remote.url.description + "\n")
            }
        }
    }
}
