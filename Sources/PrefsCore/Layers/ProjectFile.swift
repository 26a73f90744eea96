import Glibc

/// Edits of the project file (`prefs set --project`, `prefs rm --project`): the file is
/// rewritten in a stable layout — domains, then keys, sorted bytewise, one member per line,
/// each value compact JSON — so that one change is a one-line diff, and written atomically
/// (a temporary file in the same directory, then `rename`) keeping the file's mode.
package enum ProjectFile {
    /// The file an edit writes: `PREFS_PROJECT_FILE` when set; else the `.prefs.json` the
    /// lookup finds from `directory`; else a new `.prefs.json` at the top of the git work
    /// tree that holds `directory` (the directory with `.git`, where the lookup stops), or in
    /// `directory` itself outside a work tree.
    ///
    /// - Throws: `PrefsError` of kind `usage` when `PREFS_PROJECT_FILE` is empty (the project
    ///   layer is off).
    package static func target(variable: (String) -> String?, directory: String) throws -> String {
        if let setting = variable("PREFS_PROJECT_FILE") {
            guard !setting.isEmpty else {
                throw PrefsError(.usage, "the project layer is off (PREFS_PROJECT_FILE is empty): no project file to edit")
            }
            return setting
        }
        // A current directory that was removed (getcwd fails): no guess, least of all `/`.
        guard directory.hasPrefix("/") else {
            throw PrefsError(
                .cannotWrite, "cannot tell the current directory (was it removed?): name the project file in PREFS_PROJECT_FILE")
        }
        let lookup = Layers.lookUpProjectFile(from: directory)
        return lookup.file ?? (lookup.workTreeTop ?? directory).appendingPathComponentText(Layers.projectFileName)
    }

    /// Reads `path` (an absent file is empty), lets `change` edit its domains (name → key →
    /// compact JSON), and writes the result when `change` returns true.
    ///
    /// One edit at a time: an exclusive `flock` on the file's directory is held from the read
    /// to the rename, so two edits at once both land, the second reading what the first wrote.
    /// An edit waits up to `timeout` seconds for that lock (anyone who can read the directory
    /// can hold it), then fails with exit 4 as a store write does.
    /// The file is opened once (never through a symbolic link) and checked, read and measured
    /// from that descriptor; the new content is written as ``PrivateFile`` writes (a locked
    /// temporary file, synced, renamed, the directory synced) with the file's mode, or for a
    /// new file 0666 less the umask.
    ///
    /// - Throws: `PrefsError`: `cannotWrite` for a file that is not a regular file (a symbolic
    ///   link included), is owned by another user, or cannot be written; `invalidValue` for
    ///   one that is not a document `{"domain":{"key":value}}` within the limits of `import`,
    ///   or an edit that would make it larger than the layer reads (``Layers/maximumFileBytes``);
    ///   what `change` throws.
    package static func edit(
        _ path: String, timeout: Double = 5, _ change: (inout [String: [String: String]]) throws -> Bool
    ) throws {
        let directory = open(PrivateFile.directoryName(path), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directory >= 0 else { throw PrefsError(.cannotWrite, "cannot write \(path): \(String(cString: strerror(errno)))") }
        defer { close(directory) }  // releases the lock
        let deadline = ContinuousClock.now + .milliseconds(Int64(timeout * 1000))
        while flock(directory, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EINTR || errno == EWOULDBLOCK else {
                throw PrefsError(.cannotWrite, "cannot lock the directory of \(path): \(String(cString: strerror(errno)))")
            }
            guard ContinuousClock.now < deadline else {
                throw PrefsError(
                    .cannotWrite, "the directory of \(path) is locked by another process; gave up waiting", reason: .locked)
            }
            usleep(2_000)
        }
        var document: [String: [String: String]] = [:]
        let mode: mode_t
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        if fd >= 0 {
            defer { close(fd) }
            var status = stat()
            guard fstat(fd, &status) == 0 else {
                throw PrefsError(.cannotWrite, "cannot read \(path): \(String(cString: strerror(errno)))")
            }
            guard (status.st_mode & S_IFMT) == S_IFREG else {
                throw PrefsError(.cannotWrite, "\(path) is not a regular file: not editing it")
            }
            guard status.st_uid == geteuid() else {
                throw PrefsError(.cannotWrite, "\(path) is owned by uid \(status.st_uid), not by you: not editing it")
            }
            mode = status.st_mode & 0o7777
            for (domain, members) in try read(fd, path: path) {
                document[domain.name, default: [:]].merge(members) { $1 }
            }
        } else if errno == ENOENT {
            mode = 0o666 & ~currentUmask()
        } else if errno == ELOOP {
            throw PrefsError(.cannotWrite, "\(path) is not a regular file: not editing it")
        } else {
            throw PrefsError(.cannotWrite, "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        guard try change(&document) else { return }
        let text = Array(layout(document).utf8)
        guard text.count <= Layers.maximumFileBytes else {
            throw PrefsError(
                .invalidValue,
                "\(path) would be \(text.count) bytes, more than the \(Layers.maximumFileBytes >> 20) MiB a project file may be (it would be ignored)"
            )
        }
        let (temporary, temporaryPath) = try PrivateFile.makeTemporary(nextTo: path, purpose: "project file")
        do {
            try FileIO.write(temporary, text)
            guard fchmod(temporary, mode) == 0 else { throw FileIO.Failure(errno) }
        } catch {
            close(temporary)
            unlink(temporaryPath)
            throw PrefsError(.cannotWrite, "cannot write \(path): \(error)")
        }
        try PrivateFile.commit(temporaryPath, fd: temporary, to: path, purpose: "project file")
    }

    /// The process's umask, read without changing it (`umask(2)` sets it process-wide, which
    /// another thread creating a file meanwhile would get): `Umask:` of /proc/self/status, or
    /// 022 where that cannot be read.
    static func currentUmask() -> mode_t {
        let fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return 0o022 }
        defer { close(fd) }
        guard let status = try? FileIO.readToEnd(fd) else { return 0o022 }
        for line in String(decoding: status, as: UTF8.self).split(separator: "\n") where line.hasPrefix("Umask:") {
            if let mask = mode_t(line.dropFirst("Umask:".count).trimmingPrefix(while: { $0 == " " || $0 == "\t" }), radix: 8) {
                return mask
            }
        }
        return 0o022
    }

    /// The document in the stable layout.
    package static func layout(_ document: [String: [String: String]]) -> String {
        let precedes: (String, String) -> Bool = { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        let domains = document.filter { !$0.value.isEmpty }.keys.sorted(by: precedes)
        guard !domains.isEmpty else { return "{}\n" }
        var text = "{\n"
        for (index, domain) in domains.enumerated() {
            text += "  " + JSONValue.string(domain).compactText + ": {\n"
            let members = document[domain] ?? [:]
            let keys = members.keys.sorted(by: precedes)
            for (position, key) in keys.enumerated() {
                text += "    " + JSONValue.string(key).compactText + ": " + (members[key] ?? "null")
                text += position == keys.count - 1 ? "\n" : ",\n"
            }
            text += index == domains.count - 1 ? "  }\n" : "  },\n"
        }
        return text + "}\n"
    }

    private static func read(_ fd: Int32, path: String) throws -> [(Domain, [String: String])] {
        let bytes: [UInt8]
        do {
            bytes = try FileIO.read(fd, upTo: Layers.maximumFileBytes + 1)
        } catch {
            throw PrefsError(.cannotWrite, "cannot read \(path): \(error)")
        }
        guard bytes.count <= Layers.maximumFileBytes else {
            throw PrefsError(.invalidValue, "\(path) is larger than \(Layers.maximumFileBytes >> 20) MiB: not editing it")
        }
        do {
            let entries = try KeyValueStack.validateDocument(try JSONValue(parsingUTF8: bytes, wrappingLevels: 2))
            return entries.map { domain, members in
                (domain, Dictionary(members, uniquingKeysWith: { $1 }))
            }
        } catch let error as PrefsError {
            throw PrefsError(.invalidValue, "\(path): \(error.message)")
        }
    }
}

extension String {
    /// This path with `/name` appended (`/` + `name` for the root).
    fileprivate func appendingPathComponentText(_ name: String) -> String {
        (self == "/" ? "" : self) + "/" + name
    }
}
