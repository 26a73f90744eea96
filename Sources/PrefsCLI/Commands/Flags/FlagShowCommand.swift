import ArgumentParser
import FoundationEssentials
import PrefsCore

extension Prefs {
    struct FlagShowCommand: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "show", abstract: "Print a flag's definition.")

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The flag.", completion: Completions.flag)
        var key: String

        func run() throws {
            try KeyName.validate(key)
            // A flag by the one rule: stored or overridden (a schema default is not a flag).
            guard let value = try global.openStack().flags.value(key) else {
                throw PrefsError(.notFound, "flag \(JSONValue.string(key).compactText) not found")
            }
            Output.standard.write(value.prettyText + "\n")
        }
    }
}
