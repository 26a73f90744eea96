import ArgumentParser
import FoundationEssentials
import PrefsCore

/// Options that every command accepts, before or after the command name.
struct GlobalOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The store file (default: $PREFS_STORE, else $XDG_DATA_HOME/prefs/prefs.db, else ~/.local/share/prefs/prefs.db).",
            valueName: "path"), completion: .file())
    var store: String?

    @Option(
        name: .long,
        help: ArgumentHelp("Who the change log names for this command's writes (default: $PREFS_ACTOR, else USER@HOST).", valueName: "name")
    )
    var actor: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Read VALUE for DOMAIN:KEY in this invocation instead of the store (repeatable; never written). Also $PREFS_OVERRIDES, a JSON object {\"domain\":{\"key\":value}}.",
            valueName: "domain:key=value"))
    var override: [String] = []

    /// The overrides of `PREFS_OVERRIDES` with `--override` on top.
    func overrides() throws -> [Domain: [String: JSONValue]] {
        var result = try OverridesText.parse(ProcessEnvironment.value("PREFS_OVERRIDES"))
        for text in override {
            guard let colon = text.firstIndex(of: ":"), let equals = text[colon...].firstIndex(of: "=") else {
                throw PrefsError(.usage, "--override \(JSONValue.string(text).compactText): expected DOMAIN:KEY=VALUE")
            }
            let domain = try Domain(String(text[..<colon]))
            let key = String(text[text.index(after: colon)..<equals])
            try KeyName.validate(key)
            do {
                result[domain, default: [:]][key] = try ValueType.auto.value(from: String(text[text.index(after: equals)...]))
            } catch let error as PrefsError {
                throw PrefsError(error.kind, "--override \(domain.name):\(key): \(error.message)")
            }
        }
        return result
    }

    /// The resolved store path (a relative one against the run's working directory,
    /// ``CommandContext/runPath(_:)``).
    var storePath: String {
        CommandContext.runPath(StoreLocation.resolve(explicit: store, environment: ProcessEnvironment.current()))
    }

    /// Opens the store; the CLI shares the memory tier between processes. With `force`,
    /// writes skip the schema's checks (and a warning says so).
    func openStack(force: Bool = false) throws -> KeyValueStack {
        OpenStacks.add(try KeyValueStack(path: storePath, options: stackOptions(force: force)))
    }

    /// The options every command opens its stack with (``openStack(force:)``; `batch` adds its
    /// own): the program's options, this invocation's actor and overrides, and `force`. Without
    /// a `window` (every command but `batch`) the command flushes before it exits and the queue
    /// arms no timer.
    func stackOptions(force: Bool, window: Duration? = nil) throws -> KeyValueStack.Options {
        var options = try KeyValueStack.Options.commandLine(window: window ?? .seconds(1), environment: ProcessEnvironment.current())
        options.flushesOnTimer = window != nil
        options.actor = actor
        options.overrides = try overrides()
        let layers = Layers.current(environment: options.environment, workingDirectory: CommandContext.runDirectory)
        for warning in layers.warnings { Output.error("warning: " + warning) }
        options.layers = layers
        if force {
            options.validatesWrites = false
            Output.error("warning: --force: values are not checked against the schema")
        }
        return options
    }
}

/// Parses a domain argument (exit 2 when invalid).
func parseDomain(_ name: String) throws -> Domain {
    try Domain(name)
}

/// Refuses a domain that does not exist (``KeyValueStack/knownDomains()``) with exit 1 (not
/// found), naming the nearest one: `export`/`list` of a misspelled domain is never an empty
/// answer a script takes for a domain without keys (`--allow-missing` skips this).
func requireExisting(_ domains: [Domain], in stack: KeyValueStack) throws {
    guard !domains.isEmpty else { return }
    let known = try stack.knownDomains()
    for domain in domains where !known.contains(domain) {
        throw PrefsError(.notFound, "domain '\(domain.name)' not found" + TypoHint.suffix(domain.name, among: known.map(\.name)))
    }
}

/// The project file `set --project` and `rm --project` edit (``ProjectFile/target(variable:directory:)``,
/// from the run's working directory).
func projectFileTarget() throws -> String {
    try ProjectFile.target(
        variable: ProcessEnvironment.value, directory: CommandContext.runDirectory ?? FileManager.default.currentDirectoryPath)
}
