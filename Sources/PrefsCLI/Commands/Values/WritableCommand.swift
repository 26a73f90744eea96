import ArgumentParser
import PrefsCore

extension Prefs {
    struct WritableCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "writable",
            abstract: "Tell whether a key may be written: exit 0 if so, 1 if a system lock covers it.",
            discussion: """
                A locked key reads as the system layer's value whatever the store, the project \
                file and overrides hold, and every write to it is refused (exit 4). When the key \
                is locked this prints "locked by LOCKFILE" and exits 1.
                """)

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The domain.", completion: Completions.domain)
        var domain: String

        @Argument(help: "The key.", completion: Completions.key)
        var key: String

        func run() throws {
            let domain = try parseDomain(domain)
            try KeyName.validate(key)
            let stack = try global.openStack()
            guard let lock = stack.lock(in: domain, forKey: key) else { return }
            Output.standard.write("locked by \(lock.file)\n")
            try Output.standard.finish()
            throw ExitCode(1)
        }
    }
}
