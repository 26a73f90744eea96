import Foundation
import GRDB
import GRDBSQLite
import Synchronization

/// One SQLite database holding domain tables: the store file, or the `memory` tier (a file
/// in a RAM-backed directory, or a private in-memory database).
///
/// Opening is lazy. Readers of a store that does not exist yet see an empty store and create
/// nothing; the first write creates the directory (0700) and the file (0600).
final class StoreDatabase: Sendable {
    enum Kind: Sendable {
        case main
        case memoryTier
    }

    enum Location: Sendable, Equatable {
        case file(String)
        case inProcess
    }

    /// `PRAGMA application_id` of a prefs store ("prfs").
    static let mainApplicationID: Int32 = 0x7072_6673
    /// `PRAGMA application_id` of a memory-tier file ("prfm").
    static let memoryApplicationID: Int32 = 0x7072_666D
    /// The schema version this build writes; also kept in `PRAGMA user_version`.
    static let schemaVersion = 3

    let location: Location
    let kind: Kind
    let busyTimeout: TimeInterval
    /// The change log's view of this database: the actor its records name.
    let changeLog: ChangeLog
    /// Whether this database records sync operations (the store file, not the memory tier).
    let recordsSync: Bool
    private let queue = Mutex<(queue: DatabaseQueue, readonly: Bool)?>(nil)

    /// For a shared memory tier: the store file it belongs to (recorded in its meta table,
    /// so `prefs doctor` can find memory files whose store is gone).
    let ownerPath: String?

    init(location: Location, kind: Kind, busyTimeout: TimeInterval, actor: String = "unknown", ownerPath: String? = nil) {
        self.location = location
        self.kind = kind
        // GRDB converts the timeout to milliseconds in an Int32: keep it in range.
        self.busyTimeout = busyTimeout.isNaN ? 5 : min(max(busyTimeout, 0), KeyValueStack.Options.maximumBusyTimeout)
        self.changeLog = ChangeLog(actor: actor)
        self.recordsSync = kind == .main
        self.ownerPath = ownerPath
    }

    var displayPath: String {
        switch location {
        case .file(let path): path
        case .inProcess: ":memory:"
        }
    }

    /// The domains whose tables live here when the database is new.
    var initialDomains: [Domain] {
        kind == .main ? Domain.builtInPersistent : [.memory]
    }

    private var applicationID: Int32 {
        kind == .main ? Self.mainApplicationID : Self.memoryApplicationID
    }

    /// The open database for reading, or nil when nothing has been stored yet.
    func reader() throws -> DatabaseQueue? {
        try open(create: false)
    }

    /// The open database for writing; creates it when needed.
    func writer() throws -> DatabaseQueue {
        guard let queue = try open(create: true) else {
            throw PrefsError(.cannotWrite, "cannot create store \(displayPath)")
        }
        return queue
    }

    /// Closes the connection; the next access opens it again.
    func close() {
        queue.withLock { $0 = nil }
    }

    // MARK: - Opening

    private func configuration(readonly: Bool) -> Configuration {
        var config = Configuration()
        config.foreignKeysEnabled = false
        config.readonly = readonly
        config.busyMode = .timeout(busyTimeout)
        config.label = kind == .main ? "prefs" : "prefs-memory"
        // Every commit reaches the disk before prefs reports success (WAL, synchronous FULL).
        config.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }

