import FoundationEssentials
import Glibc

/// A temporary copy of a store that `backup` or `restore` made next to it (`.NAME.XXXXXX`,
/// with the `-journal`, `-wal` and `-shm` SQLite keeps beside it), found in the store's
/// directory by `doctor`.
///
/// Whether a process still writes it is known from a lock, not a guess: the process that makes
/// a temporary holds `flock(LOCK_EX)` on it for as long as it exists
/// (``PrivateFile/makeTemporary(nextTo:purpose:)``), and the kernel drops the lock when that
/// process ends, however it ends (SIGKILL included). A file whose lock can be taken is a
/// leftover; ``remove()`` deletes it while holding the lock, and a creator that took its lock
/// only after such a removal sees its file unlinked and takes another name.
///
/// Only files that look like a temporary copy of a store are considered: a hidden name
/// ending in `.` and six characters of `mkstemp`'s alphabet, a regular file of this user with
/// mode 0600, empty or starting with the SQLite header (or with zeros: a backup copy killed
/// before it wrote its first page, which it writes last).
package struct LeftoverTemporary: Sendable, Equatable {
    /// The temporary file (its `-wal`, `-shm` and `-journal` go with it).
    package var path: String
    /// Its size with the files beside it, in bytes.
    package var bytes: Int
    /// Whether a running process holds it (a backup or restore in progress).
    package var held: Bool

    private static let suffixes = ["-journal", "-wal", "-shm"]

    /// The temporary copies in `directory` (sorted by name).
    package static func scan(directory: String) -> [LeftoverTemporary] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        var bases = Set<String>()
        for name in names where name.hasPrefix(".") {
            var base = name
            for suffix in suffixes where name.hasSuffix(suffix) { base = String(name.dropLast(suffix.count)) }
            if isTemporaryName(base) { bases.insert(base) }
        }
        return bases.sorted().compactMap { inspect(directory + "/" + $0) }
    }

    /// `.NAME.XXXXXX`: a dot, a name, a dot and six letters or digits.
    static func isTemporaryName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard bytes.count >= 9, bytes[0] == UInt8(ascii: "."), bytes[bytes.count - 7] == UInt8(ascii: ".") else { return false }
        return bytes.suffix(6).allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) }
    }

    private static func inspect(_ path: String) -> LeftoverTemporary? {
        var besideBytes = 0
        for suffix in suffixes {
            var info = stat()
            if lstat(path + suffix, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_uid == getuid() {
                besideBytes += Int(info.st_size)
            }
        }
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else {
            // Only files beside it remain (the copy itself was removed): a leftover of SQLite's.
            return errno == ENOENT && besideBytes > 0 ? LeftoverTemporary(path: path, bytes: besideBytes, held: false) : nil
        }
        defer { close(fd) }
        guard looksLikeStoreCopy(fd) else { return nil }
        var info = stat()
        _ = fstat(fd, &info)
        let held = flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK
        return LeftoverTemporary(path: path, bytes: Int(info.st_size) + besideBytes, held: held)
    }

    /// A regular file of this user, mode 0600, empty, a SQLite database or one whose first
    /// page is not written yet.
    private static func looksLikeStoreCopy(_ fd: Int32) -> Bool {
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_uid == getuid(), info.st_mode & 0o777 == 0o600
        else { return false }
        if info.st_size == 0 { return true }
        var header = [UInt8](repeating: 0, count: 16)
        let read = header.withUnsafeMutableBytes { pread(fd, $0.baseAddress, 16, 0) }
        // A backup's copy writes the first page last: one killed partway starts with zeros.
        return read == 16 && (header == Array("SQLite format 3\0".utf8) || header.allSatisfy { $0 == 0 })
    }

    /// Removes the file and the files beside it, unless a process holds it (checked again,
    /// under the lock this takes). Returns whether it was removed.
    package func remove() -> Bool {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        if fd >= 0 {
            defer { close(fd) }
            guard Self.looksLikeStoreCopy(fd), flock(fd, LOCK_EX | LOCK_NB) == 0 else { return false }
            for suffix in Self.suffixes { unlink(path + suffix) }
            return unlink(path) == 0
        }
        guard errno == ENOENT else { return false }
        for suffix in Self.suffixes { unlink(path + suffix) }
        return true
    }
}
