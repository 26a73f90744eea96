import ArgumentParser
import FoundationEssentials
import Glibc
import PrefsCore

extension Prefs {
    struct RemoteUnsetCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "unset",
            abstract: "Stop syncing: forget the remote and the pending operations; local data is kept.")

        @OptionGroup var global: GlobalOptions

        func run() throws {
            try global.openStack().sync.unsetRemote()
        }
    }
}
