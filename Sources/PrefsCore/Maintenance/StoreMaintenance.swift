import FoundationEssentials
import Glibc

/// One finding of ``StoreMaintenance/doctor(environment:fix:otherStores:)``.
public struct DoctorFinding: Sendable, Equatable {
    /// How serious it is.
    public enum Level: String, Sendable {
        /// Fine.
        case ok
        /// Worth attention; the store works.
        case warning
        /// The store is damaged.
        case error
    }

    /// How serious.
    public var level: Level
    /// What was checked, e.g. `integrity`.
    public var check: String
    /// What was found.
    public var message: String

    /// The finding as one compact JSON object.
    public var json: String {
        JSONValue.object([.init("level", .string(level.rawValue)), .init("check", .string(check)), .init("message", .string(message))])
            .compactText
    }
}

/// Looking after a store file: checking its health (``doctor(environment:fix:otherStores:)``),
/// giving free pages back (``compact()``), backing it up and restoring a backup. Held apart from
/// ``KeyValueStack`` (as GRDB keeps `DatabaseMigrator` apart from `DatabaseQueue`): these are
/// an administrator's operations, not an app's. Export and import stay on the stack.
///
/// ```swift
/// let findings = try StoreMaintenance(stack).doctor()   // or stack.maintenance.doctor()
/// ```
public struct StoreMaintenance: Sendable {
    /// The stack whose store file is looked after.
    public let stack: KeyValueStack

    /// The maintenance of `stack`'s store.
    public init(_ stack: KeyValueStack) {
        self.stack = stack
    }

