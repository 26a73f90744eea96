import FoundationEssentials
import Glibc
import PrefsCore

/// The remote side of sync: one PostgreSQL connection (libpq) and the prefs schema on the
/// server.
///
/// The schema (created and migrated by ``migrate()``, under an advisory lock; version 2):
/// - `prefs_meta(id, version, compacted_through, horizon_seconds, compacted_at)`: the
///   remote schema version, the highest `seq` compaction removed, the retention horizon;
/// - `prefs_ops`: the operations pushed within the horizon, with a global `seq` (bigserial)
///   and a unique `op_id`, so pushing an operation twice stores it once (while it is in the log);
/// - `prefs_state`: the current value (or tombstone) of each key: the operation that wins
///   by (hlc, node), with its `seq`. Tombstones older than the horizon are removed with the log.
///
/// Pushes take a transaction-level advisory lock before they insert, so they commit in
/// `seq` order: a puller that has seen `seq` N has seen every operation below N. A push
/// NOTIFYs ``channel`` with its last `seq`.
///
/// ```swift
/// let remote = try PostgresRemote.connect(url, deadline: .now + .seconds(10))
/// try remote.migrate()
/// let pulled = try remote.pull(after: 0, limit: 5_000)
/// remote.close()
/// ```
public final class PostgresRemote {
    /// The remote schema version this build writes.
    public static let schemaVersion = 2
    /// Advisory lock keys ("prfs" schema changes, "prfp" pushes and compaction).
    static let schemaLock: Int64 = 0x7072_6673
    static let pushLock: Int64 = 0x7072_6670
    /// The channel pushes NOTIFY (payload: the push's last `seq`).
    public static let channel = "prefs_sync"
    /// The retention horizon of a new remote schema (seconds): 7 days.
    public static let defaultHorizonSeconds: Int64 = 7 * 86_400

    let connection: PostgresConnection
    /// The connection string, for messages.
    public let url: RemoteURL

    init(connection: PostgresConnection, url: RemoteURL) {
        self.connection = connection
        self.url = url
    }

    /// Connects and authenticates through libpq (password from `PGPASSWORD`, the password
    /// file or the service file).
    ///
    /// - Throws: ``PrefsError`` of kind `unreachable` with libpq's message.
    public static func connect(_ url: RemoteURL, deadline: ContinuousClock.Instant) throws -> PostgresRemote {
        PostgresRemote(connection: try PostgresConnection.connect(url.text, deadline: deadline), url: url)
    }

    /// When waits give up.
    public var deadline: ContinuousClock.Instant {
        get { connection.deadline }
        set { connection.deadline = newValue }
    }

    /// Closes the connection.
    public func close() {
        connection.close()
    }