        return config
    }

    private func open(create: Bool) throws -> DatabaseQueue? {
        try queue.withLock { current -> DatabaseQueue? in
            if let cached = current {
                // A store that was read-only when it was opened may be writable now: reopen
                // for a write, so a retried flush can succeed once permissions are fixed.
                guard create, cached.readonly, case .file(let path) = location, access(path, W_OK) == 0 else {
                    return cached.queue
                }
                current = nil
            }
            let opened: DatabaseQueue
            var readonly = false
            switch location {
            case .inProcess:
                opened = try DatabaseQueue(configuration: configuration(readonly: false))
                _ = try prepare(opened, path: ":memory:", writable: true, create: true)
            case .file(let path):
                if kind == .memoryTier {
                    guard try Self.checkPrivateDirectory((path as NSString).deletingLastPathComponent, create: create) else {
                        return nil
                    }
                }
                var info = stat()
                if stat(path, &info) == 0 {
                    try Self.checkOwnership(path)
                    if (info.st_mode & S_IFMT) == S_IFDIR {
                        throw PrefsError(.storeUnreadable, "\(path) is a directory, not a prefs store")
                    }
                    if access(path, R_OK) != 0 {
                        throw PrefsError(.storeUnreadable, "cannot read store \(path): \(String(cString: strerror(errno)))")
                    }
                } else {
                    guard create else { return nil }
                    try Self.checkOwnership(path)
                    // (Another process may have created the store meanwhile: then its WAL is live.)
                    if stat(path + "-wal", &info) == 0 && info.st_size > 0 && stat(path, &info) != 0 {
                        // SQLite would replay a WAL left from a deleted store into the new one.
                        throw PrefsError(
                            .storeUnreadable,
                            "\(path)-wal exists without its store \(path) (left from a store that was moved or deleted?): move it away or delete it"
                        )
                    }
                    try Self.createFile(at: path, kind: kind)
                }
                let writable = access(path, W_OK) == 0
                readonly = !writable
                do {
                    let openPath = !writable && Self.needsImmutableOpen(path) ? Self.immutableURI(path) : path
                    opened = try DatabaseQueue(path: openPath, configuration: configuration(readonly: !writable))
                } catch {
                    throw failure(error, writing: create)
                }
                guard try prepare(opened, path: path, writable: writable, create: create) else { return nil }
                // SQLite creates `-wal` and `-shm` without O_EXCL: check what it opened.
                try Self.checkOwnership(path)
            }
            current = (opened, readonly)
            return opened
        }
    }

    /// Refuses a store file, `-wal` or `-shm` that another user could have prepared or can
    /// change: each that exists must belong to this user (or to root) and must not be
    /// writable by group or others, as ssh treats its key files. Only `stat`s: opening and
    /// closing a descriptor of the store would cancel SQLite's locks in this process.
    ///
    /// - Throws: ``PrefsError`` of kind `storeUnreadable` naming the file, its owner and mode.
    static func checkOwnership(_ path: String) throws {
        let user = getuid()
        for file in [path, path + "-wal", path + "-shm"] {
            var info = stat()
            // -wal and -shm are never links: one planted as a symbolic or hard link to a file
            // of the victim would have SQLite write into that file.
            let companion = file != path
            guard (companion ? lstat(file, &info) : stat(file, &info)) == 0, (info.st_mode & S_IFMT) != S_IFDIR else { continue }
            if companion && ((info.st_mode & S_IFMT) != S_IFREG || info.st_nlink > 1) {
                throw PrefsError(
                    .storeUnreadable,
                    "refusing \(file): it is a link or not a regular file (owned by uid \(info.st_uid)); remove it once no prefs process runs"
                )
            }
            let foreignOwner = info.st_uid != user && info.st_uid != 0
            if file == path && info.st_nlink > 1 {
                // SQLite names the WAL after the path: two names of one file get two WALs.
                throw PrefsError(
                    .storeUnreadable,
                    "refusing \(file): it has \(info.st_nlink) hard links, and SQLite would keep a separate -wal for each name (use one name, or a symbolic link)"
                )
            }
            if foreignOwner || ((info.st_mode & 0o022) != 0 && !Self.isOnReadOnlyMount(file)) {
                let mode = String(info.st_mode & 0o7777, radix: 8)
                throw PrefsError(
                    .storeUnreadable,
                    "refusing \(file): owned by uid \(info.st_uid) with mode 0\(mode); a store and its -wal and -shm files must belong to you and not be writable by group or others (check who made it, then chmod go-w or remove it)"
                )
            }
        }
    }

    /// Whether `path` is on a file system mounted read-only (mode bits there, e.g. vfat's
    /// `umask=000`, give nobody write access).
    static func isOnReadOnlyMount(_ path: String) -> Bool {
        var info = statvfs()
        return statvfs(path, &info) == 0 && (info.f_flag & UInt(ST_RDONLY)) != 0
    }

    /// Whether a read-only store must be opened as immutable: SQLite reads a WAL-mode file
    /// only with its `-shm` file, which it cannot create on read-only media or in a directory
    /// it may not write. Without a `-wal` holding changes the file is the whole store.
    static func needsImmutableOpen(_ path: String) -> Bool {
        let directory = (path as NSString).deletingLastPathComponent
        guard access(directory.isEmpty ? "." : directory, W_OK) != 0 else { return false }
        var info = stat()
        if stat(path + "-shm", &info) == 0 { return false }
        if stat(path + "-wal", &info) == 0 && info.st_size > 0 { return false }
        return true
    }

    /// A `file:` URI for `path` with `immutable=1` (the system SQLite is built with
    /// SQLITE_USE_URI).
    static func immutableURI(_ path: String) -> String {
        var escaped = ""
        for character in path {
            switch character {
            case "%": escaped += "%25"
            case "?": escaped += "%3f"
            case "#": escaped += "%23"
            default: escaped.append(character)
            }
        }
        return "file:\(escaped)?immutable=1"
    }

    private enum SchemaState {
        case current
        /// Empty, or being initialized by another process right now.
        case fresh
        case older
    }

    /// Reads the header: is this our store, and at which version?
    private func inspect(_ db: DatabaseQueue, path: String) throws -> SchemaState {
        let header: (appID: Int32, version: Int, fresh: Bool)
        do {
            header = try db.read { db in
                let appID = try Int32.fetchOne(db, sql: "PRAGMA application_id") ?? 0
                let version = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
                // The table list matters only for a file that is not (yet) marked as ours;
                // opening an existing store (every `prefs get`) skips reading the schema.
                guard appID == 0 && version == 0 else { return (appID, version, false) }
                let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
                return (appID, version, tables.allSatisfy { $0 == "grdb_migrations" })
            }
        } catch let error as DatabaseError where Self.isBusy(error) {
            throw error  // ``prepare(_:path:writable:create:)`` tries again
        } catch {
            throw failure(error, writing: false)
        }
        if header.fresh { return .fresh }
        guard header.appID == applicationID else {
            throw PrefsError(.storeUnreadable, "\(path) is not a prefs store")
        }
        if header.version > Self.schemaVersion {
            throw PrefsError(
                .storeUnreadable,
                "\(path) has schema version \(header.version), newer than this prefs supports (\(Self.schemaVersion)); upgrade prefs")
        }
        return header.version == Self.schemaVersion ? .current : .older
    }

    /// Checks the database is a prefs store this build can read and migrates it.
    /// Returns false when the database is empty and `create` is false.
    ///
    /// Initialization and migrations run in one `BEGIN IMMEDIATE` transaction that reads the
    /// header again once SQLite's write lock is held, so processes that open a new store
    /// together wait for the first one instead of tripping over its half-made schema. No
    /// other descriptor of the store file is ever opened: closing one would cancel every
    /// POSIX lock SQLite holds on the file in this process, and the next process to close
    /// the store would then delete the `-wal` this process is still committing into.
    private func prepare(_ db: DatabaseQueue, path: String, writable: Bool, create: Bool) throws -> Bool {
        // While another process creates the store, switches it to WAL or recovers its WAL
        // index, SQLite can answer SQLITE_BUSY at once, without its busy handler (a lock
        // upgrade that could deadlock, a WAL-index recovery): try again until the busy timeout.
        let deadline = Date().addingTimeInterval(max(busyTimeout, 0.05))
        var pause: useconds_t = 1000
        while true {
            do {
                return try prepareOnce(db, path: path, writable: writable, create: create)
            } catch let error as DatabaseError where Self.isBusy(error) {
                guard Date() < deadline else { throw failure(error, writing: create) }
                usleep(pause + useconds_t.random(in: 0...pause))
                pause = min(pause * 2, 50_000)
            }
        }
    }

    static func isBusy(_ error: DatabaseError) -> Bool {
        error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED
    }

    private func prepareOnce(_ db: DatabaseQueue, path: String, writable: Bool, create: Bool) throws -> Bool {
        let state = try inspect(db, path: path)
        switch state {
        case .current: return true
        case .fresh where !create: return false
        case .fresh, .older: break
        }
        guard writable else {
            throw PrefsError(.cannotWrite, "store \(path) needs to be initialized or upgraded but is read-only")
        }
        do {
            if state == .fresh, case .file = location {
                // A no-op when another process made it WAL first; never inside a transaction.
                let mode = try db.writeWithoutTransaction { db in
                    try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
                }
                guard mode?.lowercased() == "wal" else {
                    throw PrefsError(
                        .cannotWrite,
                        "cannot put store \(path) in WAL mode (the file system may not support it): journal mode is \(mode ?? "unknown")")
                }
            }
            let migrations = self.migrations
            let ownerPath = self.ownerPath
            try db.writeWithoutTransaction { db in
                try db.inTransaction(.immediate) {
                    let version = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
                    for (target, migrate) in migrations where target > version {
                        try migrate(db)
                    }
                    if let ownerPath, version == 0 {
                        try StoreMeta.set(db, .storePath, ownerPath)
                    }
                    return .commit
                }
            }
        } catch let error as PrefsError {
            throw error
        } catch let error as DatabaseError where Self.isBusy(error) {
            throw error
        } catch {
            throw failure(error, writing: true)
        }
        // Another process may have made a store of another kind or a newer version meanwhile.
        return try inspect(db, path: path) == .current
    }

    /// The migrations in order, each with the `user_version` it leaves; each sets it.
    /// Released migrations are never edited.
    private var migrations: [(version: Int, migrate: @Sendable (Database) throws -> Void)] {
        let kind = self.kind
        let initialDomains = self.initialDomains
        let applicationID = self.applicationID
        let v1: @Sendable (Database) throws -> Void = { db in
            try db.execute(
                sql: """
                    CREATE TABLE meta (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL) WITHOUT ROWID;
                    CREATE TABLE domains (name TEXT PRIMARY KEY NOT NULL, created_at INTEGER NOT NULL) WITHOUT ROWID;
                    """)
            try db.execute(
                sql: "INSERT INTO meta (key, value) VALUES ('schema_version', ?), ('store_id', ?), ('kind', ?)",
                arguments: ["1", UUID().uuidString.lowercased(), kind == .main ? "store" : "memory"])
            for domain in initialDomains {
                // Frozen copy of the v1 table layout (DomainTable.create adds later parts).
                try db.execute(
                    sql: """
                        CREATE TABLE IF NOT EXISTS \(DomainTable(domain).table) (
                            key TEXT PRIMARY KEY NOT NULL,
                            value TEXT NOT NULL,
                            version INTEGER NOT NULL,
                            updated_at INTEGER NOT NULL,
                            expires_at INTEGER
                        ) WITHOUT ROWID
                        """)
                try db.execute(
                    sql: "INSERT OR IGNORE INTO domains (name, created_at) VALUES (?, ?)",
                    arguments: [domain.name, WallClock.nowMilliseconds()])
            }
            try db.execute(sql: "PRAGMA application_id = \(applicationID)")
            try db.execute(sql: "PRAGMA user_version = 1")
        }
        let v2: @Sendable (Database) throws -> Void = { db in
            // The change log, filled by triggers on every domain table in the writing
            // transaction itself; `write_context` tells the triggers the op and the actor.
            try db.execute(
                sql: """
                    CREATE TABLE changelog (
                        seq INTEGER PRIMARY KEY,  -- rowid: retention keeps the newest, so it only grows
                        at INTEGER NOT NULL,
                        domain TEXT NOT NULL,
                        key TEXT NOT NULL,
                        op TEXT NOT NULL,
                        old TEXT,
                        new TEXT,
                        actor TEXT NOT NULL
                    );
                    CREATE TABLE write_context (id INTEGER PRIMARY KEY CHECK (id = 1), op TEXT NOT NULL, actor TEXT NOT NULL);
                    INSERT INTO write_context VALUES (1, 'set', 'unknown');
                    CREATE TABLE refresh_sources (
                        domain TEXT PRIMARY KEY NOT NULL,
                        source TEXT NOT NULL,
                        headers TEXT NOT NULL DEFAULT '[]',
                        etag TEXT,
                        last_modified TEXT,
                        last_success_at INTEGER,
                        copy_at INTEGER,
                        last_failure_at INTEGER,
                        last_failure TEXT
                    ) WITHOUT ROWID;
                    """)
            for name in try String.fetchAll(db, sql: "SELECT name FROM domains") {
                guard let domain = try? Domain(name) else { continue }
                try ChangeLog.createTriggers(db, domain)
            }
            try db.execute(sql: "UPDATE meta SET value = '2' WHERE key = 'schema_version'")
            try db.execute(sql: "PRAGMA user_version = 2")
        }
        let v3: @Sendable (Database) throws -> Void = { db in
            // Offline-first sync through PostgreSQL (PrefsSync): the remote, the clock, the
            // operations waiting to be pushed and, per key, the (hlc, node) of the write
            // that holds it (the last-writer-wins rule compares against it).
            if kind == .main {
                try db.execute(
                    sql: """
                        CREATE TABLE sync_config (
                            id INTEGER PRIMARY KEY CHECK (id = 1),
                            url TEXT NOT NULL,
                            domains TEXT,  -- comma-separated; NULL: every persistent domain except user
                            last_remote_seq INTEGER NOT NULL DEFAULT 0,
                            last_success_at INTEGER,
                            last_failure_at INTEGER,
                            last_failure TEXT
                        );
                        CREATE TABLE sync_clock (id INTEGER PRIMARY KEY CHECK (id = 1), hlc INTEGER NOT NULL);
                        INSERT INTO sync_clock VALUES (1, 0);
                        CREATE TABLE sync_pending (
                            seq INTEGER PRIMARY KEY AUTOINCREMENT,
                            op_id TEXT NOT NULL UNIQUE,
                            domain TEXT NOT NULL,
                            key TEXT NOT NULL,
                            value TEXT,  -- NULL: a tombstone
                            expires_at INTEGER,
                            hlc INTEGER NOT NULL,
                            node TEXT NOT NULL,
                            actor TEXT NOT NULL
                        );
                        CREATE TABLE sync_keys (
                            domain TEXT NOT NULL,
                            key TEXT NOT NULL,
                            hlc INTEGER NOT NULL,
                            node TEXT NOT NULL,
                            PRIMARY KEY (domain, key)
                        ) WITHOUT ROWID;
                        """)
            }
            try db.execute(sql: "UPDATE meta SET value = '3' WHERE key = 'schema_version'")
            try db.execute(sql: "PRAGMA user_version = 3")
        }
        return [(1, v1), (2, v2), (3, v3)]
    }

    private static func createFile(at path: String, kind: Kind) throws {
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty {
            try createDirectories(directory)
        }
        let fd = Glibc.open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
        if fd < 0 {
            if errno == EEXIST { return }
            throw PrefsError(.cannotWrite, "cannot create store \(path): \(String(cString: strerror(errno)))")
        }
        fchmod(fd, 0o600)
        Glibc.close(fd)
    }

    /// Makes sure a memory-tier directory is a real directory owned by this user and closed
    /// to others, so no other user can read or plant values. Returns false when it does not
    /// exist and `create` is false.
    static func checkPrivateDirectory(_ directory: String, create: Bool) throws -> Bool {
        var info = stat()
        if lstat(directory, &info) != 0 {
            guard create else { return false }
            try createDirectories(directory)
            guard lstat(directory, &info) == 0 else {
                throw PrefsError(.cannotWrite, "cannot create memory directory \(directory)")
            }
        }
        guard StoreLocation.isPrivateDirectory(info) else {
            let mode = String(info.st_mode & 0o7777, radix: 8)
            throw PrefsError(
                create ? .cannotWrite : .storeUnreadable,
                "refusing to use memory directory \(directory) (uid \(info.st_uid), mode 0\(mode)): it must be a directory owned by you with mode 0700; fix or remove it, or set XDG_RUNTIME_DIR to a private directory"
            )
        }
        return true
    }

    /// `mkdir -p` with mode 0700 for each directory it creates, whatever the umask.
    static func createDirectories(_ directory: String) throws {
        var info = stat()
        if stat(directory, &info) == 0 {
            if (info.st_mode & S_IFMT) != S_IFDIR {
                throw PrefsError(.cannotWrite, "cannot create store directory \(directory): not a directory")
            }
            return
        }
        let parent = (directory as NSString).deletingLastPathComponent
        if !parent.isEmpty && parent != directory {
            try createDirectories(parent)
        }
        if mkdir(directory, 0o700) != 0 {
            if errno == EEXIST { return }
            throw PrefsError(.cannotWrite, "cannot create store directory \(directory): \(String(cString: strerror(errno)))")
        }
        chmod(directory, 0o700)
    }
}
