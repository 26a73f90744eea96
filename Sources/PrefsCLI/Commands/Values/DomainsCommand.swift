import ArgumentParser
import PrefsCore

extension Prefs {
    struct DomainsCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "domains",
            abstract: "List the domains: the built-in ones and every custom domain written to.")

        @OptionGroup var global: GlobalOptions

        @Flag(help: "Print a JSON array.")
        var json = false

        func run() throws {
            let domains = try global.openStack().domains()
            if json {
                Output.standard.write(JSONValue.array(domains.map { .string($0.name) }).compactText + "\n")
            } else {
                for domain in domains { Output.standard.write(domain.name + "\n") }
            }
        }
    }
}
