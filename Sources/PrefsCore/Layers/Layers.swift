import Glibc
import Synchronization

/// The read-only layers beneath the user's store: the **project** layer (a `.prefs.json` in
/// the current directory or the nearest parent, up to the directory that holds `.git`) and
/// the **system** layer (`/etc/prefs/*.json` and the locks in `/etc/prefs/locks/*`).
///
/// Reads resolve override → store → project → system → registered default; a key a lock
/// covers reads as the system value alone, and writes to it are refused. The files are read
/// once per process (``current(variable:workingDirectory:)``); when there are none the cost is
/// a few `stat` calls. Files that are not trusted are skipped and named in ``warnings``: system files
/// must be regular files owned by root or the directory's owner and not writable by group or
/// others; a discovered project file must be owned by the user or root (a file named by
/// `PREFS_PROJECT_FILE` is trusted: naming it is the opt-in, as git's `safe.directory`).
public struct Layers: Sendable, Equatable {
    /// A value of a layer and the file it came from.
    public struct Value: Sendable, Equatable {
        /// The value.
        public let value: JSONValue
        /// The file that holds it.
        public let file: String
    }

    /// The largest layer file read (8 MiB); a larger one is skipped with a warning.
    public static let maximumFileBytes = 8 << 20
    /// The system directory when `PREFS_SYSTEM_DIR` is not set.
    public static let defaultSystemDirectory = "/etc/prefs"
    /// The project file's name.
    public static let projectFileName = ".prefs.json"

    /// The system layer's values (the JSON files merged in name order, later files win).
    public private(set) var system: [Domain: [String: Value]] = [:]
    /// The project layer's values.
    public private(set) var project: [Domain: [String: Value]] = [:]
    /// The locks, in file then line order.
    public private(set) var locks: [LayerLock] = []
    /// The system directory looked at.
    public private(set) var systemDirectory: String = Layers.defaultSystemDirectory
    /// The system files read (JSON and lock files), in the order read.
    public private(set) var systemFiles: [String] = []
    /// The project file read, if any.
    public private(set) var projectFile: String?
    /// Files skipped and lines ignored, one message each (`ignoring PATH: REASON`).
    public private(set) var warnings: [String] = []

    /// No layer: reads answer from overrides, the store and defaults only.
    public static let none = Layers()

    private init() {}

    /// Whether any layer file was found (read or skipped with a warning).
    public var hasFiles: Bool { projectFile != nil || !systemFiles.isEmpty || !warnings.isEmpty }

    /// Whether the project or system layer holds keys of `switch` (flags without a store).
    public var holdsFlags: Bool { project[.switch] != nil || system[.switch] != nil }

    /// The lock that covers `domain`/`key`, if any.
    public func lock(in domain: Domain, forKey key: String) -> LayerLock? {
        guard !locks.isEmpty else { return nil }
        return locks.first { $0.covers(domain, key) }
    }

    /// The value the project, else the system layer gives `domain`/`key` (locks aside).
    package func layered(in domain: Domain, forKey key: String) -> (value: Value, origin: ValueOrigin)? {
        if let value = project[domain]?[key] { return (value, .project) }
        if let value = system[domain]?[key] { return (value, .system) }
        return nil
    }

    /// The domains either layer names.
    var domains: Set<Domain> { Set(project.keys).union(system.keys) }

    // MARK: - Loading

    private static let cache = Mutex<[String: Layers]>([:])

