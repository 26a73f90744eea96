import FoundationEssentials
import Glibc

/// Where stores live on disk and where the `memory` tier lives in RAM.
///
/// ```swift
/// let path = StoreLocation.resolve(explicit: nil, environment: ProcessEnvironment.current())
/// // e.g. /home/ada/.local/share/prefs/prefs.db
/// ```
public enum StoreLocation {
    /// The file name of the default store inside its directory.
    public static let defaultFileName = "prefs.db"

    /// Resolves the store path: `explicit` (the `--store` option) >
    /// `PREFS_STORE` > `$XDG_DATA_HOME/prefs/prefs.db` > `~/.local/share/prefs/prefs.db`.
    public static func resolve(explicit: String?, environment: [String: String]) -> String {
        resolve(explicit: explicit) { environment[$0] }
    }

    /// ``resolve(explicit:environment:)`` with the environment read one variable at a time
    /// (`get`'s start-up path reads three with getenv instead of copying the environment).
    package static func resolve(explicit: String?, variable: (String) -> String?) -> String {
        if let explicit, !explicit.isEmpty { return explicit }
        if let fromEnv = variable("PREFS_STORE"), !fromEnv.isEmpty { return fromEnv }
        return defaultDirectory(variable: variable) + "/" + defaultFileName
    }

    /// The directory of the default store: `$XDG_DATA_HOME/prefs` or `~/.local/share/prefs`.
    public static func defaultDirectory(environment: [String: String]) -> String {
        defaultDirectory { environment[$0] }
    }

    private static func defaultDirectory(variable: (String) -> String?) -> String {
        if let xdg = variable("XDG_DATA_HOME"), xdg.hasPrefix("/") {
            return xdg + "/prefs"
        }
        let home = variable("HOME").flatMap { $0.isEmpty ? nil : $0 } ?? PathText.homeDirectory()
        return home + "/.local/share/prefs"
    }

    /// The RAM-backed directory that holds the shared `memory` tier of this user's stores:
    /// `$XDG_RUNTIME_DIR/prefs` when that variable names a directory, else
    /// `/dev/shm/prefs-UID`, unless another user has claimed that name (it exists and is not
    /// this user's private directory): then `/dev/shm/prefs-UID-TOKEN`, where TOKEN is a
    /// random name kept in `memory-token` (0600) beside the default store, which no other user
    /// can predict or create first.
    public static func memoryDirectory(environment: [String: String]) -> String {
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") {
            var info = stat()
            if stat(runtime, &info) == 0, info.st_mode & S_IFMT == S_IFDIR {
                return runtime + "/prefs"
            }
        }
        let shared = sharedMemoryRoot + "/prefs-\(getuid())"
        var info = stat()
        guard lstat(shared, &info) == 0, !isPrivateDirectory(info) else { return shared }
        // Claimed by another user. The token's name shows in /dev/shm once used, so another
        // user may claim it too after a reboot: then a new token is made.
        guard var token = memoryToken(environment: environment, replacing: nil) else { return shared }
        if lstat(shared + "-" + token, &info) == 0, !isPrivateDirectory(info),
            let fresh = memoryToken(environment: environment, replacing: token)
        {
            token = fresh
        }
        return shared + "-" + token
    }

    /// Where the memory tier lives without `XDG_RUNTIME_DIR` (tests point it elsewhere with
    /// `PREFS_TEST_SHM_ROOT`, read only in debug builds).
    static var sharedMemoryRoot: String {
        #if DEBUG
            if let root = ProcessEnvironment.value("PREFS_TEST_SHM_ROOT"), root.hasPrefix("/") { return root }
        #endif
        return "/dev/shm"
    }

    static func isPrivateDirectory(_ info: stat) -> Bool {
        (info.st_mode & S_IFMT) == S_IFDIR && info.st_uid == getuid() && (info.st_mode & 0o077) == 0
    }

    /// The random part of this user's fallback memory directory, kept in `memory-token`
    /// (0600) in the default store's directory: read, created (written whole to a private
    /// temporary file, then linked into place, so a reader never sees half a token), or, when
    /// `replacing` is the current token, replaced by a new one. Nil when that cannot be done.
    static func memoryToken(environment: [String: String], replacing stale: String?) -> String? {
        let directory = defaultDirectory(environment: environment)
        let file = directory + "/memory-token"
        func read() -> String? {
            var info = stat()
            guard lstat(file, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_uid == getuid(),
                (info.st_mode & 0o077) == 0, let text = try? String(contentsOfFile: file, encoding: .utf8)
            else { return nil }
            let token = text.trimmingWhitespaceAndNewlines()
            let hex = token.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
            return token.count == 32 && hex ? token : nil
        }
        if let token = read(), token != stale { return token }
        guard (try? StoreDatabase.createDirectories(directory)) != nil else { return nil }
        var generator = SystemRandomNumberGenerator()
        let token = (0..<4).map { _ in
            let hex = String(UInt32.random(in: 0...UInt32.max, using: &generator), radix: 16)
            return String(repeating: "0", count: 8 - hex.count) + hex
        }.joined()
        guard let (fd, temporary) = try? PrivateFile.makeTemporary(nextTo: file, purpose: "memory token") else { return nil }
        let bytes = Array((token + "\n").utf8)
        let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        Glibc.close(fd)
        defer { unlink(temporary) }
        guard written == bytes.count else { return nil }
        var info = stat()
        if stale == nil && lstat(file, &info) != 0 {
            // Create only: another process may have just made its own, and then both use it.
            _ = link(temporary, file)
        } else {
            // Replace a token another user claimed, or a damaged file.
            _ = rename(temporary, file)
        }
        return read()
    }

    /// The path with symbolic links resolved (of its directory when the file does not exist
    /// yet), as SQLite resolves it to name `-wal` and `-shm`; the path itself when neither
    /// can be resolved.
    public static func resolvingSymbolicLinks(_ path: String) -> String {
        if let resolved = realpath(path, nil) {
            defer { free(resolved) }
            return String(cString: resolved)
        }
        let directory = PathText.deletingLastComponent(path)
        guard let resolved = realpath(directory.isEmpty ? "." : directory, nil) else { return path }
        defer { free(resolved) }
        let base = String(cString: resolved)
        return (base == "/" ? "" : base) + "/" + PathText.lastComponent(path)
    }

    /// The file of the shared `memory` tier that belongs to the store at `storePath`.
    public static func memoryFile(forStore storePath: String, environment: [String: String]) -> String {
        let absolute = absolutePath(storePath)
        return memoryDirectory(environment: environment) + "/memory-" + fnv1a64Hex(absolute) + ".db"
    }

    /// The path made absolute against the current directory, with `.` and `..` resolved.
    public static func absolutePath(_ path: String) -> String {
        let joined = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        var parts: [Substring] = []
        for part in joined.split(separator: "/", omittingEmptySubsequences: true) {
            if part == "." { continue }
            if part == ".." {
                _ = parts.popLast()
                continue
            }
            parts.append(part)
        }
        // Appended one by one: the generic `joined(separator:)` costs a one-shot command
        // ~100,000 instructions of metadata lookup the first time a process calls it.
        var result = ""
        for part in parts {
            result += "/"
            result += part
        }
        return result.isEmpty ? "/" : result
    }

    static func fnv1a64Hex(_ text: String) -> String {
        var hash = FNV1a()
        hash.addBytes(of: text)
        return NumberText.hex(hash.value, width: 16)
    }
}
