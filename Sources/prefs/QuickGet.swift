import PrefsCore

#if canImport(Glibc)
    import Glibc
#endif

/// `prefs get` without the argument parser and the store machinery, for the plain case.
///
/// `prefs get` runs in shell loops, so its start-up cost matters; building the argument
/// parser's command tree alone costs ten times a whole `sqlite3` lookup. This path accepts
/// only `[--store PATH] get DOMAIN KEY [--json]` (the global option also after the command,
/// `--store=PATH` too), reads the value with ``QuickRead``, and prints it with the same
/// code as ``Prefs/Get``. When anything is unusual — another option, overrides in the
/// environment, the memory domain, a missing store, key or table, an expired value, a store
/// of another schema version, any SQLite error — it returns false and the full command runs,
/// so behaviour and messages stay those of the full path.
enum QuickGet {
    /// Runs the plain `get` and returns true when it answered.
    static func run(_ arguments: [String]) -> Bool {
        if let flag = getenv("PREFS_QUICK_GET"), String(cString: flag) == "0" { return false }
        guard let request = Request(arguments) else { return false }
        if let overrides = getenv("PREFS_OVERRIDES"), overrides[0] != 0 { return false }
        guard let path = request.store ?? defaultStorePath() else { return false }
        guard let busyTimeout = busyTimeoutMilliseconds(),
            let text = QuickRead.storedJSON(path: path, domain: request.domain, key: request.key, busyTimeout: busyTimeout),
            let value = try? JSONValue(parsingUTF8: text)
        else { return false }
        Output.standard.writeValue(value, json: request.json)
        Output.standard.flush()
        return true
    }

    struct Request {
        var store: String?
        var domain = ""
        var key = ""
        var json = false

        /// Accepts only the plain shape; nil for anything else.
        init?(_ arguments: [String]) {
            var positionals: [String] = []
            var index = 0
            var sawCommand = false
            while index < arguments.count {
                let argument = arguments[index]
                index += 1
                if argument == "--store" {
                    guard store == nil, index < arguments.count else { return nil }
                    store = arguments[index]
                    index += 1
                } else if argument.hasPrefix("--store=") {
                    guard store == nil else { return nil }
                    store = String(argument.dropFirst("--store=".count))
                } else if argument == "--json" && sawCommand {
                    guard !json else { return nil }
                    json = true
                } else if argument.hasPrefix("-") {
                    return nil
                } else if !sawCommand {
                    guard argument == "get" else { return nil }
                    sawCommand = true
                } else {
                    positionals.append(argument)
                }
            }
            guard sawCommand, positionals.count == 2, store.map({ !$0.isEmpty }) ?? true else { return nil }
            domain = positionals[0]
            key = positionals[1]
        }
    }

    /// `PREFS_STORE`, else `$XDG_DATA_HOME/prefs/prefs.db`, else `$HOME/.local/share/prefs/prefs.db`
    /// (as ``StoreLocation/resolve(explicit:environment:)``); nil when none is set.
    static func defaultStorePath() -> String? {
        if let store = variable("PREFS_STORE") { return store }
        if let xdg = variable("XDG_DATA_HOME"), xdg.hasPrefix("/") { return xdg + "/prefs/" + StoreLocation.defaultFileName }
        if let home = variable("HOME") { return home + "/.local/share/prefs/" + StoreLocation.defaultFileName }
        return nil
    }

    /// `PREFS_BUSY_TIMEOUT` in milliseconds, else 5 s; nil when it is invalid (the full
    /// path reports it).
    static func busyTimeoutMilliseconds() -> Int32? {
        guard let text = variable("PREFS_BUSY_TIMEOUT") else { return 5000 }
        guard let seconds = try? KeyValueStack.Options.busyTimeoutFromEnvironment(["PREFS_BUSY_TIMEOUT": text]) else { return nil }
        return Int32(seconds * 1000)
    }

    private static func variable(_ name: String) -> String? {
        guard let value = getenv(name), value[0] != 0 else { return nil }
        return String(cString: value)
    }
}
