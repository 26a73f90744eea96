import ArgumentParser
import Foundation
import PrefsCore

/// Options that every command accepts, before or after the command name.
struct GlobalOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The store file (default: $PREFS_STORE, else $XDG_DATA_HOME/prefs/prefs.db, else ~/.local/share/prefs/prefs.db).",
            valueName: "path"))
    var store: String?

    @Option(
        name: .long,
        help: ArgumentHelp("Who the change log names for this command's writes (default: $PREFS_ACTOR, else USER@HOST).", valueName: "name")
    )
    var actor: String?

    /// The resolved store path.
    var storePath: String {
        StoreLocation.resolve(explicit: store, environment: ProcessInfo.processInfo.environment)
    }

    /// Opens the store; the CLI shares the memory tier between processes.
    func openStack() throws -> KeyValueStack {
        let environment = ProcessInfo.processInfo.environment
        var options = KeyValueStack.Options(memoryTier: .shared, environment: environment)
        options.actor = actor
        if let text = environment["PREFS_BUSY_TIMEOUT"], let seconds = Double(text), seconds >= 0 {
            options.busyTimeout = seconds
        }
        return try KeyValueStack(path: storePath, options: options)
    }
}

/// Parses a domain argument (exit 2 when invalid).
func parseDomain(_ name: String) throws -> Domain {
    try Domain(name)
}
