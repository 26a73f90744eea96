import Glibc

extension PrefsError {
    /// Maps a SQLite error to the exit-code categories.
    static func database(_ error: any Error, path: String, writing: Bool) -> PrefsError {
        if let error = error as? PrefsError { return error }
        guard let dbError = error as? DatabaseError else {
            return PrefsError(writing ? .cannotWrite : .storeUnreadable, "store \(path): \(error)")
        }
        let detail = dbError.message ?? "SQLite error \(dbError.resultCode.rawValue)"
        switch dbError.resultCode {
        case .busy, .locked:
            return PrefsError(.cannotWrite, "store \(path) is locked by another process; gave up waiting", reason: .locked)
        case .full:
            return PrefsError(.cannotWrite, "cannot write store \(path): disk full", reason: .diskFull)
        case .readonly, .permission:
            return PrefsError(.cannotWrite, "cannot write store \(path): \(detail)", reason: .permissionDenied)
        case .corrupt, .notADatabase:
            return PrefsError(.storeUnreadable, "\(path) is corrupt or not a prefs store (\(detail))", reason: .corrupt)
        case .cantOpen, .ioError:
            // Even a read needs room for the `-shm` index: on a full file system SQLite says
            // "disk I/O error", which is not damage.
            if fileSystemIsFull(holding: path) {
                return PrefsError(.cannotWrite, "cannot \(writing ? "write" : "read") store \(path): disk full", reason: .diskFull)
            }
            return PrefsError(writing ? .cannotWrite : .storeUnreadable, "cannot \(writing ? "write" : "read") store \(path): \(detail)")
        default:
            return PrefsError(writing ? .cannotWrite : .storeUnreadable, "store \(path): \(detail)")
        }
    }

    /// Whether the file system that holds `path` has no block left for this user.
    private static func fileSystemIsFull(holding path: String) -> Bool {
        var info = statvfs()
        let directory = PathText.deletingLastComponent(path)
        guard statvfs(directory.isEmpty ? "." : directory, &info) == 0 else { return false }
        return info.f_bavail == 0
    }
}
