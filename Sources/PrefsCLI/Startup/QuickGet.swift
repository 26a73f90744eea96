import PrefsCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The plain `prefs get DOMAIN KEY [--json]` without the store machinery.
///
/// `prefs get` runs in shell loops, so its cost matters. The executable asks
/// ``PrefsCommandLine/answerPlainGet(_:)`` before anything else reads the command line, and
/// ``Prefs/GetCommand`` asks ``answer(store:domain:key:json:leavingOpen:)`` for the shapes that
/// reach it (`--actor`, options in other places): when the command line has one key and no
/// option but `--json` and `--store`, the value is read with ``QuickRead`` and printed with
/// the same code as the full command. When anything is unusual — overrides, a project or
/// system layer file, the memory domain, a missing store, key or table, an expired value, a
/// store of another schema version, any SQLite error — it answers false and the full command
/// runs, so behaviour and messages stay those of the full path.
enum QuickGet {
    /// Prints the value of `domain`/`key` and returns true, or returns false when the full
    /// command must answer. `leavingOpen`: see ``QuickRead/storedJSON(path:domain:key:busyTimeout:leavingOpen:)``.
    static func answer(store: String?, domain: String, key: String, json: Bool, leavingOpen: Bool = false) -> Bool {
        if variable("PREFS_QUICK_GET") == "0" { return false }
        if variable("PREFS_OVERRIDES") != nil { return false }
        guard store.map({ !$0.isEmpty }) ?? true else { return false }
        // A project or system layer file (or a lock): the full command answers, and warns.
        if Layers.mayHaveFiles() { return false }
        let path = StoreLocation.resolve(explicit: store, variable: variable)
        guard let busyTimeout = busyTimeoutMilliseconds(),
            let text = QuickRead.storedJSON(
                path: path, domain: domain, key: key, busyTimeout: busyTimeout, leavingOpen: leavingOpen),
            let value = try? JSONValue(parsingUTF8: text)
        else { return false }
        Output.standard.writeValue(value, json: json)
        return true
    }

    /// Whether ``PrefsCommandLine/answerPlainGet(_:)`` asked and the full command must answer:
    /// ``Prefs/GetCommand`` then does not ask again (a missing key would be looked up twice).
    static let declinedAtStartUp = Atomic<Bool>(false)

    /// The store, domain, key and `--json` of `[--store PATH] get DOMAIN KEY` with `--json`
    /// and `--store PATH` (or `--store=PATH`, once) anywhere after `get`, or nil for any
    /// other command line: what the command table reads from those lines, so the answer
    /// is the command's. Empty store paths, repeated options, other options, a dash argument
    /// and several keys are left to the table and the parser.
    static func plainGet(_ arguments: [String]) -> PlainGet? {
        var store: String?
        var json = false
        var command = false
        var domain: String?
        var key: String?
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--store" {
                guard store == nil, index < arguments.count, !arguments[index].isEmpty, !arguments[index].hasPrefix("-") else {
                    return nil
                }
                store = arguments[index]
                index += 1
            } else if argument.hasPrefix("--store=") {
                guard store == nil, argument.utf8.count > 8 else { return nil }
                store = String(argument.dropFirst(8))
            } else if !command {
                guard argument == "get" else { return nil }
                command = true
            } else if argument == "--json" {
                guard !json else { return nil }
                json = true
            } else if argument.hasPrefix("-") {
                return nil
            } else if domain == nil {
                domain = argument
            } else if key == nil {
                key = argument
            } else {
                return nil
            }
        }
        guard command, let domain, let key else { return nil }
        return PlainGet(store: store, domain: domain, key: key, json: json)
    }

    /// A command line ``plainGet(_:)`` read.
    struct PlainGet: Equatable {
        var store: String?
        var domain: String
        var key: String
        var json: Bool
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

extension PrefsCommandLine {
    /// The `prefs` executable's start-up path, asked before the command table: answers a plain
    /// `get` (``QuickGet/plainGet(_:)``) and returns true when it printed the value and
    /// flushed standard output; the caller then exits with status 0 at once. The store's
    /// connection is left open for that exit (``QuickRead``: closing would only free what
    /// the process is about to drop), so this is for the executable only, never for a
    /// command line run in process. False: nothing was printed; run the command line.
    package static func answerPlainGet(_ arguments: [String]) -> Bool {
        guard let get = QuickGet.plainGet(arguments) else { return false }
        #if DEBUG
            // Debug switches that ask for the table or the parser (tests compare the paths).
            if let flag = ProcessEnvironment.value("PREFS_FULL_PARSE"), !flag.isEmpty { return false }
        #endif
        guard QuickGet.answer(store: get.store, domain: get.domain, key: get.key, json: get.json, leavingOpen: true) else {
            QuickGet.declinedAtStartUp.store(true, ordering: .relaxed)
            return false
        }
        Output.standard.flush()
        return true
    }

    /// For the `prefs` executable, before anything uses SQLite: the process-wide SQLite
    /// settings of a program that runs one command (``QuickRead/configureOneShotProcess()``).
    package static func configureOneShotProcess() {
        QuickRead.configureOneShotProcess()
    }
}
