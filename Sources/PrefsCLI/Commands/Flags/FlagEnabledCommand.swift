import ArgumentParser
import FoundationEssentials
import PrefsCore

extension Prefs {
    struct FlagEnabledCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "enabled",
            abstract: "Exit 0 when the flag evaluates to true, 1 otherwise, 2 when there is no such flag (for shell conditions).",
            discussion: """
                Exit 0: the flag evaluates to true. Exit 1: anything else a flag answers (false, \
                DISABLED, not a boolean, an evaluation error). Exit 2: the flag does not exist (a \
                typo, a renamed or removed flag), with the nearest flag's name on stderr; always, \
                whatever PREFS_STRICT_FLAGS says. A script that must not go on without the flag \
                tells 1 from 2: `prefs flag enabled KEY; case $? in 0) ...;; 1) ...;; *) exit 1;; esac`.
                """)

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The flag.", completion: Completions.flag)
        var key: String

        @OptionGroup var evaluation: EvaluationOptions

        func run() throws {
            try KeyName.validate(key)
            let stack = try global.openStack()
            let result = try evaluation.evaluate(stack, key, type: .boolean, default: .bool(false))
            if result.errorCode == "FLAG_NOT_FOUND" {
                // Never the "no" of a real flag (exit 1): a kill switch that was renamed or
                // mistyped must not read "off" (docs/decisions.md).
                throw PrefsError(.usage, "flag '\(key)' not found" + TypoHint.suffix(key, among: try stack.flags.names(near: key)))
            }
            if result.value != .bool(true) { throw ExitCode(1) }
        }
    }
}
