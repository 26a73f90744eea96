import Foundation
import PrefsCore

/// A temporary directory holding a store path; removed on deinit.
final class TemporaryStore {
    let directory: String
    let path: String

    init() throws {
        let template = FileManager.default.temporaryDirectory.path + "/prefs-core-XXXXXX"
        var bytes = Array(template.utf8CString)
        guard let made = mkdtemp(&bytes) else { throw CocoaError(.fileWriteUnknown) }
        directory = String(cString: made)
        path = directory + "/prefs.db"
    }

    deinit {
        try? FileManager.default.removeItem(atPath: directory)
    }

    func open(memoryTier: KeyValueStack.MemoryTier = .inProcess) throws -> KeyValueStack {
        try KeyValueStack(
            path: path,
            options: .init(memoryTier: memoryTier, environment: ["XDG_RUNTIME_DIR": directory]))
    }
}