    /// Checks the store's health: integrity, schema version, the SQL objects (every table,
    /// index and trigger one prefs makes, none else), values (compact JSON), the change log's
    /// numbering, WAL state, permissions, this store's memory-tier file, leftover temporary
    /// copies of the store (of an interrupted `backup` or `restore`) in its directory, and
    /// expired keys waiting to be purged. Reads only, unless `fix`.
    ///
    /// ```swift
    /// let healthy = try stack.maintenance.doctor().allSatisfy { $0.level != .error }
    /// ```
    /// - Parameters:
    ///   - environment: where the memory tier's directory is looked up (`XDG_RUNTIME_DIR` and
    ///     the like; the process's environment by default).
    ///   - fix: remove the leftover temporary copies no process holds (`LeftoverTemporary`).
    ///   - otherStores: also list the memory-tier files of other stores that are gone (check
    ///     `memory-other`), which concern no store in particular.
    /// - Throws: `PrefsError` of kind `storeUnreadable` when the store cannot be opened.
    public func doctor(
        environment: [String: String] = ProcessEnvironment.current(), fix: Bool = false, otherStores: Bool = false
    ) throws -> [DoctorFinding] {
        var findings: [DoctorFinding] = []
        func add(_ level: DoctorFinding.Level, _ check: String, _ message: String) {
            findings.append(DoctorFinding(level: level, check: check, message: message))
        }
        // The store file itself; what is beside it (memory tier, temporaries) is checked after.
        func storeChecks() throws {
            guard FileManager.default.fileExists(atPath: stack.path) else {
                add(.ok, "store", "\(stack.path) does not exist yet (created on the first write)")
                return
            }
            let reader: DatabaseQueue
            do {
                guard let opened = try stack.main.reader() else {
                    add(.ok, "store", "\(stack.path) is empty")
                    return
                }
                reader = opened
            } catch let error as PrefsError {
                add(.error, "store", error.message)
                return
            }
            do {
                try reader.read { db in
                    let integrity = try String.fetchAll(db, sql: "PRAGMA integrity_check")
                    if integrity == ["ok"] {
                        add(.ok, "integrity", "PRAGMA integrity_check: ok")
                    } else {
                        add(.error, "integrity", integrity.prefix(5).joined(separator: "; "))
                    }
                    let version = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
                    add(.ok, "schema", "schema version \(version) (this prefs: \(StoreDatabase.schemaVersion))")
                    // Every table, index, trigger and view must be one prefs makes, with its SQL:
                    // a planted trigger can rewrite later writes. (The change log's triggers are
                    // the writing connection's TEMP triggers: a persistent one logs writes twice.)
                    if version == StoreDatabase.schemaVersion {
                        let differences = try SchemaInventory.read(db).differences(
                            from: SchemaInventory.expected(domains: DomainTable.all(db)))
                        for difference in differences { add(.error, "objects", difference.message) }
                        if differences.isEmpty { add(.ok, "objects", "every table, index and trigger is one prefs makes") }
                    }
                    var invalid: [String] = []
                    var values = 0
                    var bad = 0
                    for domain in try DomainTable.all(db) where try DomainTable(domain).tableExists(db) {
                        let rows = try Row.fetchCursor(db, sql: "SELECT key, value FROM \(DomainTable(domain).allRows)")
                        while let row = try rows.next() {
                            values += 1
                            if let json = BackupCopy.compactJSON(row.values[1]), case .text(let stored) = row.values[1], json == stored {
                                continue
                            }
                            bad += 1
                            if invalid.count < 5 { invalid.append("\(domain.name) \(BackupCopy.quoted(row.values[0]))") }
                        }
                    }
                    if invalid.isEmpty {
                        add(.ok, "values", "\(values) value(s), each compact JSON")
                    } else {
                        add(
                            .error, "values",
                            "\(bad) value(s) not compact JSON: \(invalid.joined(separator: ", "))\(bad > invalid.count ? ", …" : "")")
                    }
                    if version >= 2 {
                        let latest = try ChangeLog.latestSequence(db)
                        if latest >= ChangeLog.sequenceLimit {
                            add(
                                .error, "log",
                                "the change log's last record number is \(latest), beyond what prefs writes: writes are refused")
                        }
                    }
                    let mode = try String.fetchOne(db, sql: "PRAGMA journal_mode") ?? "?"
                    // (FileManager's `.size` is not an Int here: it read 0 for every WAL.)
                    var walInfo = stat()
                    let walSize = stat(stack.path + "-wal", &walInfo) == 0 ? Int(walInfo.st_size) : 0
                    if walSize > StoreDatabase.walSizeLimit {
                        add(
                            .warning, "wal",
                            "WAL file \(walSize) bytes, over \(StoreDatabase.walSizeLimit >> 20) MiB: a process holding the store open keeps checkpoints from finishing"
                        )
                    } else {
                        add(mode == "wal" ? .ok : .warning, "wal", "journal mode \(mode), WAL file \(walSize) bytes")
                    }
                    let pages = try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0
                    let free = try Int.fetchOne(db, sql: "PRAGMA freelist_count") ?? 0
                    let pageSize = try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 4096
                    let incremental = try Int.fetchOne(db, sql: "PRAGMA auto_vacuum") == 2
                    if free > WriteTransaction.keptFreePages && free * 10 > pages {
                        add(
                            .warning, "space",
                            "\(free * pageSize) of \(pages * pageSize) bytes are free pages: `prefs compact` gives them back"
                                + (incremental ? "" : " (and makes later writes give theirs back)"))
                    } else {
                        add(
                            .ok, "space",
                            "\(free * pageSize) of \(pages * pageSize) bytes are free pages"
                                + (incremental ? "" : "; a store made by an earlier prefs keeps them until `prefs compact`"))
                    }
                    var expired = 0
                    let now = WallClock.nowMilliseconds()
                    for domain in try DomainTable.all(db) where try DomainTable(domain).tableExists(db) {
                        let table = DomainTable(domain)
                        expired +=
                            try Int.fetchOne(
                                db,
                                sql: "SELECT count(*) FROM \(table.table) WHERE \(table.scope)expires_at IS NOT NULL AND expires_at <= ?",
                                arguments: [now]) ?? 0
                    }
                    add(.ok, "expiry", "\(expired) expired key(s) waiting to be purged at the next write to their domain")
                    let hashing = try StoreMeta.value(db, .flagFractionalVersion)
                    add(
                        .ok, "flags",
                        hashing.map { "fractional hashing version \($0) (prefs flag config fractional-version)" }
                            ?? "fractional hashing version \(FractionalVersion.default.rawValue) (the default)")
                }
            } catch {
                add(.error, "integrity", PrefsError.database(error, path: stack.path, writing: false).message)
            }
            for (file, label) in [(stack.path, "store file"), (PathText.deletingLastComponent(stack.path), "store directory")] {
                var info = stat()
                guard stat(file, &info) == 0 else { continue }
                let mode = info.st_mode & 0o777
                if mode & 0o077 != 0 {
                    add(
                        .warning, "permissions",
                        "\(label) \(file) is open to group/other (mode \(String(mode, radix: 8))); expected 0\(label == "store file" ? "600" : "700")"
                    )
                } else {
                    add(.ok, "permissions", "\(label) mode \(String(mode, radix: 8))")
                }
            }
        }
        try storeChecks()
        let memoryFile = StoreLocation.memoryFile(forStore: stack.path, environment: environment)
        var memoryInfo = stat()
        add(
            .ok, "memory",
            lstat(memoryFile, &memoryInfo) == 0
                ? "memory-tier file \(memoryFile) (\(memoryInfo.st_size) bytes)"
                : "no memory-tier file in \(PathText.deletingLastComponent(memoryFile))")
        for leftover in LeftoverTemporary.scan(directory: PrivateFile.directoryName(stack.path)) {
            let what = "temporary copy \(leftover.path) (\(leftover.bytes) bytes)"
            if leftover.held {
                add(.ok, "temporary", "\(what) is being written by a running backup or restore")
            } else if fix {
                if leftover.remove() {
                    add(.ok, "temporary", "removed the leftover \(what)")
                } else {
                    add(.warning, "temporary", "could not remove the leftover \(what)")
                }
            } else {
                add(
                    .warning, "temporary",
                    "leftover \(what) of an interrupted backup or restore; no process holds it (prefs doctor --fix removes it)")
            }
        }
        if otherStores {
            let orphans = Self.orphanedMemoryFiles(environment: environment)
            if orphans.isEmpty {
                add(
                    .ok, "memory-other",
                    "no memory-tier files of stores that are gone in \(StoreLocation.memoryDirectory(environment: environment))")
            }
            for orphan in orphans { add(.warning, "memory-other", "orphaned memory-tier file \(orphan)") }
        }
        findings += stack.layerFindings()
        return findings
    }