    /// The layers for these environment variables and a working directory, read once per
    /// process (later calls with the same variables and directory answer from memory).
    ///
    /// - Parameters:
    ///   - variable: the value of an environment variable, nil when it is not set (an empty
    ///     `PREFS_PROJECT_FILE` turns the project layer off).
    ///   - workingDirectory: where the lookup of `.prefs.json` starts; nil (the default) is
    ///     the process's current directory.
    public static func current(variable: (String) -> String?, workingDirectory: String? = nil) -> Layers {
        let systemSetting = variable("PREFS_SYSTEM_DIR") ?? ""
        let directory = systemSetting.isEmpty ? defaultSystemDirectory : systemSetting
        let projectSetting = variable("PREFS_PROJECT_FILE")
        let cwd = workingDirectory ?? currentDirectory() ?? ""
        // A command line run in process (tests) reads the files afresh: a test changes them
        // between commands, which a process never sees.
        guard ProcessEnvironment.inProcess == nil else { return load(variable: variable, workingDirectory: cwd) }
        let cacheKey = directory + "\u{0}" + (projectSetting.map { "=" + $0 } ?? "-") + "\u{0}" + cwd
        if let cached = cache.withLock({ $0[cacheKey] }) { return cached }
        let result = load(variable: variable, workingDirectory: cwd)
        cache.withLock { $0[cacheKey] = result }
        return result
    }

    /// The layers read from the files now (no cache): ``current(variable:workingDirectory:)``
    /// reads them once, a long-running reader (`prefs serve`) again when their
    /// ``stamp(variable:)`` moves. The lookup of `.prefs.json` starts in `workingDirectory`,
    /// else the process's current directory.
    static func load(variable: (String) -> String?, workingDirectory: String? = nil) -> Layers {
        let systemSetting = variable("PREFS_SYSTEM_DIR") ?? ""
        let directory = systemSetting.isEmpty ? defaultSystemDirectory : systemSetting
        var layers = Layers()
        layers.systemDirectory = directory
        layers.loadSystem(directory)
        if let projectSetting = variable("PREFS_PROJECT_FILE") {
            if !projectSetting.isEmpty { layers.loadProject(projectSetting, explicit: true) }
        } else if let found = discoverProjectFile(from: workingDirectory ?? currentDirectory() ?? "") {
            layers.loadProject(found, explicit: false)
        }
        return layers
    }

    /// Whether this process may have a layer file (the process environment and current
    /// directory): false only when `PREFS_SYSTEM_DIR` (or `/etc/prefs`) does not exist and no
    /// `.prefs.json` is found (or `PREFS_PROJECT_FILE` is empty). `stat` calls on C strings
    /// only (the walk of ``walkUp(from:_:)``), for `get`'s start-up path, which reads the
    /// layers only when this is true (always true in a command line run in process,
    /// ``ProcessEnvironment/override``).
    package static func mayHaveFiles() -> Bool {
        // A command line run in process (tests) has its own environment: say yes, so the
        // full path reads the layers from it.
        if ProcessEnvironment.inProcess != nil { return true }
        var status = stat()
        if let system = getenv("PREFS_SYSTEM_DIR"), system[0] != 0 {
            if stat(system, &status) == 0 { return true }
        } else if stat(defaultSystemDirectory, &status) == 0 {
            return true
        }
        if let project = getenv("PREFS_PROJECT_FILE") { return project[0] != 0 }
        guard let cwd = getcwd(nil, 0) else { return true }
        defer { free(cwd) }
        let length = strlen(cwd)
        guard length > 0, cwd[0] == 0x2F else { return true }
        let path = UnsafeMutablePointer<CChar>.allocate(capacity: length + 13)  // + "/.prefs.json" and NUL
        defer { path.deallocate() }
        path.initialize(from: cwd, count: length)
        var end = length == 1 ? 0 : length  // "/" is the empty prefix
        while true {
            _ = strcpy(path + end, "/.prefs.json")
            if stat(path, &status) == 0 { return true }
            _ = strcpy(path + end, "/.git")
            if stat(path, &status) == 0 { return false }
            if end == 0 { return false }
            repeat { end -= 1 } while end > 0 && path[end] != 0x2F
        }
    }

    /// ``current(variable:workingDirectory:)`` for an environment given as a dictionary.
    public static func current(environment: [String: String], workingDirectory: String? = nil) -> Layers {
        current(variable: { environment[$0] }, workingDirectory: workingDirectory)
    }

    static func currentDirectory() -> String? {
        guard let path = getcwd(nil, 0) else { return nil }
        defer { free(path) }
        return String(cString: path)
    }