    /// Creates the remote schema, or migrates an older one (version 1: no snapshot columns,
    /// no horizon), or checks it is one this build can use.
    ///
    /// - Throws: ``PrefsError``: `storeUnreadable` when the remote schema is newer than
    ///   this build's, `unreachable` for a connection or server failure.
    public func migrate() throws {
        if let version = try? currentVersion(), version == Self.schemaVersion { return }
        try transaction {
            try connection.query("SELECT pg_advisory_xact_lock($1::int8)", [String(Self.schemaLock)])
            try connection.query("CREATE TABLE IF NOT EXISTS prefs_meta (id int PRIMARY KEY CHECK (id = 1), version int NOT NULL)")
            let version = try connection.query("SELECT version FROM prefs_meta").int(0, 0) ?? 0
            if version > Int64(Self.schemaVersion) {
                throw PrefsError(
                    .storeUnreadable,
                    "remote has prefs schema version \(version), newer than this prefs supports (\(Self.schemaVersion)); upgrade prefs")
            }
            if version < 1 {
                try connection.query(
                    """
                    CREATE TABLE prefs_ops (
                        seq bigserial PRIMARY KEY,
                        op_id uuid NOT NULL UNIQUE,
                        domain text COLLATE "C" NOT NULL,
                        key text COLLATE "C" NOT NULL,
                        value text,
                        expires_at bigint,
                        hlc bigint NOT NULL,
                        node text COLLATE "C" NOT NULL,
                        actor text NOT NULL,
                        at timestamptz NOT NULL DEFAULT now()
                    )
                    """)
                try connection.query(
                    """
                    CREATE TABLE prefs_state (
                        domain text COLLATE "C" NOT NULL,
                        key text COLLATE "C" NOT NULL,
                        value text,
                        expires_at bigint,
                        hlc bigint NOT NULL,
                        node text COLLATE "C" NOT NULL,
                        PRIMARY KEY (domain, key)
                    )
                    """)
                try connection.query("INSERT INTO prefs_meta (id, version) VALUES (1, 1)")
            }
            if version < 2 {
                // Version 2: the state row knows the operation that set it (a snapshot is a
                // list of operations), the log has a horizon.
                try connection.query(
                    """
                    ALTER TABLE prefs_meta ADD COLUMN compacted_through bigint NOT NULL DEFAULT 0,
                        ADD COLUMN horizon_seconds bigint NOT NULL DEFAULT \(Self.defaultHorizonSeconds),
                        ADD COLUMN compacted_at timestamptz
                    """)
                try connection.query(
                    "ALTER TABLE prefs_state ADD COLUMN seq bigint, ADD COLUMN op_id uuid, ADD COLUMN actor text, ADD COLUMN at timestamptz"
                )
                try connection.query(
                    """
                    UPDATE prefs_state s SET seq = o.seq, op_id = o.op_id, actor = o.actor, at = o.at
                    FROM (SELECT DISTINCT ON (domain, key, hlc, node) domain, key, hlc, node, seq, op_id, actor, at
                          FROM prefs_ops ORDER BY domain, key, hlc, node, seq DESC) o
                    WHERE o.domain = s.domain AND o.key = s.key AND o.hlc = s.hlc AND o.node = s.node
                    """)
                try connection.query(
                    """
                    UPDATE prefs_state SET seq = COALESCE(seq, 0), op_id = COALESCE(op_id, gen_random_uuid()),
                        actor = COALESCE(actor, ''), at = COALESCE(at, now())
                    WHERE seq IS NULL OR op_id IS NULL OR actor IS NULL OR at IS NULL
                    """)
                try connection.query(
                    """
                    ALTER TABLE prefs_state ALTER COLUMN seq SET NOT NULL, ALTER COLUMN op_id SET NOT NULL,
                        ALTER COLUMN actor SET NOT NULL, ALTER COLUMN at SET NOT NULL, ALTER COLUMN at SET DEFAULT now()
                    """)
                try connection.query("CREATE INDEX prefs_state_tombstones ON prefs_state (seq) WHERE value IS NULL")
                try connection.query("CREATE INDEX prefs_ops_at ON prefs_ops (at)")
                try connection.query("UPDATE prefs_meta SET version = 2")
            }
        }
    }

    private func currentVersion() throws -> Int? {
        try connection.query("SELECT version FROM prefs_meta").int(0, 0).map { Int($0) }
    }

    /// What a puller needs to know before pulling.
    public struct Position: Sendable, Equatable {
        /// The highest `seq` pushed (or compacted).
        public var last: Int64
        /// Operations up to here are gone from the log: a cursor below it needs the snapshot.
        public var compactedThrough: Int64
        /// Whether the current state holds anything (a new store loads it instead of the log).
        public var hasState: Bool
        /// The retention horizon in seconds.
        public var horizonSeconds: Int64
    }

    /// The log's position and horizon.
    public func position() throws -> Position {
        let result = try connection.query(
            """
            SELECT GREATEST(COALESCE((SELECT max(seq) FROM prefs_ops), 0), compacted_through), compacted_through,
                EXISTS (SELECT 1 FROM prefs_state), horizon_seconds FROM prefs_meta
            """)
        return Position(
            last: try result.int(0, 0) ?? 0, compactedThrough: try result.int(0, 1) ?? 0, hasState: result.text(0, 2) == "t",
            horizonSeconds: try result.int(0, 3) ?? Self.defaultHorizonSeconds)
    }

    /// The most value bytes one ``pull(after:limit:)`` returns (beyond its first operation).
    public static let pullBudget = 64 * 1_048_576