    /// The memory-tier files whose store is gone ("FILE (store PATH is gone)"), of any store
    /// of this user.
    static func orphanedMemoryFiles(environment: [String: String]) -> [String] {
        let memoryDirectory = StoreLocation.memoryDirectory(environment: environment)
        var orphans: [String] = []
        for name in ((try? FileManager.default.contentsOfDirectory(atPath: memoryDirectory)) ?? []).sorted()
        where name.hasPrefix("memory-") && name.hasSuffix(".db") {
            let file = memoryDirectory + "/" + name
            // Read-write, though it only reads: a read-only connection to a WAL file leaves a
            // `-wal` and a 32 KiB `-shm` beside it when it closes (in RAM until reboot, one pair
            // per file per run); the last read-write connection to close removes them. Not
            // created: a file removed since the listing stays removed.
            var configuration = Configuration()
            configuration.create = false
            guard let queue = try? DatabaseQueue(path: file, configuration: configuration),
                let owner = try? queue.read({ try StoreMeta.value($0, .storePath) })
            else { continue }
            if !FileManager.default.fileExists(atPath: owner) { orphans.append("\(file) (store \(owner) is gone)") }
        }
        return orphans
    }

    /// Writes a consistent copy of the store file to `destination` while other processes
    /// may be writing (SQLite's `VACUUM INTO`), mode 0600.
    ///
    /// ```swift
    /// try stack.maintenance.backup(to: "/var/backups/prefs.db")
    /// ```
    /// - Parameters:
    ///   - destination: the backup file to write.
    ///   - overwrite: replace an existing file.
    /// - Throws: `PrefsError`: `cannotWrite` when the destination exists (without
    ///   `overwrite`) or cannot be written; `storeUnreadable`; `notFound` when there is no store.
    public func backup(to destination: String, overwrite: Bool = false) throws {
        // lstat, not fileExists: a symbolic link (dangling or not) at the destination exists too.
        var status = stat()
        if lstat(destination, &status) == 0 && !overwrite {
            throw PrefsError(.cannotWrite, "\(destination) exists; use --force to overwrite it")
        }
        guard let reader = try stack.main.reader() else { throw PrefsError(.notFound, "no store at \(stack.path) to back up") }
        try PrivateFile.refuseStoreFiles(destination, store: stack.path)
        try stack.flushSynchronously()
        // SQLite writes into an empty file that exists: make it private and unpredictable first.
        // Held open (and locked) until the rename, so `doctor --fix` leaves it alone.
        let (fd, temporary) = try PrivateFile.makeTemporary(nextTo: destination, purpose: "backup")
        // A signal mid-copy removes the hidden copy and its -journal (``SignalCleanup``).
        SignalCleanup.register(temporary)
        defer { SignalCleanup.register(nil) }
        do {
            try reader.writeWithoutTransaction { db in
                try db.execute(sql: "VACUUM INTO ?", arguments: [temporary])
            }
        } catch {
            unlink(temporary)
            unlink(temporary + "-journal")
            Glibc.close(fd)
            throw PrefsError.database(error, path: destination, writing: true)
        }
        try PrivateFile.commit(temporary, fd: fd, to: destination, purpose: "backup")
    }