    /// `.prefs.json` in `start` or the nearest parent, up to the top of the git work tree
    /// (``walkUp(from:_:)``): two `stat` calls per directory.
    static func discoverProjectFile(from start: String) -> String? {
        lookUpProjectFile(from: start).file
    }

    /// ``discoverProjectFile(from:)``, and when it finds none, the top of the work tree
    /// where the walk stopped (nil outside a work tree).
    static func lookUpProjectFile(from start: String) -> (file: String?, workTreeTop: String?) {
        var found: String?
        let top = walkUp(from: start) { directory in
            guard !directory.has(".prefs.json") else {  // projectFileName
                found = directory.path(of: projectFileName)
                return false
            }
            return true
        }
        return (found, top)
    }

    /// The one walk of the project layer up the directory tree: from `start` (an absolute
    /// path) to the top of its git work tree — the nearest directory that holds `.git` — or
    /// to `/` outside a work tree, nearest first. `visit` sees each directory before its
    /// `.git` is looked for, and ends the walk by returning false. Returns the work tree's
    /// top when the walk reached it, else nil. Discovering `.prefs.json`, where
    /// `set --project` creates one (``ProjectFile/target(variable:directory:)``) and the
    /// directories a change monitor watches (``watchedDirectories(variable:from:)``) all
    /// take this walk; ``mayHaveFiles()`` takes it on the C string of `getcwd`.
    static func walkUp(from start: String, _ visit: (inout ProjectWalk) -> Bool) -> String? {
        guard var walk = ProjectWalk(from: start) else { return nil }
        while true {
            guard visit(&walk) else { return nil }
            if walk.has(".git") { return walk.directory }
            guard walk.up() else { return nil }
        }
    }

