import ArgumentParser
import FoundationEssentials
import PrefsCore

extension Prefs {
    struct FlagEnableCommand: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "enable", abstract: "Set a flag's state to ENABLED.")

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The flag.", completion: Completions.flag)
        var key: String

        func run() throws {
            try KeyName.validate(key)
            try global.openStack().flags.set(key, enabled: true)
        }
    }
}
