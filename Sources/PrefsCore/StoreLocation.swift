import Foundation

/// Where stores live on disk and where the `memory` tier lives in RAM.
///
/// ```swift
/// let path = StoreLocation.resolve(explicit: nil, environment: ProcessInfo.processInfo.environment)
/// // e.g. /home/ada/.local/share/prefs/prefs.db
/// ```
public enum StoreLocation {
    /// The file name of the default store inside its directory.
    public static let defaultFileName = "prefs.db"

    /// Resolves the store path: `explicit` (the `--store` option) >
    /// `PREFS_STORE` > `$XDG_DATA_HOME/prefs/prefs.db` > `~/.local/share/prefs/prefs.db`.
    public static func resolve(explicit: String?, environment: [String: String]) -> String {
        if let explicit, !explicit.isEmpty { return explicit }
        if let fromEnv = environment["PREFS_STORE"], !fromEnv.isEmpty { return fromEnv }
        return defaultDirectory(environment: environment) + "/" + defaultFileName
    }

    /// The directory of the default store: `$XDG_DATA_HOME/prefs` or `~/.local/share/prefs`.
    public static func defaultDirectory(environment: [String: String]) -> String {
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            return xdg + "/prefs"
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return home + "/.local/share/prefs"
    }

    /// The RAM-backed directory that holds the shared `memory` tier of this user's stores:
    /// `$XDG_RUNTIME_DIR/prefs` when that variable names a directory, else
    /// `/dev/shm/prefs-UID`.
    public static func memoryDirectory(environment: [String: String]) -> String {
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: runtime, isDirectory: &isDirectory), isDirectory.boolValue {
                return runtime + "/prefs"
            }
        }
        return "/dev/shm/prefs-\(getuid())"
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
        return "/" + parts.joined(separator: "/")
    }

    static func fnv1a64Hex(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