    private mutating func loadSystem(_ directory: String) {
        var status = stat()
        guard stat(directory, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR else { return }
        let owner = status.st_uid
        for name in Self.names(in: directory) where name.hasSuffix(".json") {
            let path = directory + "/" + name
            guard let bytes = readTrusted(path, trustedOwners: [0, owner], checkMode: true) else { continue }
            merge(bytes, from: path, system: true)
        }
        let lockDirectory = directory + "/locks"
        for name in Self.names(in: lockDirectory) {
            let path = lockDirectory + "/" + name
            guard let bytes = readTrusted(path, trustedOwners: [0, owner], checkMode: true) else { continue }
            systemFiles.append(path)
            var number = 0
            // A lock must not be lost to how an editor saved the file: CRLF ("\r\n" is one
            // Character) and a leading UTF-8 BOM.
            var text = String(decoding: bytes, as: UTF8.self)
            if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
            // Only LF, CRLF and CR end a line: U+2028, U+0085 or a vertical tab inside a line
            // must not split `user/motd<U+2028>banner` into a lock on `user/motd`.
            for rawLine in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }) {
                number += 1
                var line = rawLine
                if let hash = line.firstIndex(of: "#") { line = line[..<hash] }
                let text = line.trimmingSpaces()
                if text.isEmpty { continue }
                if let lock = LayerLock.parse(text, file: path) {
                    locks.append(lock)
                } else {
                    warnings.append("ignoring \(path):\(number): not DOMAIN/KEY or DOMAIN/PREFIX*")
                }
            }
        }
    }

    private mutating func loadProject(_ path: String, explicit: Bool) {
        // A file PREFS_PROJECT_FILE names that is not there yet (the first `set --project`
        // makes it) is an empty layer, not a warning on every command.
        var status = stat()
        if explicit && lstat(path, &status) != 0 && errno == ENOENT { return }
        let owners: [uid_t] = explicit ? [] : [0, geteuid()]
        guard let bytes = readTrusted(path, trustedOwners: owners, checkMode: false) else { return }
        if merge(bytes, from: path, system: false) { projectFile = path }
    }

    /// The regular files of `directory` whose names do not start with a dot, sorted bytewise.
    static func names(in directory: String) -> [String] {
        guard let handle = opendir(directory) else { return [] }
        defer { closedir(handle) }
        var result: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
            }
            if !name.hasPrefix(".") { result.append(name) }
        }
        return result.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    /// The bytes of `path` when it is a regular file of a trusted owner (any owner when
    /// `trustedOwners` is empty), not writable by group or others when `checkMode`, and at
    /// most ``maximumFileBytes``; else nil and a warning.
    private mutating func readTrusted(_ path: String, trustedOwners: [uid_t], checkMode: Bool) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else {
            warnings.append("ignoring \(path): \(String(cString: strerror(errno)))")
            return nil
        }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else {
            warnings.append("ignoring \(path): \(String(cString: strerror(errno)))")
            return nil
        }
        if (status.st_mode & S_IFMT) == S_IFDIR { return nil }
        guard (status.st_mode & S_IFMT) == S_IFREG else {
            warnings.append("ignoring \(path): not a regular file")
            return nil
        }
        if !trustedOwners.isEmpty && !trustedOwners.contains(status.st_uid) {
            warnings.append(
                "ignoring \(path): owned by uid \(status.st_uid), not by "
                    + (checkMode ? "root or the directory's owner" : "you or root (name it in PREFS_PROJECT_FILE to trust it)"))
            return nil
        }
        if checkMode && (status.st_mode & 0o022) != 0 {
            warnings.append("ignoring \(path): writable by group or others")
            return nil
        }
        // The size fstat gave and one byte more, not a buffer of the largest size for every
        // file; a file that grew since is read on to the limit.
        guard status.st_size <= Self.maximumFileBytes, var bytes = try? FileIO.read(fd, upTo: Int(status.st_size) + 1) else {
            warnings.append("ignoring \(path): larger than \(Self.maximumFileBytes >> 20) MiB")
            return nil
        }
        if bytes.count > status.st_size {
            guard let rest = try? FileIO.read(fd, upTo: Self.maximumFileBytes + 1 - bytes.count) else {
                warnings.append("ignoring \(path): larger than \(Self.maximumFileBytes >> 20) MiB")
                return nil
            }
            bytes += rest
        }
        guard bytes.count <= Self.maximumFileBytes else {
            warnings.append("ignoring \(path): larger than \(Self.maximumFileBytes >> 20) MiB")
            return nil
        }
        return bytes
    }

    /// Merges a document `{"domain":{"key":value}}` into the system layer (`system`), else the
    /// project layer (later files win); a document that is not one is skipped with a warning.
    /// Returns whether it was read.
    @discardableResult
    private mutating func merge(_ bytes: [UInt8], from path: String, system intoSystem: Bool) -> Bool {
        // One parse: the checks of an import document run on the parsed tree, whose values
        // the layer keeps as they are.
        let entries: [(Domain, [JSONValue.Member])]
        do {
            entries = try KeyValueStack.documentDomains(try JSONValue(parsingUTF8: bytes, wrappingLevels: 2))
        } catch let error as PrefsError {
            warnings.append("ignoring \(path): \(error.message)")
            return false
        } catch {
            warnings.append("ignoring \(path): \(error)")
            return false
        }
        // The layer by name, not by key path: a key path is made at run time, looking up the
        // conformances of its generic types (a sixth of a layered get).
        if intoSystem {
            Self.add(entries, from: path, to: &system)
            systemFiles.append(path)
        } else {
            Self.add(entries, from: path, to: &project)
        }
        return true
    }

    private static func add(_ entries: [(Domain, [JSONValue.Member])], from path: String, to layer: inout [Domain: [String: Value]]) {
        for (domain, members) in entries {
            var values = layer.removeValue(forKey: domain) ?? [:]
            values.reserveCapacity(values.count + members.count)
            for member in members { values[member.key] = Value(value: member.value, file: path) }
            layer[domain] = values
        }
    }
}

extension Substring {
    /// Without leading and trailing spaces, tabs and carriage returns.
    fileprivate func trimmingSpaces() -> Substring {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" }
        guard let first = firstIndex(where: { !blank($0) }), let last = lastIndex(where: { !blank($0) }) else { return "" }
        return self[first...last]
    }
}
