import CSQLite
import FoundationEssentials
import Glibc
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
    static let schemaVersion = 5
    /// The size, in bytes, a `-wal` file is cut back to once a checkpoint has emptied it
    /// (`PRAGMA journal_size_limit`); `prefs doctor` reports a larger one.
    static let walSizeLimit = 4 << 20

    /// Where the database is: for a store file, its path with symbolic links resolved (SQLite
    /// names `-wal` and `-shm` after that file), looked up again from ``linkPath`` when the
    /// file is reopened after ``reopenIfReplaced()``.
    var location: Location { currentLocation.withLock { $0 } }
    private let currentLocation: Mutex<Location>
    /// The store's path as given, when it is not ``location``'s (a symbolic link, or a path
    /// through one): a link pointed elsewhere since is a replaced store.
    let linkPath: String?
    let kind: Kind
    let busyTimeout: TimeInterval
    /// The change log's view of this database: the actor its records name.
    let changeLog: ChangeLog
    /// Whether this database records sync operations (the store file, not the memory tier).
    let recordsSync: Bool
    private let queue = Mutex<(queue: DatabaseQueue, readonly: Bool)?>(nil)
    /// How many times ``reopenIfReplaced()`` let go of a replaced file: a reader that started
    /// on an earlier file (a ``LogPoller``) learns from it that another reader of this stack
    /// moved on to the file now at the path.
    var generation: Int { reopenings.load(ordering: .acquiring) }
    private let reopenings = Atomic<Int>(0)
    /// How many connections this database has opened: a connection's number tells it from a
    /// later one even when the later one reuses its memory (``CommitStamp``).
    var connectionNumber: Int { openings.load(ordering: .acquiring) }
    private let openings = Atomic<Int>(0)

    /// For a shared memory tier: the store file it belongs to (recorded in its meta table,
    /// so `prefs doctor` can find memory files whose store is gone).
    let ownerPath: String?
    /// The layers whose locks ``ChangeApplier`` enforces (none when nil).
    let layerState: LayerState?
    /// The system layer's locks: ``ChangeApplier`` refuses local writes to the keys they cover.
    var locks: [LayerLock] { layerState?.current.locks ?? [] }

    init(
        location: Location, kind: Kind, busyTimeout: TimeInterval, actor: String = "unknown", ownerPath: String? = nil,
        linkPath: String? = nil, layers: LayerState? = nil
    ) {
        self.layerState = layers
        self.currentLocation = Mutex(location)
        self.linkPath = location == .file(linkPath ?? "") ? nil : linkPath
        self.kind = kind
        // The timeout goes to SQLite in milliseconds in an Int32: keep it in range.
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

    var applicationID: Int32 {
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

    /// Closes the connection now (whoever else still holds the queue); the next access opens
    /// it again. Closing the last connection to a store checkpoints its WAL and removes it.
    func close() {
        queue.withLock { current in
            try? current?.queue.close()
            current = nil
        }
    }

    /// Whether the file this database has open is no longer the one at its path: it was
    /// removed, renamed away or replaced (another file renamed over it, its directory moved).
    /// SQLite goes on reading the file it opened, which nobody writes any more. False while
    /// nothing is open. A `stat` of the path compared with the open file, by SQLite
    /// (`SQLITE_FCNTL_HAS_MOVED`, which compares inode numbers): no descriptor of the store
    /// is opened.
    ///
    /// A store path that is a symbolic link (``linkPath``) was resolved when the file was
    /// opened: a link pointed at another file since (`ln -sfn b.db link.db`) is a rename over
    /// the store too. The file the link names now is compared with the resolved path's, which
    /// is the open file when SQLite's check passed (two `stat`s, no descriptor).
    func fileWasReplaced() -> Bool {
        guard case .file(let path) = location, let open = queue.withLock({ $0?.queue }) else { return false }
        let moved = open.inDatabase { db in
            var moved: Int32 = 0
            return sqlite3_file_control(db.sqliteConnection, "main", SQLITE_FCNTL_HAS_MOVED, &moved) == SQLITE_OK && moved != 0
        }
        guard !moved, let linkPath else { return moved }
        var linked = stat()
        var opened = stat()
        // Nothing where the link leads (it dangles, or is gone): removed. Another failure says nothing.
        guard stat(linkPath, &linked) == 0 else { return errno == ENOENT || errno == ENOTDIR }
        guard stat(path, &opened) == 0 else { return false }
        return linked.st_ino != opened.st_ino || linked.st_dev != opened.st_dev
    }

    /// Forgets the open connection when ``fileWasReplaced()``, so the next access opens the
    /// file now at the path; whether it did. The old connection closes once the calls
    /// still using it are done (it is not closed under them).
    func reopenIfReplaced() -> Bool {
        guard let open = queue.withLock({ $0?.queue }), fileWasReplaced() else { return false }
        queue.withLock { current in
            if current?.queue === open {
                current = nil
                reopenings.add(1, ordering: .releasing)
                // The file the link names now is the store from here on.
                if let linkPath { currentLocation.withLock { $0 = .file(StoreLocation.resolvingSymbolicLinks(linkPath)) } }
            }
        }
        return true
    }

    // MARK: - Opening

    private func configuration(readonly: Bool) -> Configuration {
        var config = Configuration()
        config.foreignKeysEnabled = false
        config.readonly = readonly
        config.busyTimeout = busyTimeout
        // Every commit reaches the disk before prefs reports success (WAL, synchronous FULL).
        // A WAL that a checkpoint has emptied is cut back to 4 MiB when it is next reused.
        config.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = FULL; PRAGMA journal_size_limit = \(Self.walSizeLimit)")
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
                    guard try Self.checkPrivateDirectory(PathText.deletingLastComponent(path), create: create) else {
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
            openings.add(1, ordering: .releasing)
            return opened
        }
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
        let deadline = ContinuousClock.now + .seconds(max(busyTimeout, 0.05))
        var pause: useconds_t = 1000
        while true {
            do {
                return try prepareOnce(db, path: path, writable: writable, create: create)
            } catch let error as DatabaseError where Self.isBusy(error) {
                guard ContinuousClock.now < deadline else { throw failure(error, writing: create) }
                usleep(pause + useconds_t.random(in: 0...pause))
                pause = min(pause * 2, 50_000)
            }
        }
    }

    static func isBusy(_ error: DatabaseError) -> Bool {
        error.resultCode == .busy || error.resultCode == .locked
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
            if state == .fresh, kind == .memoryTier {
                // The memory tier is RAM until reboot: give removed keys' pages back at each
                // commit instead of keeping the high-water mark. Set before any table exists
                // (a no-op when another process created them first).
                try db.writeWithoutTransaction { try $0.execute(sql: "PRAGMA auto_vacuum = FULL") }
            }
            if state == .fresh, kind == .main {
                // A store gives removed keys' pages back: ``WriteTransaction`` runs
                // `incremental_vacuum` when free pages pass a tenth of the file. Only possible
                // before the first table exists (afterwards only `VACUUM` switches it:
                // ``StoreMaintenance/compact()``).
                try db.writeWithoutTransaction { try $0.execute(sql: "PRAGMA auto_vacuum = INCREMENTAL") }
            }
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
}