    /// Replaces the store's content with a backup made by ``backup(to:overwrite:)``, while
    /// other processes may be using the store.
    ///
    /// The backup is data, never code: it is opened read-only and immutable (nothing is
    /// written next to it), and only its rows are taken, each checked as an import checks
    /// it (domain and key rules, values compact JSON, integer versions and times), into a new
    /// store prefs makes itself in a temporary file next to the store. Its triggers, views,
    /// indexes and tables are never taken over. The change log comes along only when every
    /// record passes the checks. Refresh sources and the sync remote (with its pending
    /// operations and the store id) come along only with `withSources`. `report` hears what
    /// is restored and what is not before the store changes. The new store then replaces
    /// the store's content with SQLite's online backup in one step under the store's write
    /// lock, so readers see the old store or the restored one, never a mix.
    ///
    /// ```swift
    /// try stack.maintenance.restore(from: "/var/backups/prefs.db", overwrite: true) { print($0.lines) }
    /// ```
    /// - Parameters:
    ///   - source: the backup file (a regular file).
    ///   - overwrite: replace a store that holds keys (checked just before the copy).
    ///   - withSources: restore the backup's refresh sources and sync remote too.
    ///   - report: told what is restored and what is left behind, before the store changes.
    /// - Throws: `PrefsError`: `storeUnreadable` when the backup is not a regular file, not
    ///   a readable, intact prefs store of a schema this build knows, or holds a row prefs
    ///   does not write; `cannotWrite` when the store holds keys and `overwrite` is false, or
    ///   cannot be written.
    public func restore(
        from source: String, overwrite: Bool = false, withSources: Bool = false, report: (RestoreReport) -> Void = { _ in }
    ) throws {
        var info = stat()
        guard stat(source, &info) == 0 else {
            throw PrefsError(.storeUnreadable, "cannot read backup \(source): \(String(cString: strerror(errno)))")
        }
        // A FIFO would block the open for ever, a directory or device is no backup.
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw PrefsError(
                .storeUnreadable, "\(source) is not a regular file (\(Self.fileType(info.st_mode))); a backup is a file prefs backup wrote")
        }
        try PrivateFile.refuseStoreFiles(source, store: stack.path)
        var walInfo = stat()
        if stat(source + "-wal", &walInfo) == 0 && walInfo.st_size > 0 {
            throw PrefsError(
                .storeUnreadable,
                "\(source) has a -wal file holding changes the file itself lacks (a live store, not a backup): make a backup of it with prefs backup"
            )
        }
        let backup: DatabaseQueue
        let header: (appID: Int32, version: Int, integrity: String)
        do {
            backup = try BackupCopy.open(source)
            header = try backup.read { db in
                let appID = try Int32.fetchOne(db, sql: "PRAGMA application_id") ?? 0
                let version = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
                let integrity = try String.fetchAll(db, sql: "PRAGMA integrity_check").joined(separator: "; ")
                return (appID, version, integrity)
            }
        } catch {
            throw PrefsError(.storeUnreadable, "cannot read backup \(source): it is not an intact prefs store")
        }
        defer { try? backup.close() }
        guard header.appID == StoreDatabase.mainApplicationID, header.version >= 1 else {
            throw PrefsError(.storeUnreadable, "\(source) is not a prefs store backup")
        }
        guard header.version <= StoreDatabase.schemaVersion else {
            throw PrefsError(
                .storeUnreadable,
                "\(source) has schema version \(header.version), newer than this prefs supports (\(StoreDatabase.schemaVersion))")
        }
        guard header.integrity == "ok" else { throw PrefsError(.storeUnreadable, "\(source) is damaged: \(header.integrity)") }
        if !overwrite, let reader = try stack.main.reader(), try holdsKeys(reader) { throw Self.holdsKeysError(stack.path) }