    /// The columns of a pulled operation. What a local write would refuse is never
    /// transferred whole: a value over ``SyncOperation/maximumValueSize`` arrives as `{` (not
    /// JSON), and the domain, key, node and actor are cut one past their limits, so
    /// ``SyncOperation/problem`` still sees them as invalid.
    static let operationColumns = """
        op_id::text AS op_id, left(domain, 65) AS domain, left(key, 1025) AS key,
        CASE WHEN octet_length(value) > \(SyncOperation.maximumValueSize) THEN '{' ELSE value END AS value,
        expires_at, hlc, left(node, \(SyncOperation.maximumNodeLength + 1)) AS node,
        left(actor, \(SyncOperation.maximumActorLength + 1)) AS actor,
        CASE WHEN octet_length(value) > \(SyncOperation.maximumValueSize) THEN 1 ELSE COALESCE(octet_length(value), 0) END AS size
        """

    /// Operations after `seq`, in `seq` order, at most `limit` and at most ``pullBudget``
    /// bytes of values (always at least one operation when there is one); the last `seq`
    /// returned (`seq` itself when none); and the log's compaction point, read in the same
    /// statement (a cursor below it has missed operations: load the snapshot).
    public func pull(after seq: Int64, limit: Int) throws -> (operations: [SyncOperation], through: Int64, compactedThrough: Int64) {
        let result = try connection.query(
            """
            SELECT seq, op_id, domain, key, value, expires_at, hlc, node, actor, (SELECT compacted_through FROM prefs_meta) FROM (
                SELECT *, sum(size) OVER (ORDER BY seq) AS running
                FROM (SELECT seq, \(Self.operationColumns) FROM prefs_ops WHERE seq > $1::int8 ORDER BY seq LIMIT $2::int8) o
            ) t
            WHERE running - size < $3::int8
            UNION ALL SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, compacted_through FROM prefs_meta
            ORDER BY 1 NULLS LAST
            """, [String(seq), String(limit), String(Self.pullBudget)])
        var operations: [SyncOperation] = []
        var last = seq
        var compacted: Int64 = 0
        for row in 0..<result.count {
            compacted = try result.int(row, 9) ?? 0
            guard let rowSeq = try result.int(row, 0) else { continue }
            guard rowSeq > last else { throw PrefsError(.unreachable, "the server sent operations out of order") }
            last = rowSeq
            operations.append(try Self.operation(result, row, from: 1))
        }
        return (operations, last, compacted)
    }

    static func operation(_ result: PostgresResult, _ row: Int, from column: Int) throws -> SyncOperation {
        guard let hlc = try result.int(row, column + 5) else {
            throw PrefsError(.unreachable, "the server sent an operation without a timestamp")
        }
        return SyncOperation(
            id: result.text(row, column) ?? "", domain: result.text(row, column + 1) ?? "", key: result.text(row, column + 2) ?? "",
            json: result.text(row, column + 3), expiresAt: try result.int(row, column + 4), hlc: hlc,
            node: result.text(row, column + 6) ?? "", actor: result.text(row, column + 7) ?? "")
    }

    /// Reads the current state (values and tombstones) as operations, in batches, from one
    /// consistent snapshot; `body` gets each batch. Returns the `seq` the snapshot reaches:
    /// pull the log after it.
    public func snapshot(batch: Int = 5_000, _ body: ([SyncOperation]) throws -> Void) throws -> Int64 {
        // On a failure the caller closes the connection, which ends the transaction on the server.
        try connection.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        do {
            let through =
                try connection.query(
                    "SELECT GREATEST(COALESCE((SELECT max(seq) FROM prefs_ops), 0), compacted_through) FROM prefs_meta"
                ).int(0, 0) ?? 0
            try connection.query(
                "DECLARE prefs_snapshot NO SCROLL CURSOR FOR SELECT \(Self.operationColumns) FROM prefs_state ORDER BY domain, key")
            while true {
                let result = try connection.query("FETCH \(batch) FROM prefs_snapshot")
                if result.count == 0 { break }
                var operations: [SyncOperation] = []
                operations.reserveCapacity(result.count)
                for row in 0..<result.count { operations.append(try Self.operation(result, row, from: 0)) }
                try body(operations)
            }
            try connection.query("COMMIT")
            return through
        }
    }

