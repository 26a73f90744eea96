import PrefsCore

#if canImport(Glibc)
    import Glibc
#endif

/// The plain `prefs get DOMAIN KEY [--json] [--show-origin]` without the store machinery.
///
/// `prefs get` runs in shell loops, so its cost matters. ``Prefs/GetCommand`` asks this first when
/// the command line has one key and no option but `--json`, `--show-origin` and `--store`: the
/// value is read with ``QuickRead`` and printed with the same code as the full command. The
/// project and system layers (``Layers``, when ``Layers/mayHaveFiles()`` says there may be
/// some) are read as the full command reads them and answer in its order: a locked key the
/// system value, else the stored value, else the project's, else the system's. When anything is
/// unusual — overrides, a layer file skipped with a warning, the memory domain, a missing
/// store or table, a key no layer holds either, a locked key without a system value, a store of
/// another schema version, any SQLite error — it answers false and the full command runs, so
/// behaviour and messages stay those of the full path.
enum QuickGet {
    /// Prints the value of `domain`/`key` (after its origin with `showOrigin`) and returns
    /// true, or returns false when the full command must answer.
    static func answer(store: String?, domain: String, key: String, json: Bool, showOrigin: Bool) -> Bool {
        if variable("PREFS_QUICK_GET") == "0" { return false }
        if variable("PREFS_OVERRIDES") != nil { return false }
        guard store.map({ !$0.isEmpty }) ?? true else { return false }
        var layers = Layers.none
        if Layers.mayHaveFiles() {
            // A command line run in process (tests): the full command reads its environment.
            guard ProcessEnvironment.inProcess == nil else { return false }
            layers = Layers.current(variable: ProcessEnvironment.value)
            // The full command prints the warnings first.
            guard layers.warnings.isEmpty else { return false }
        }
        let path = StoreLocation.resolve(explicit: store, variable: variable)
        guard let busyTimeout = busyTimeoutMilliseconds(),
            let stored = QuickRead.lookup(path: path, domain: domain, key: key, busyTimeout: busyTimeout)
        else { return false }
        let value: JSONValue
        let origin: String
        let named: Domain? = layers.hasFiles ? (try? Domain(domain)) : nil
        if let named, let lock = layers.lock(in: named, forKey: key) {
            // Without a system value the full command looks for a registered default.
            guard let system = layers.system[named]?[key] else { return false }
            (value, origin) = (system.value, originText(.locked, lock.file))
        } else if case .stored(let text) = stored {
            guard let parsed = try? JSONValue(parsingUTF8: text) else { return false }
            (value, origin) = (parsed, originText(.store, nil))
        } else if let named, let (layered, from) = layers.layered(in: named, forKey: key) {
            (value, origin) = (layered.value, originText(from, layered.file))
        } else {
            return false
        }
        if showOrigin { Output.standard.write(origin + "\t") }
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
