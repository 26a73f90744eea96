import Foundation
import PrefsCore
import PrefsTestSupport

/// A temporary directory holding a store path; removed on deinit.
final class TemporaryStore {
    let directory: String
    let path: String

    init() throws {
        directory = try makeTemporaryDirectory(prefix: "prefs-core")
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
