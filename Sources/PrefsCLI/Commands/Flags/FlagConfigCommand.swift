import ArgumentParser
import FoundationEssentials
import PrefsCore

extension Prefs {
    struct FlagConfigCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "config",
            abstract: "Show or set a flag setting of the store: fractional-version 1|2|3.",
            discussion: """
                fractional-version is the hashing `fractional` uses to bucket users: 3 (CBOR, what current flagd \
                providers use; the default), 2 or 1 for fleets on older flagd releases. Without a value, prints the \
                current one. --fractional-version of flag eval/enabled wins over it.
                """)

        @OptionGroup var global: GlobalOptions

        @Argument(help: ArgumentHelp("The setting: fractional-version.", valueName: "name"))
        var name: String

        @Argument(help: ArgumentHelp("The new value: 1, 2 or 3.", valueName: "value"))
        var value: Int?

        @Flag(help: "Remove the setting (back to the default, 3).")
        var unset = false

        func validate() throws {
            guard name == "fractional-version" else { throw ValidationError("unknown flag setting '\(name)' (known: fractional-version)") }
            if let value, FractionalVersion(rawValue: value) == nil { throw ValidationError("fractional-version must be 1, 2 or 3") }
            if value != nil && unset { throw ValidationError("give a value or --unset, not both") }
        }

        func run() throws {
            let stack = try global.openStack()
            if let value {
                try stack.flags.setFractionalVersion(FractionalVersion(rawValue: value))
            } else if unset {
                try stack.flags.setFractionalVersion(nil)
            } else {
                Output.standard.write("\((try stack.flags.fractionalVersionSetting() ?? .default).rawValue)\n")
            }
        }
    }
}
