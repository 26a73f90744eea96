import ArgumentParser
import FoundationEssentials
import PrefsCore

extension Prefs {
    struct FlagEnabledCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "enabled",
            abstract: "Exit 0 when the flag evaluates to true, 1 otherwise (for shell conditions).")

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The flag.", completion: Completions.flag)
        var key: String

        @OptionGroup var evaluation: EvaluationOptions

        func run() throws {
            try KeyName.validate(key)
            let stack = try global.openStack()
            let result = try evaluation.evaluate(stack, key, type: .boolean, default: .bool(false))
            if result.errorCode == "FLAG_NOT_FOUND" {
                // Still a plain "no" (exit 1), but a typo is never silent.
                Output.error("warning: flag '\(key)' not found" + TypoHint.suffix(key, among: try stack.flagNames()))
            }
            if result.value != .bool(true) { throw ExitCode(1) }
        }
    }
}
