import ArgumentParser
import FoundationEssentials
import PrefsCore

extension Prefs {
    struct FlagCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "flag",
            abstract: "Feature flags in the switch domain, in OpenFeature flagd's format.",
            subcommands: [
                FlagImportCommand.self, FlagExportCommand.self, FlagListCommand.self, FlagShowCommand.self, FlagEvalCommand.self,
                FlagEnabledCommand.self, FlagEnableCommand.self, FlagDefaultCommand.self,
                FlagDisableCommand.self, FlagConfigCommand.self, FlagExplainCommand.self, FlagDiffCommand.self, FlagStatsCommand.self,
                FlagLintCommand.self,
            ])
    }
}
