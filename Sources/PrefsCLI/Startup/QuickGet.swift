import PrefsCore

#if canImport(Glibc)
    import Glibc
#endif

/// The plain `prefs get DOMAIN KEY [--json]` without the store machinery.
///
/// `prefs get` runs in shell loops, so its cost matters. ``Prefs/GetCommand`` asks this first when
/// the command line has one key and no option but `--json` and `--store`: the value is read
/// with ``QuickRead`` and printed with the same code as the full command. When anything is
/// unusual — overrides, a project or system layer file, the memory domain, a missing store, key or table, an expired value,
/// a store of another schema version, any SQLite error — it answers false and the full
/// command runs, so behaviour and messages stay those of the full path.
enum QuickGet {
    /// Prints the value of `domain`/`key` and returns true, or returns false when the full
    /// command must answer.
    static func answer(store: String?, domain: String, key: String, json: Bool) -> Bool {
        if variable("PREFS_QUICK_GET") == "0" { return false }
        if variable("PREFS_OVERRIDES") != nil { return false }
        guard store.map({ !$0.isEmpty }) ?? true else { return false }
        // A project or system layer file (or a lock): the full command answers, and warns.
        if Layers.mayHaveFiles() { return false }
        let path = StoreLocation.resolve(explicit: store, variable: variable)
        guard let busyTimeout = busyTimeoutMilliseconds(),
            let text = QuickRead.storedJSON(path: path, domain: domain, key: key, busyTimeout: busyTimeout),
            let value = try? JSONValue(parsingUTF8: text)
        else { return false }
        Output.standard.writeValue(value, json: json)
        return true
    }

    /// `PREFS_BUSY_TIMEOUT` in milliseconds, else 5 s; nil when it is invalid (the full
    /// path reports it).
    static func busyTimeoutMilliseconds() -> Int32? {
        guard let text = variable("PREFS_BUSY_TIMEOUT") else { return 5000 }
        guard let seconds = try? KeyValueStack.Options.busyTimeoutFromEnvironment(["PREFS_BUSY_TIMEOUT": text]) else { return nil }
        return Int32(seconds * 1000)
    }

    /// A variable that is set and not empty (of the in-process run under way, if any).
    private static func variable(_ name: String) -> String? {
        if let variables = ProcessEnvironment.inProcess { return variables[name].flatMap { $0.isEmpty ? nil : $0 } }
        guard let value = getenv(name), value[0] != 0 else { return nil }
        return String(cString: value)
    }
}
