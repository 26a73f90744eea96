import Glibc

/// Files that prefs writes for the user (backups, exports): made under an unpredictable
/// temporary name in the destination's directory with `O_EXCL` and mode 0600, filled,
/// flushed to disk and renamed into place, so no other user can read the content, plant the
/// file first or redirect it through a symlink.
///
/// An export's destination that is a character device or FIFO of the user's or root's
/// (`-o /dev/null`) is written through instead, as a shell's `>` would, never replaced; a
/// symbolic link, another user's device or FIFO, a block device or a socket is refused
/// (``target(_:purpose:)``). A backup, project file or other committed file is never renamed
/// over a device, FIFO or socket (``commit(_:fd:to:purpose:)`` refuses it).
///
/// ```swift
/// try PrivateFile.write(Array("{}".utf8), to: "/home/ada/prefs.json", purpose: "export")
/// ```
package enum PrivateFile {
    /// A new empty temporary file next to `destination` (`.NAME.XXXXXX`, mode 0600), locked
    /// with `flock` while its descriptor stays open: `doctor --fix` removes only temporaries no
    /// process holds (``LeftoverTemporary``). Keep the descriptor open until the file is
    /// renamed or removed.
    ///
    /// - Parameter purpose: what the file is, for error messages ("backup", "export").
    /// - Returns: the open descriptor and the temporary path.
    /// - Throws: ``PrefsError`` of kind `cannotWrite` naming `destination` and its directory.
    package static func makeTemporary(nextTo destination: String, purpose: String) throws -> (fd: Int32, path: String) {
        let directory = directoryName(destination)
        let name = PathText.lastComponent(destination)
        while true {
            var template = Array((directory + "/." + name + ".XXXXXX").utf8CString)
            let fd = mkstemp(&template)  // O_EXCL, mode 0600
            guard fd >= 0 else { throw failure(destination, purpose: purpose, errno) }
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            let path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            // Between mkstemp and the lock, `doctor --fix` may have taken the unlocked file for
            // a leftover and removed it: then take another name. (A file system without flock
            // leaves the file unlocked, and doctor reports it as held by nobody.)
            var info = stat()
            if flock(fd, LOCK_EX) == 0 && fstat(fd, &info) == 0 && info.st_nlink == 0 {
                close(fd)
                continue
            }
            return (fd, path)
        }
    }

    /// Flushes the temporary file (open as `fd`, which this closes), renames it to
    /// `destination` and flushes the directory. Removes the temporary file when a step fails,
    /// and refuses a destination that is a device, FIFO or socket (a rename would replace it).
    ///
    /// - Throws: ``PrefsError`` of kind `cannotWrite` naming `destination`.
    package static func commit(_ temporary: String, fd: Int32, to destination: String, purpose: String) throws {
        // Closed after the rename: the lock keeps `doctor --fix` away until then.
        defer { close(fd) }
        var existing = stat()
        if lstat(destination, &existing) == 0 {
            let type = existing.st_mode & S_IFMT
            if type != S_IFREG && type != S_IFLNK && type != S_IFDIR {
                unlink(temporary)
                throw PrefsError(.cannotWrite, "cannot write \(purpose) \(destination): not a regular file")
            }
        }
        if fsync(fd) != 0 {
            let code = errno
            unlink(temporary)
            throw failure(destination, purpose: purpose, code)
        }
        if rename(temporary, destination) != 0 {
            let code = errno
            unlink(temporary)
            throw failure(destination, purpose: purpose, code)
        }
        let directory = open(directoryName(destination), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directory >= 0 {
            fsync(directory)
            close(directory)
        }
    }

    /// Refuses a destination that is the store or its `-wal` or `-shm` (renaming over them
    /// would replace the live store).
    ///
    /// - Throws: ``PrefsError`` of kind `cannotWrite`.
    package static func refuseStoreFiles(_ destination: String, store: String) throws {
        let target = StoreLocation.resolvingSymbolicLinks(destination)
        let resolvedStore = StoreLocation.resolvingSymbolicLinks(store)
        var destinationInfo = stat()
        let exists = stat(target, &destinationInfo) == 0
        for file in [resolvedStore, resolvedStore + "-wal", resolvedStore + "-shm"] {
            var info = stat()
            let sameFile =
                exists && stat(file, &info) == 0 && info.st_dev == destinationInfo.st_dev && info.st_ino == destinationInfo.st_ino
            if sameFile || target == file {
                throw PrefsError(.cannotWrite, "\(destination) is the store itself or one of its files; write to another file")
            }
        }
    }

    /// Whether `-o PATH` means standard output: `-`, or a name of it (`/dev/stdout`,
    /// `/dev/fd/1`, `/proc/self/fd/1`), written as standard output is, never replaced by a file.
    package static func meansStandardOutput(_ path: String) -> Bool {
        ["-", "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"].contains(path)
    }

    /// Where ``write(_:to:purpose:store:)`` puts its bytes.
    enum Target: Equatable {
        /// A file replaced through a private temporary file and a rename (it may not exist).
        case file(String)
        /// A character device or FIFO of the user's or root's, open for writing.
        case stream(Int32)
    }

    /// `path` as a destination (``Target``). A regular file (or none) is replaced; a character
    /// device or FIFO of the user's or root's is opened once (never through a symbolic link)
    /// and checked to be the file looked at; anything else is refused: a symbolic link (a
    /// rename would replace the link, following it would let whoever owns a link in the chain
    /// redirect the data), another user's FIFO or device (it would read the store's data), a
    /// block device, a socket.
    ///
    /// - Throws: ``PrefsError`` of kind `cannotWrite`.
    static func target(_ path: String, purpose: String) throws -> Target {
        var link = stat()
        guard lstat(path, &link) == 0 else { return .file(path) }
        let type = link.st_mode & S_IFMT
        switch type {
        case S_IFREG, S_IFDIR:
            return .file(path)
        case S_IFLNK:
            throw PrefsError(.cannotWrite, "cannot write \(purpose) \(path): a symbolic link; name the file itself")
        case S_IFCHR, S_IFIFO:
            guard link.st_uid == geteuid() || link.st_uid == 0 else {
                throw PrefsError(
                    .cannotWrite,
                    "cannot write \(purpose) \(path): \(type == S_IFIFO ? "a FIFO" : "a device") of uid \(link.st_uid), not yours")
            }
            let fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC | O_NOFOLLOW)
            guard fd >= 0 else { throw failure(path, purpose: purpose, errno) }
            var opened = stat()
            guard fstat(fd, &opened) == 0, opened.st_dev == link.st_dev, opened.st_ino == link.st_ino,
                opened.st_mode & S_IFMT == type
            else {
                close(fd)
                throw PrefsError(.cannotWrite, "cannot write \(purpose) \(path): it changed while being opened")
            }
            return .stream(fd)
        default:
            throw PrefsError(.cannotWrite, "cannot write \(purpose) \(path): not a regular file")
        }
    }

    /// Writes what `produce` hands to its writer into an open device or FIFO, and closes it.
    private static func writeThrough(
        _ fd: Int32, _ path: String, purpose: String, _ produce: ((([UInt8]) throws -> Void)) throws -> Void
    ) throws {
        defer { close(fd) }
        try produce { bytes in
            do throws(FileIO.Failure) {
                try FileIO.write(fd, bytes)
            } catch {
                throw failure(path, purpose: purpose, error.code)
            }
        }
    }

    /// Writes what `produce` hands to its writer, piece by piece, as ``write(_:to:purpose:store:)``
    /// writes bytes: into a private temporary file renamed over `path` once `produce` returns.
    /// When `produce` throws, the temporary file is removed and `path` is left as it was. A
    /// device, FIFO or socket (``Target``) is written through instead.
    package static func write(
        to destination: String, purpose: String, store: String? = nil, _ produce: ((([UInt8]) throws -> Void)) throws -> Void
    ) throws {
        if let store { try refuseStoreFiles(destination, store: store) }
        let path: String
        switch try target(destination, purpose: purpose) {
        case .stream(let fd): return try writeThrough(fd, destination, purpose: purpose, produce)
        case .file(let file): path = file
        }
        let (fd, temporary) = try makeTemporary(nextTo: path, purpose: purpose)
        do {
            try produce { bytes in
                do throws(FileIO.Failure) {
                    try FileIO.write(fd, bytes)
                } catch {
                    throw failure(path, purpose: purpose, error.code)
                }
            }
        } catch {
            close(fd)
            unlink(temporary)
            throw error
        }
        try commit(temporary, fd: fd, to: path, purpose: purpose)
    }

    /// Writes `bytes` to `path` through a private temporary file and a rename.
    ///
    /// - Parameter store: the store's path, when `path` must not be it (nor its `-wal`/`-shm`).
    /// - Throws: ``PrefsError`` of kind `cannotWrite` naming `path`.
    package static func write(_ bytes: [UInt8], to destination: String, purpose: String, store: String? = nil) throws {
        try write(to: destination, purpose: purpose, store: store) { try $0(bytes) }
    }

    static func directoryName(_ path: String) -> String {
        let directory = PathText.deletingLastComponent(path)
        if directory.isEmpty { return "." }
        return directory
    }

    /// One line naming the destination, and the directory when it is the cause.
    static func failure(_ destination: String, purpose: String, _ code: Int32) -> PrefsError {
        let directory = directoryName(destination)
        var info = stat()
        let reason: String
        if stat(directory, &info) != 0 {
            reason = "directory \(directory) does not exist"
        } else if (info.st_mode & S_IFMT) != S_IFDIR {
            reason = "\(directory) is not a directory"
        } else {
            reason = String(cString: strerror(code))
        }
        return PrefsError(.cannotWrite, "cannot write \(purpose) \(destination): \(reason)")
    }
}
