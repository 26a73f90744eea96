import ArgumentParser
import PrefsCore

extension Prefs {
    struct IncrCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "incr",
            abstract: "Atomically add to an integer and print the new value.",
            discussion: """
                A missing key counts as 0. Increments from any number of processes add up exactly. \
                A value that is not an integer is exit 6. Negative amounts: --by=-5.
                """)

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The domain.", completion: Completions.domain)
        var domain: String

        @Argument(help: "The key.", completion: Completions.key)
        var key: String

        @Option(parsing: .unconditional, help: ArgumentHelp("The amount to add (default 1; negative subtracts).", valueName: "n"))
        var by: Int64 = 1

        func run() throws {
            let domain = try parseDomain(domain)
            try KeyName.validate(key)
            let stack = try global.openStack()
            try TypoHint.checkNewDomain(domain, in: stack)
            let value = try stack.incrementNow(in: domain, forKey: key, by: by)
            Output.standard.write("\(value)\n")
        }
    }
}