    /// Pushes operations in one transaction: inserts those not pushed before and updates
    /// the current state where they win, then NOTIFYs ``channel``. Returns the remote's last
    /// `seq` when nobody else pushed since `known` (so the pusher need not pull its own
    /// operations back), else nil.
    public func push(_ operations: [SyncOperation], known: Int64?) throws -> Int64? {
        guard !operations.isEmpty else { return nil }
        return try transaction {
            try connection.query("SELECT pg_advisory_xact_lock($1::int8)", [String(Self.pushLock)])
            let before = try lastSeq()
            var start = operations.startIndex
            while start < operations.endIndex {
                let end = min(start + 2_000, operations.endIndex)
                let json = Self.json(operations[start..<end])
                start = end
                let incoming = """
                    ROWS FROM (json_to_recordset($1::json)
                        AS (id text, domain text, key text, value text, expires_at int8, hlc int8, node text, actor text))
                    WITH ORDINALITY AS t(id, domain, key, value, expires_at, hlc, node, actor, n)
                    """
                try connection.query(
                    """
                    WITH inserted AS (
                        INSERT INTO prefs_ops (op_id, domain, key, value, expires_at, hlc, node, actor)
                        SELECT t.id::uuid, t.domain, t.key, t.value, t.expires_at, t.hlc, t.node, t.actor
                        FROM \(incoming) ORDER BY t.n
                        ON CONFLICT (op_id) DO NOTHING
                        RETURNING seq, op_id, domain, key, value, expires_at, hlc, node, actor, at
                    )
                    INSERT INTO prefs_state AS s (domain, key, value, expires_at, hlc, node, seq, op_id, actor, at)
                    SELECT DISTINCT ON (i.domain COLLATE "C", i.key COLLATE "C") i.domain, i.key, i.value, i.expires_at, i.hlc, i.node,
                        i.seq, i.op_id, i.actor, i.at
                    FROM inserted i
                    ORDER BY i.domain COLLATE "C", i.key COLLATE "C", i.hlc DESC, i.node COLLATE "C" DESC
                    ON CONFLICT (domain, key) DO UPDATE
                        SET value = excluded.value, expires_at = excluded.expires_at, hlc = excluded.hlc, node = excluded.node,
                            seq = excluded.seq, op_id = excluded.op_id, actor = excluded.actor, at = excluded.at
                        WHERE (excluded.hlc, excluded.node) > (s.hlc, s.node)
                    """, [json])
            }
            let after = try lastSeq()
            if after != before { try connection.query("SELECT pg_notify($1, $2)", [Self.channel, String(after)]) }
            return before == known ? after : nil
        }
    }

    /// The highest `seq` pushed (after compaction: at least the compaction point).
    private func lastSeq() throws -> Int64 {
        try connection.query("SELECT GREATEST(COALESCE((SELECT max(seq) FROM prefs_ops), 0), compacted_through) FROM prefs_meta").int(
            0, 0) ?? 0
    }

    /// What one compaction did.
    public struct Compaction: Sendable, Equatable {
        /// Operations removed from the log.
        public var operations = 0
        /// Tombstones removed from the current state.
        public var tombstones = 0
        /// The log is compacted up to this `seq`.
        public var through: Int64 = 0
        /// The horizon used (seconds).
        public var horizonSeconds: Int64 = 0
        /// Operations left in the log.
        public var remaining = 0
    }

