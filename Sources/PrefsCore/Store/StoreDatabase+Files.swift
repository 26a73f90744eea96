import Glibc

/// The files of a store: ownership and permission checks, read-only media, private
/// directories, creation with safe modes.
extension StoreDatabase {
    /// Refuses a store file, `-wal` or `-shm` that another user could have prepared or can
    /// change: each that exists must belong to this user (or to root) and must not be
    /// writable by group or others, as ssh treats its key files. Only `stat`s: opening and
    /// closing a descriptor of the store would cancel SQLite's locks in this process.
    ///
    /// - Throws: ``PrefsError`` of kind `storeUnreadable` naming the file, its owner and mode.
    static func checkOwnership(_ path: String) throws {
        let user = getuid()
        for file in [path, path + "-wal", path + "-shm"] {
            var info = stat()
            // -wal and -shm are never links: one planted as a symbolic or hard link to a file
            // of the victim would have SQLite write into that file.
            let companion = file != path
            guard (companion ? lstat(file, &info) : stat(file, &info)) == 0, (info.st_mode & S_IFMT) != S_IFDIR else { continue }
            if companion && ((info.st_mode & S_IFMT) != S_IFREG || info.st_nlink > 1) {
                throw PrefsError(
                    .storeUnreadable,
                    "refusing \(file): it is a link or not a regular file (owned by uid \(info.st_uid)); remove it once no prefs process runs"
                )
            }
            let foreignOwner = info.st_uid != user && info.st_uid != 0
            if file == path && info.st_nlink > 1 {
                // SQLite names the WAL after the path: two names of one file get two WALs.
                throw PrefsError(
                    .storeUnreadable,
                    "refusing \(file): it has \(info.st_nlink) hard links, and SQLite would keep a separate -wal for each name (use one name, or a symbolic link)"
                )
            }
            if foreignOwner || ((info.st_mode & 0o022) != 0 && !Self.isOnReadOnlyMount(file)) {
                let mode = String(info.st_mode & 0o7777, radix: 8)
                throw PrefsError(
                    .storeUnreadable,
                    "refusing \(file): owned by uid \(info.st_uid) with mode 0\(mode); a store and its -wal and -shm files must belong to you and not be writable by group or others (check who made it, then chmod go-w or remove it)"
                )
            }
        }
    }

    /// Whether `path` is on a file system mounted read-only (mode bits there, e.g. vfat's
    /// `umask=000`, give nobody write access).
    static func isOnReadOnlyMount(_ path: String) -> Bool {
        var info = statvfs()
        return statvfs(path, &info) == 0 && (info.f_flag & UInt(ST_RDONLY)) != 0
    }

    /// Whether a read-only store must be opened as immutable: SQLite reads a WAL-mode file
    /// only with its `-shm` file, which it cannot create on read-only media or in a directory
    /// it may not write. Without a `-wal` holding changes the file is the whole store.
    static func needsImmutableOpen(_ path: String) -> Bool {
        let directory = PathText.deletingLastComponent(path)
        guard access(directory.isEmpty ? "." : directory, W_OK) != 0 else { return false }
        var info = stat()
        if stat(path + "-shm", &info) == 0 { return false }
        if stat(path + "-wal", &info) == 0 && info.st_size > 0 { return false }
        return true
    }

    /// A `file:` URI for `path` with `immutable=1` (the system SQLite is built with
    /// SQLITE_USE_URI).
    static func immutableURI(_ path: String) -> String {
        fileURI(path, query: "immutable=1")
    }

    /// A `file:` URI for `path` with `query` (`name=value`).
    static func fileURI(_ path: String, query: String) -> String {
        guard path.utf8.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) else {
            return "file:" + path + "?" + query
        }
        var escaped = ""
        for character in path {
            switch character {
            case "%": escaped += "%25"
            case "?": escaped += "%3f"
            case "#": escaped += "%23"
            default: escaped.append(character)
            }
        }
        return "file:\(escaped)?\(query)"
    }

    /// Creates the store file (0600, exclusively) and its directories (0700); a file another
    /// process created meanwhile is fine.
    static func createFile(at path: String, kind: Kind) throws {
        let directory = PathText.deletingLastComponent(path)
        if !directory.isEmpty {
            try createDirectories(directory)
        }
        let fd = Glibc.open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
        if fd < 0 {
            if errno == EEXIST { return }
            throw PrefsError(.cannotWrite, "cannot create store \(path): \(String(cString: strerror(errno)))")
        }
        fchmod(fd, 0o600)
        Glibc.close(fd)
    }

    /// Makes sure a memory-tier directory is a real directory owned by this user and closed
    /// to others, so no other user can read or plant values. Returns false when it does not
    /// exist and `create` is false.
    static func checkPrivateDirectory(_ directory: String, create: Bool) throws -> Bool {
        var info = stat()
        if lstat(directory, &info) != 0 {
            guard create else { return false }
            try createDirectories(directory)
            guard lstat(directory, &info) == 0 else {
                throw PrefsError(.cannotWrite, "cannot create memory directory \(directory)")
            }
        }
        guard StoreLocation.isPrivateDirectory(info) else {
            let mode = String(info.st_mode & 0o7777, radix: 8)
            throw PrefsError(
                create ? .cannotWrite : .storeUnreadable,
                "refusing to use memory directory \(directory) (uid \(info.st_uid), mode 0\(mode)): it must be a directory owned by you with mode 0700; fix or remove it, or set XDG_RUNTIME_DIR to a private directory"
            )
        }
        return true
    }

    /// `mkdir -p` with mode 0700 for each directory it creates, whatever the umask.
    static func createDirectories(_ directory: String) throws {
        var info = stat()
        if stat(directory, &info) == 0 {
            if (info.st_mode & S_IFMT) != S_IFDIR {
                throw PrefsError(.cannotWrite, "cannot create store directory \(directory): not a directory")
            }
            return
        }
        let parent = PathText.deletingLastComponent(directory)
        if !parent.isEmpty && parent != directory {
            try createDirectories(parent)
        }
        if mkdir(directory, 0o700) != 0 {
            if errno == EEXIST { return }
            throw PrefsError(.cannotWrite, "cannot create store directory \(directory): \(String(cString: strerror(errno)))")
        }
        chmod(directory, 0o700)
    }
}