        // The new store, made the normal way next to the store, filled with the backup's rows.
        try StoreDatabase.createDirectories(PrivateFile.directoryName(stack.path))
        // Held open (and locked) until removed, so `doctor --fix` leaves it alone; a signal
        // removes it with its -wal and -shm (``SignalCleanup``, when the program installed it).
        let (fd, temporary) = try PrivateFile.makeTemporary(nextTo: stack.path, purpose: "restore")
        SignalCleanup.register(temporary)
        let fresh = StoreDatabase(
            location: .file(temporary), kind: .main, busyTimeout: stack.main.busyTimeout, actor: stack.main.changeLog.actor)
        var copied: DatabaseQueue?
        defer {
            try? copied?.close()
            fresh.close()
            for suffix in ["", "-wal", "-shm", "-journal"] { unlink(temporary + suffix) }
            SignalCleanup.register(nil)
            Glibc.close(fd)
        }
        var summary = RestoreReport(source: source)
        let backupLast: Int64
        do {
            let queue = try fresh.writer()
            copied = queue
            backupLast = try queue.write { target in
                try backup.read { db in
                    try BackupCopy(source: source, withSources: withSources).copy(
                        db, version: header.version, into: target, report: &summary)
                }
            }
        } catch let error as PrefsError {
            throw error
        } catch {
            // The copy is written next to the store: no room there is the store's disk being
            // full (exit 4), not the backup being unreadable.
            let writing = PrefsError.database(error, path: temporary, writing: true)
            if writing.reason == .diskFull {
                throw PrefsError(.cannotWrite, "cannot restore into \(stack.path): disk full", reason: .diskFull)
            }
            throw PrefsError(
                .storeUnreadable, "cannot restore \(source): \(PrefsError.database(error, path: source, writing: false).message)")
        }
        if let queue = copied { try refuseLockedChanges(from: try stack.main.reader(), to: queue) }
        report(summary)

