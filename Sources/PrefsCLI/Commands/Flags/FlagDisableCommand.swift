import ArgumentParser
import FoundationEssentials
import PrefsCore

extension Prefs {
    struct FlagDisableCommand: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "disable", abstract: "Set a flag's state to DISABLED.")

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The flag.", completion: Completions.flag)
        var key: String

        func run() throws {
            try KeyName.validate(key)
            try global.openStack().flags.set(key, enabled: false)
        }
    }
}
