import PrefsCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The plain `prefs get DOMAIN KEY [--json] [--show-origin]` without the store machinery.
///
/// `prefs get` runs in shell loops, so its cost matters. The executable asks
/// ``PrefsCommandLine/answerPlainGet(_:)`` before anything else reads the command line, and
/// ``Prefs/GetCommand`` asks ``answer(store:domain:key:json:showOrigin:leavingOpen:)`` for the
/// shapes that reach it: when the command line has one key and no option but `--json`,
/// `--show-origin` and `--store`, the
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
    /// true, or returns false when the full command must answer. `leavingOpen`: see
    /// ``QuickRead/lookup(path:domain:key:busyTimeout:leavingOpen:)``.
    static func answer(
        store: String?, domain: String, key: String, json: Bool, showOrigin: Bool = false, leavingOpen: Bool = false
    ) -> Bool {
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
            let stored = QuickRead.lookup(
                path: path, domain: domain, key: key, busyTimeout: busyTimeout, leavingOpen: leavingOpen)
        else { return false }
        let value: JSONValue
        let origin: String
        let named: Domain? = layers.hasFiles ? (try? Domain(domain)) : nil
        // Declining after a value was read: the connection left open for the exit must go.
        func decline() -> Bool {
            QuickRead.closeLeftOpen()
            return false
        }
        if let named, let lock = layers.lock(in: named, forKey: key) {
            // Without a system value the full command looks for a registered default.
            guard let system = layers.system[named]?[key] else { return decline() }
            (value, origin) = (system.value, originText(.locked, lock.file))
        } else if case .stored(let text) = stored {
            guard let parsed = try? JSONValue(parsingUTF8: text) else { return decline() }
            (value, origin) = (parsed, originText(.store, nil))
        } else if let named, let (layered, from) = layers.layered(in: named, forKey: key) {
            (value, origin) = (layered.value, originText(from, layered.file))
        } else {
            return decline()
        }
        if showOrigin { Output.standard.write(origin + "\t") }
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
    /// command line run in process. Returns the exit status when it answered (4 when the
    /// value could not be written to standard output), nil when nothing was printed: run the
    /// command line.
    package static func answerPlainGet(_ arguments: [String]) -> Int32? {
        guard let get = QuickGet.plainGet(arguments) else { return nil }
        #if DEBUG
            // Debug switches that ask for the table or the parser (tests compare the paths).
            if let flag = ProcessEnvironment.value("PREFS_FULL_PARSE"), !flag.isEmpty { return nil }
        #endif
        guard QuickGet.answer(store: get.store, domain: get.domain, key: get.key, json: get.json, leavingOpen: true) else {
            QuickGet.declinedAtStartUp.store(true, ordering: .relaxed)
            return nil
        }
        do {
            try Output.standard.finish()
        } catch {
            return report(error)
        }
        return 0
    }

    /// For the `prefs` executable, first: a standard descriptor the parent left closed is
    /// opened on `/dev/null` the wrong way round (standard output and error read-only,
    /// standard input write-only). Otherwise the next file opened (an inotify descriptor, a
    /// temporary file) would take its number and the output would go into it; this way a
    /// write fails (`EBADF`), and a closed standard output is exit 4, not a silent success.
    package static func reserveStandardDescriptors() {
        for fd: Int32 in 0...2 where fcntl(fd, F_GETFD) == -1 && errno == EBADF {
            // The lowest free number is `fd`: the lower ones are open by now.
            _ = open("/dev/null", (fd == 0 ? O_WRONLY : O_RDONLY) | O_NOCTTY)
        }
    }

    /// For the `prefs` executable, before anything uses SQLite: the process-wide SQLite
    /// settings of a program that runs one command (``QuickRead/configureOneShotProcess()``).
    package static func configureOneShotProcess() {
        QuickRead.configureOneShotProcess()
    }
}
