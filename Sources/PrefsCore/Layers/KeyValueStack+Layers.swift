extension KeyValueStack {
    /// The lock that keeps `domain`/`key` from being written, nil when it is writable
    /// (`prefs writable`).
    ///
    /// ```swift
    /// if let lock = stack.lock(in: .user, forKey: "telemetry") { print("locked by", lock.file) }
    /// ```
    public func lock(in domain: Domain, forKey key: String) -> LayerLock? {
        layers.lock(in: domain, forKey: key)
    }

    /// Refuses a write to a locked key when it is queued (the flush refuses it again).
    func refuseLocked(_ domain: Domain, _ key: String) throws {
        if let lock = layerState.lock(in: domain, forKey: key) { throw lock.refusal(domain, key) }
    }
}

extension KeyValueStack {
    /// What `doctor` says of the layers (check `layers`): the system directory and the
    /// project file read, with their keys and locks, and each file skipped (a warning).
    func layerFindings() -> [DoctorFinding] {
        var findings: [DoctorFinding] = []
        if layers.systemFiles.isEmpty {
            findings.append(DoctorFinding(level: .ok, check: "layers", message: "system: no files in \(layers.systemDirectory)"))
        }
        for file in layers.systemFiles {
            let locks = layers.locks.filter { $0.file == file }.count
            let keys = layers.system.values.reduce(0) { sum, values in sum + values.values.filter { $0.file == file }.count }
            let what = file.hasPrefix(layers.systemDirectory + "/locks/") ? "\(locks) lock(s)" : "\(keys) key(s) in effect"
            findings.append(DoctorFinding(level: .ok, check: "layers", message: "system: \(file): \(what)"))
        }
        if let file = layers.projectFile {
            let keys = layers.project.values.reduce(0) { $0 + $1.count }
            findings.append(DoctorFinding(level: .ok, check: "layers", message: "project: \(file): \(keys) key(s)"))
        } else {
            findings.append(DoctorFinding(level: .ok, check: "layers", message: "project: none"))
        }
        for warning in layers.warnings { findings.append(DoctorFinding(level: .warning, check: "layers", message: warning)) }
        return findings
    }
}

extension KeyValueStack {
    /// Sets `value` under `domain`/`key` in the project file `file` (`prefs set --project`),
    /// with the checks of a write to the store: a locked key is refused (exit 4, naming the
    /// lock file) and the schema checks the value. The store is not touched.
    ///
    /// - Throws: `PrefsError`: `usage` for a bad key; `cannotWrite`; `invalidValue`.
    package func setInProject(_ value: JSONValue, in domain: Domain, forKey key: String, file: String) throws {
        try KeyName.validate(key)
        try refuseLocked(domain, key)
        try validateWrite(value, in: domain, forKey: key)
        try ProjectFile.edit(file, timeout: main.busyTimeout) { document in
            document[domain.name, default: [:]][key] = value.compactText
            return true
        }
    }

    /// Removes keys of `domain` from the project file `file` (`prefs rm --project`); the file
    /// is left as it is when none of them is in it. Returns the keys removed.
    ///
    /// - Throws: `PrefsError`: `usage` for a bad key; `cannotWrite` (a locked key); `notFound`
    ///   with `mustExist` when a key is not in the file (nothing is removed).
    @discardableResult
    package func removeFromProject(in domain: Domain, keys: [String], mustExist: Bool, file: String) throws -> [String] {
        for key in keys {
            try KeyName.validate(key)
            try refuseLocked(domain, key)
        }
        var removed: [String] = []
        try ProjectFile.edit(file, timeout: main.busyTimeout) { document in
            var members = document[domain.name] ?? [:]
            for key in keys {
                if members.removeValue(forKey: key) != nil {
                    removed.append(key)
                } else if mustExist {
                    throw PrefsError(.notFound, "\(domain.name)/\(key) is not in \(file)", domain: domain, key: key)
                }
            }
            document[domain.name] = members
            return !removed.isEmpty
        }
        return removed
    }
}

extension KeyValueStack {
    /// Reads the project and system files again when they changed since the last look (a
    /// file added, removed, replaced or written), for a long-running reader such as
    /// `prefs serve`; whether the layers (values, locks, files) changed. Layers given in
    /// ``Options/layers`` are never read again.
    ///
    /// ```swift
    /// if stack.reloadLayers() { print("the layer files changed") }
    /// ```
    @discardableResult
    public func reloadLayers() -> Bool {
        layerState.reload()
    }
}
