import Glibc

extension Layers {
    /// What a layer file (or directory) looked like: a rename, a write or a removal changes it.
    struct FileStamp: Equatable, Sendable {
        let path: String
        let device: UInt64
        let inode: UInt64
        let size: Int64
        let modified: Int64
        let changed: Int64

        init(_ path: String) {
            self.path = path
            var status = stat()
            guard stat(path, &status) == 0 else {
                (device, inode, size, modified, changed) = (0, 0, -1, 0, 0)
                return
            }
            device = UInt64(status.st_dev)
            inode = UInt64(status.st_ino)
            size = Int64(status.st_size)
            modified = Int64(status.st_mtim.tv_sec) * 1_000_000_000 + Int64(status.st_mtim.tv_nsec)
            changed = Int64(status.st_ctim.tv_sec) * 1_000_000_000 + Int64(status.st_ctim.tv_nsec)
        }
    }

    /// The stamps of every file ``load(variable:workingDirectory:)`` would read, and of the directories that
    /// hold them: `stat` calls and two directory listings, no file read.
    static func stamp(variable: (String) -> String?) -> [FileStamp] {
        let setting = variable("PREFS_SYSTEM_DIR") ?? ""
        let directory = setting.isEmpty ? defaultSystemDirectory : setting
        var stamps = [FileStamp(directory)]
        for name in names(in: directory) where name.hasSuffix(".json") { stamps.append(FileStamp(directory + "/" + name)) }
        stamps.append(FileStamp(directory + "/locks"))
        for name in names(in: directory + "/locks") { stamps.append(FileStamp(directory + "/locks/" + name)) }
        if let project = variable("PREFS_PROJECT_FILE") {
            if !project.isEmpty { stamps.append(FileStamp(project)) }
        } else if let found = discoverProjectFile(from: currentDirectory() ?? "") {
            stamps.append(FileStamp(found))
        }
        return stamps
    }

    /// The directories whose entries make the layers, each with the one entry name that
    /// matters (nil: any): the system directory and its `locks`, and the project file's
    /// directory — without `PREFS_PROJECT_FILE`, every directory the lookup of `.prefs.json`
    /// visits from `directory`, where one may appear.
    package static func watchedDirectories(variable: (String) -> String?, from directory: String) -> [(
        directory: String, name: String?
    )] {
        let setting = variable("PREFS_SYSTEM_DIR") ?? ""
        let system = setting.isEmpty ? defaultSystemDirectory : setting
        var result: [(directory: String, name: String?)] = [(system, nil), (system + "/locks", nil)]
        if let project = variable("PREFS_PROJECT_FILE") {
            guard !project.isEmpty else { return result }
            let slash = project.utf8.lastIndex(of: UInt8(ascii: "/"))
            let parent = slash.map { String(project[..<$0]) } ?? "."
            let name = slash.map { String(project[project.index(after: $0)...]) } ?? project
            result.append((parent.isEmpty ? "/" : parent, name))
            return result
        }
        _ = walkUp(from: directory) { current in
            result.append((current.directory, projectFileName))
            return true
        }
        return result
    }
}
