import ArgumentParser
import PrefsCore

extension Prefs {
    struct ResetCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reset",
            abstract: "Remove stored values so the defaults answer again (logged as reset).",
            discussion: "prefs reset DOMAIN KEY..., prefs reset DOMAIN --prefix P, or prefs reset DOMAIN --all.")

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The domain.", completion: Completions.domain)
        var domain: String

        @Argument(help: "The keys to reset.", completion: Completions.key)
        var keys: [String] = []

        @Flag(help: "Reset every key of the domain.")
        var all = false

        @Option(help: ArgumentHelp("Reset every key that starts with this text.", valueName: "prefix"))
        var prefix: String?

        func validate() throws {
            let ways = [!keys.isEmpty, all, prefix != nil].filter { $0 }.count
            if ways == 0 { throw ValidationError("Missing expected argument '<keys>' (or --all or --prefix)") }
            if ways > 1 { throw ValidationError("give keys, --all or --prefix, not several") }
            if prefix == "" { throw ValidationError("--prefix must not be empty; use --all") }
        }

        func run() throws {
            let domain = try parseDomain(domain)
            for key in keys { try KeyName.validate(key) }
            let stack = try global.openStack()
            if all {
                try stack.reset(in: domain)
            } else if let prefix {
                try stack.reset(in: domain, prefix: prefix)
            } else {
                try stack.reset(in: domain, keys: keys)
            }
        }
    }
}