    /// Removes the operations pushed longer ago than the horizon, and the tombstones they
    /// set, under the push lock. With `horizonSeconds`, that horizon is also stored as the
    /// remote's automatic one. With `onlyIfDue`, does nothing unless the last compaction is
    /// older than a tenth of the horizon (at most an hour): what every push runs.
    @discardableResult
    public func compact(horizonSeconds: Int64? = nil, onlyIfDue: Bool = false) throws -> Compaction? {
        try transaction {
            if onlyIfDue {
                let due = try connection.query(
                    """
                    SELECT compacted_at IS NULL OR compacted_at < now() - LEAST(interval '1 hour', make_interval(secs => horizon_seconds / 10.0))
                    FROM prefs_meta
                    """)
                guard due.text(0, 0) == "t" else { return nil }
                // Another store compacting now is enough.
                guard try connection.query("SELECT pg_try_advisory_xact_lock($1::int8)", [String(Self.pushLock)]).text(0, 0) == "t" else {
                    return nil
                }
            } else {
                try connection.query("SELECT pg_advisory_xact_lock($1::int8)", [String(Self.pushLock)])
            }
            if let horizonSeconds {
                try connection.query("UPDATE prefs_meta SET horizon_seconds = $1::int8", [String(horizonSeconds)])
            }
            var compaction = Compaction()
            let meta = try connection.query("SELECT horizon_seconds, compacted_through FROM prefs_meta")
            compaction.horizonSeconds = try meta.int(0, 0) ?? Self.defaultHorizonSeconds
            let before = try meta.int(0, 1) ?? 0
            let through =
                try connection.query(
                    "SELECT COALESCE(max(seq), 0) FROM prefs_ops WHERE at < now() - make_interval(secs => $1::float8)",
                    [String(compaction.horizonSeconds)]
                ).int(0, 0) ?? 0
            compaction.through = max(before, through)
            compaction.operations = try connection.query("DELETE FROM prefs_ops WHERE seq <= $1::int8", [String(compaction.through)])
                .changed
            compaction.tombstones =
                try connection.query(
                    "DELETE FROM prefs_state WHERE value IS NULL AND seq <= $1::int8", [String(compaction.through)]
                ).changed
            try connection.query(
                "UPDATE prefs_meta SET compacted_through = $1::int8, compacted_at = now()", [String(compaction.through)])
            compaction.remaining = Int(try connection.query("SELECT count(*) FROM prefs_ops").int(0, 0) ?? 0)
            return compaction
        }
    }

    /// Starts listening for pushes on ``channel``.
    public func listen() throws {
        try connection.query("LISTEN \(Self.channel)")
    }

    /// The socket to poll() for notifications.
    public var socket: Int32 { connection.socket }

    /// Reads what arrived on the socket; returns the newest `seq` that notifications
    /// announced (`Int64.max` for a payload that is not a number), nil when none arrived.
    ///
    /// - Throws: ``PrefsError`` of kind `unreachable` when the connection broke.
    public func receivedNotifications() throws -> Int64? {
        try connection.notifications().map { Int64($0) ?? Int64.max }.max()
    }

    /// Runs `body` between BEGIN and COMMIT; when it throws, the caller closes the connection,
    /// which rolls the transaction back.
    private func transaction<T>(_ body: () throws -> T) throws -> T {
        try connection.query("BEGIN")
        let value = try body()
        try connection.query("COMMIT")
        return value
    }

    /// Operations as a JSON array of objects (for `json_to_recordset`).
    static func json(_ operations: ArraySlice<SyncOperation>) -> String {
        var text = "["
        for (index, operation) in operations.enumerated() {
            if index > 0 { text += "," }
            text += "{\"id\":"
            appendString(operation.id, to: &text)
            text += ",\"domain\":"
            appendString(operation.domain, to: &text)
            text += ",\"key\":"
            appendString(operation.key, to: &text)
            text += ",\"value\":"
            if let json = operation.json { appendString(json, to: &text) } else { text += "null" }
            text += ",\"expires_at\":" + (operation.expiresAt.map(String.init) ?? "null")
            text += ",\"hlc\":\(operation.hlc),\"node\":"
            appendString(operation.node, to: &text)
            text += ",\"actor\":"
            appendString(operation.actor, to: &text)
            text += "}"
        }
        return text + "]"
    }

    private static func appendString(_ string: String, to text: inout String) {
        text += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            default:
                if scalar.value < 0x20 {
                    text += "\\u" + NumberText.hex(scalar.value, width: 4)
                } else {
                    text.unicodeScalars.append(scalar)
                }
            }
        }
        text += "\""
    }
}
