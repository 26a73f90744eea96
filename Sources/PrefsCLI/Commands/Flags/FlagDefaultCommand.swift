import ArgumentParser
import FoundationEssentials
import PrefsCore

extension Prefs {
    struct FlagDefaultCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "default",
            abstract: "Set a flag's defaultVariant (turn a kill switch on: prefs flag default deploy-frozen on).",
            discussion: """
                VARIANT must be one of the flag's variants (exit 6 lists them). One write of switch/KEY: logged, \
                checked by the schema, and refused with exit 5 when the flag changed since it was read or is not at \
                --if-version. flag enable and flag disable set the state; this sets what an enabled flag answers \
                without targeting.
                """)

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The flag.", completion: Completions.flag)
        var key: String

        @Argument(help: "The variant to answer by default.")
        var variant: String

        @Option(
            parsing: .unconditional, help: ArgumentHelp("Write only if the flag is at this version (exit 5 otherwise).", valueName: "n"))
        var ifVersion: Int64?

        func run() throws {
            try KeyName.validate(key)
            try global.openStack().flags.setDefault(key, variant: variant, ifVersion: ifVersion)
        }
    }
}
