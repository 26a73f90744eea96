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
        if let lock = layers.lock(in: domain, forKey: key) { throw lock.refusal(domain, key) }
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
