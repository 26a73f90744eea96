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
            return PrefsError(writing ? .cannotWrite : .storeUnreadable, "cannot \(writing ? "write" : "read") store \(path): \(detail)")
        default:
            return PrefsError(writing ? .cannotWrite : .storeUnreadable, "store \(path): \(detail)")
        }
    }
}