        try stack.flushSynchronously()
        let writer = try stack.main.writer()
        let lastSequence: Int64
        do {
            lastSequence = try writer.read(ChangeLog.latestSequence)
            if !overwrite, try holdsKeys(writer) { throw Self.holdsKeysError(stack.path) }
            try copied?.backup(to: writer)
        } catch let error as PrefsError {
            throw error
        } catch {
            throw PrefsError.database(error, path: stack.path, writing: true)
        }
        // Open again: the next reads see the restored store, and its schema.
        stack.main.close()
        stack.defaults.invalidateSchema()
        let restored = try stack.main.writer()
        // The change log goes on after the store's own last record, never back: a `restore`
        // placeholder takes the next number, so a watcher sees a gap (exit 3) instead of
        // silently waiting for numbers it has already passed. (A store whose numbers were
        // pushed to the limit starts again after the backup's.)
        let log = stack.main.changeLog
        let next = max(lastSequence, backupLast) < ChangeLog.sequenceLimit ? max(lastSequence, backupLast) + 1 : backupLast + 1
        do {
            try restored.write { db in try log.placeholder(db, .restore, seq: next) }
        } catch {
            throw PrefsError.database(error, path: stack.path, writing: true)
        }
    }

    private func holdsKeys(_ queue: DatabaseQueue) throws -> Bool {
        try queue.read { db -> Bool in
            for domain in try DomainTable.all(db) where try DomainTable(domain).tableExists(db) {
                if try DomainTable(domain).hasRows(db) { return true }
            }
            return false
        }
    }

    /// Refuses a restore that would write or remove a key a system lock covers (exit 4, naming
    /// the lock file): the backup holds it, or the store holds it (a restore replaces every row,
    /// so it would go). As every other write path, whatever the value.
    private func refuseLockedChanges(from current: DatabaseQueue?, to restored: DatabaseQueue) throws {
        guard !stack.layers.locks.isEmpty else { return }
        for rows in [try restored.read(lockedRows), try current?.read(lockedRows) ?? [:]] {
            if let id = rows.keys.min(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }), let row = rows[id] {
                throw row.lock.refusal(row.domain, row.key)
            }
        }
    }

    /// The rows a system lock covers, by `domain NUL key` (expired rows included: a restore
    /// writes and removes those too).
    private func lockedRows(_ db: Database) throws -> [String: (lock: LayerLock, domain: Domain, key: String)] {
        var rows: [String: (lock: LayerLock, domain: Domain, key: String)] = [:]
        for lock in stack.layers.locks {
            let table = DomainTable(lock.domain)
            guard try table.tableExists(db) else { continue }
            let found =
                lock.isPrefix
                ? try String.fetchAll(
                    db,
                    sql: "SELECT key FROM \(table.allRows)\(table.isShared ? " AND" : " WHERE")"
                        + " substr(CAST(key AS BLOB), 1, ?) = CAST(? AS BLOB)",
                    arguments: [Int64(lock.key.utf8.count), lock.key])
                : try String.fetchAll(
                    db, sql: "SELECT key FROM \(table.allRows)\(table.isShared ? " AND" : " WHERE") key = ?",
                    arguments: [lock.key])
            for key in found {
                let id = lock.domain.name + "\u{0}" + key
                if rows[id] == nil { rows[id] = (lock, lock.domain, key) }
            }
        }
        return rows
    }

    private static func holdsKeysError(_ path: String) -> PrefsError {
        PrefsError(.cannotWrite, "store \(path) holds keys; --force replaces them with the backup")
    }

    /// What kind of file a mode names, for messages.
    static func fileType(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFDIR: "a directory"
        case S_IFIFO: "a FIFO"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFSOCK: "a socket"
        default: "not a regular file"
        }
    }
}

extension KeyValueStack {
    /// The maintenance of this stack's store file (``StoreMaintenance``): doctor, compact,
    /// backup, restore.
    ///
    /// ```swift
    /// try stack.maintenance.backup(to: "/var/backups/prefs.db")
    /// ```
    public var maintenance: StoreMaintenance { StoreMaintenance(self) }
}
