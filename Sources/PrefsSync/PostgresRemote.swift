import Foundation
import Logging
import PostgresNIO
import PrefsCore

/// The remote side of sync: one PostgreSQL connection and the prefs schema on the server.
///
/// The schema (created and migrated by ``migrate()``, under an advisory lock):
/// - `prefs_meta(id, version)`: the remote schema version;
/// - `prefs_ops`: every operation ever pushed, with a global `seq` (bigserial) and a unique
///   `op_id`, so pushing an operation twice stores it once;
/// - `prefs_state`: the current value (or tombstone) of each key: the operation that wins
///   by (hlc, node).
///
/// Pushes take a transaction-level advisory lock before they insert, so they commit in
/// `seq` order: a puller that has seen `seq` N has seen every operation below N.
///
/// ```swift
/// let remote = try await PostgresRemote.connect(url, environment: env, timeout: .seconds(10))
/// try await remote.migrate()
/// let (operations, last) = try await remote.pull(after: 0, limit: 5_000)
/// try await remote.close()
/// ```
public final class PostgresRemote: Sendable {
    /// The remote schema version this build writes.
    public static let schemaVersion = 1
    /// Advisory lock keys ("prfs" schema changes, "prfp" pushes).
    static let schemaLock: Int64 = 0x7072_6673
    static let pushLock: Int64 = 0x7072_6670

    let connection: PostgresConnection
    let logger: Logger
    /// The URL, for messages.
    public let url: RemoteURL

    init(connection: PostgresConnection, logger: Logger, url: RemoteURL) {
        self.connection = connection
        self.logger = logger
        self.url = url
    }

    /// Connects and authenticates; the password comes from `PGPASSWORD` or the password
    /// file (see ``PasswordFile``).
    ///
    /// - Throws: ``PrefsError`` of kind `unreachable` naming the cause (refused, timed out,
    ///   authentication failed, no such database, TLS).
    public static func connect(_ url: RemoteURL, environment: [String: String], timeout: Duration) async throws -> PostgresRemote {
        let found = PasswordFile.lookup(host: url.host, port: url.port, database: url.database, user: url.user, environment: environment)
        let tls: PostgresConnection.Configuration.TLS
        do {
            switch url.tls {
            case .disable:
                tls = .disable
            case .prefer, .require:
                var configuration = TLSConfiguration.makeClientConfiguration()
                configuration.certificateVerification = .none
                let context = try NIOSSLContext(configuration: configuration)
                tls = url.tls == .prefer ? .prefer(context) : .require(context)
            case .verifyFull:
                tls = .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
            }
        } catch {
            throw PrefsError(.unreachable, "cannot set up TLS: \(error)")
        }
        var configuration = PostgresConnection.Configuration(
            host: url.host, port: url.port, username: url.user, password: found.password, database: url.database, tls: tls)
        configuration.options.connectTimeout = .nanoseconds(
            max(1, timeout.components.seconds * 1_000_000_000 + timeout.components.attoseconds / 1_000_000_000))
        let logger = Logger(label: "prefs-sync") { _ in SwiftLogNoOpLogHandler() }
        do {
            let connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
            return PostgresRemote(connection: connection, logger: logger, url: url)
        } catch {
            let cause = Self.describe(error)
            throw PrefsError(.unreachable, "cannot connect to \(url): \(cause)" + (found.note.map { " (\($0))" } ?? ""))
        }
    }

    /// Closes the connection.
    public func close() async {
        guard !connection.isClosed else { return }
        try? await connection.close()
    }

    /// Creates the remote schema, or checks it is one this build can use.
    ///
    /// - Throws: ``PrefsError``: `storeUnreadable` when the remote schema is newer than
    ///   this build's, `unreachable` for a connection or server failure.
    public func migrate() async throws {
        if let version = try? await currentVersion(), version == Self.schemaVersion { return }
        try await transaction { connection, logger in
            try await connection.query("SELECT pg_advisory_xact_lock(\(Self.schemaLock))", logger: logger)
            try await connection.query(
                "CREATE TABLE IF NOT EXISTS prefs_meta (id int PRIMARY KEY CHECK (id = 1), version int NOT NULL)", logger: logger)
            var version = 0
            for try await found in try await connection.query("SELECT version FROM prefs_meta", logger: logger).decode(Int.self) {
                version = found
            }
            if version > Self.schemaVersion {
                throw PrefsError(
                    .storeUnreadable,
                    "remote \(self.url) has prefs schema version \(version), newer than this prefs supports (\(Self.schemaVersion)); upgrade prefs"
                )
            }
            if version < 1 {
                try await connection.query(
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
                    """, logger: logger)
                try await connection.query(
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
                    """, logger: logger)
                try await connection.query("INSERT INTO prefs_meta (id, version) VALUES (1, 1)", logger: logger)
            }
        }
    }

    private func currentVersion() async throws -> Int? {
        var version: Int?
        for try await found in try await connection.query("SELECT version FROM prefs_meta", logger: logger).decode(Int.self) {
            version = found
        }
        return version
    }

    /// The most value bytes one ``pull(after:limit:)`` returns (beyond its first operation).
    public static let pullBudget = 64 * 1_048_576

    /// Operations after `seq`, in `seq` order, at most `limit` and at most ``pullBudget``
    /// bytes of values (always at least one operation when there is one); and the last `seq`
    /// returned (`seq` itself when none). What a local write would refuse is never
    /// transferred whole: a value over ``SyncOperation/maximumValueSize`` arrives as `{` (not
    /// JSON), and the domain, key, node and actor are cut one past their limits, so
    /// ``SyncOperation/problem`` still sees them as invalid.
    public func pull(after seq: Int64, limit: Int) async throws -> (operations: [SyncOperation], through: Int64) {
        var operations: [SyncOperation] = []
        var last = seq
        let maximum = SyncOperation.maximumValueSize
        let rows = try await run {
            try await self.connection.query(
                """
                SELECT seq, op_id, domain, key, value, expires_at, hlc, node, actor FROM (
                    SELECT seq, op_id, domain, key, value, expires_at, hlc, node, actor, size,
                        sum(size) OVER (ORDER BY seq) AS running
                    FROM (
                        SELECT seq, op_id::text AS op_id, left(domain, 65) AS domain, left(key, 1025) AS key,
                            CASE WHEN octet_length(value) > \(unescaped: String(maximum)) THEN '{' ELSE value END AS value,
                            expires_at, hlc, left(node, \(unescaped: String(SyncOperation.maximumNodeLength + 1))) AS node,
                            left(actor, \(unescaped: String(SyncOperation.maximumActorLength + 1))) AS actor,
                            CASE WHEN octet_length(value) > \(unescaped: String(maximum)) THEN 1 ELSE COALESCE(octet_length(value), 0) END AS size
                        FROM prefs_ops WHERE seq > \(seq) ORDER BY seq LIMIT \(limit)
                    ) o
                ) t
                WHERE running - size < \(unescaped: String(Self.pullBudget)) ORDER BY seq
                """, logger: self.logger)
        }
        do {
            for try await row in rows.decode((Int64, String, String, String, String?, Int64?, Int64, String, String).self) {
                last = row.0
                operations.append(
                    SyncOperation(
                        id: row.1, domain: row.2, key: row.3, json: row.4, expiresAt: row.5, hlc: row.6, node: row.7, actor: row.8))
            }
        } catch {
            throw Self.failure(error)
        }
        return (operations, last)
    }

    /// Pushes operations in one transaction: inserts those not pushed before and updates
    /// the current state where they win. Returns the remote's last `seq` when nobody else
    /// pushed since `known` (so the pusher need not pull its own operations back), else nil.
    public func push(_ operations: [SyncOperation], known: Int64?) async throws -> Int64? {
        guard !operations.isEmpty else { return nil }
        return try await transaction { connection, logger in
            try await connection.query("SELECT pg_advisory_xact_lock(\(Self.pushLock))", logger: logger)
            let before = try await Self.maxSeq(connection, logger)
            var start = operations.startIndex
            while start < operations.endIndex {
                let end = min(start + 2_000, operations.endIndex)
                let chunk = operations[start..<end]
                start = end
                var binds = PostgresBindings(capacity: 9)
                binds.append(chunk.map(\.id))
                binds.append(chunk.map(\.domain))
                binds.append(chunk.map(\.key))
                binds.append(chunk.map { $0.json ?? "" })
                binds.append(chunk.map { $0.json == nil })
                binds.append(chunk.map { $0.expiresAt ?? -1 })
                binds.append(chunk.map(\.hlc))
                binds.append(chunk.map(\.node))
                binds.append(chunk.map(\.actor))
                let incoming = """
                    unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bool[], $6::int8[], $7::int8[], $8::text[], $9::text[])
                        WITH ORDINALITY AS t(id, domain, key, value, deleted, expires_at, hlc, node, actor, n)
                    """
                try await connection.query(
                    PostgresQuery(
                        unsafeSQL: """
                            INSERT INTO prefs_ops (op_id, domain, key, value, expires_at, hlc, node, actor)
                            SELECT t.id::uuid, t.domain, t.key, CASE WHEN t.deleted THEN NULL ELSE t.value END,
                                NULLIF(t.expires_at, -1), t.hlc, t.node, t.actor
                            FROM \(incoming) ORDER BY t.n
                            ON CONFLICT (op_id) DO NOTHING
                            """, binds: binds), logger: logger)
                try await connection.query(
                    PostgresQuery(
                        unsafeSQL: """
                            INSERT INTO prefs_state AS s (domain, key, value, expires_at, hlc, node)
                            SELECT DISTINCT ON (t.domain COLLATE "C", t.key COLLATE "C") t.domain, t.key,
                                CASE WHEN t.deleted THEN NULL ELSE t.value END, NULLIF(t.expires_at, -1), t.hlc, t.node
                            FROM \(incoming)
                            ORDER BY t.domain COLLATE "C", t.key COLLATE "C", t.hlc DESC, t.node COLLATE "C" DESC
                            ON CONFLICT (domain, key) DO UPDATE
                                SET value = excluded.value, expires_at = excluded.expires_at, hlc = excluded.hlc, node = excluded.node
                                WHERE (excluded.hlc, excluded.node) > (s.hlc, s.node)
                            """, binds: binds), logger: logger)
            }
            let after = try await Self.maxSeq(connection, logger)
            return before == known ? after : nil
        }
    }

    private static func maxSeq(_ connection: PostgresConnection, _ logger: Logger) async throws -> Int64 {
        var value: Int64 = 0
        for try await found in try await connection.query("SELECT COALESCE(max(seq), 0)::int8 FROM prefs_ops", logger: logger).decode(
            Int64.self)
        {
            value = found
        }
        return value
    }

    /// Runs `body` between BEGIN and COMMIT; when it throws, the caller closes the connection,
    /// which rolls the transaction back.
    private func transaction<T: Sendable>(_ body: @Sendable (PostgresConnection, Logger) async throws -> T) async throws -> T {
        try await run { try await self.connection.query("BEGIN", logger: self.logger) }
        let value: T
        do {
            value = try await body(connection, logger)
        } catch {
            // No ROLLBACK: a failed sync closes the connection, which ends the transaction on
            // the server; and a query sent while the connection is going away is never
            // answered (postgres-nio drops it), which would hang here.
            if let error = error as? PrefsError { throw error }
            throw Self.failure(error)
        }
        try await run { try await self.connection.query("COMMIT", logger: self.logger) }
        return value
    }

    @discardableResult
    private func run<T>(_ body: () async throws -> T) async throws -> T {
        if connection.isClosed { throw PrefsError(.unreachable, "the connection was closed") }
        do {
            return try await body()
        } catch let error as PrefsError {
            throw error
        } catch {
            throw Self.failure(error)
        }
    }

    static func failure(_ error: any Error) -> PrefsError {
        if let error = error as? PrefsError { return error }
        return PrefsError(.unreachable, describe(error))
    }

    /// A one-line cause without connection secrets or query text.
    static func describe(_ error: any Error) -> String {
        if let error = error as? PSQLError {
            if let message = error.serverInfo?[.message] {
                let state = error.serverInfo?[.sqlState].map { " (SQLSTATE \($0))" } ?? ""
                return message + state
            }
            if let underlying = error.underlying {
                return describe(underlying)
            }
            switch error.code {
            case .serverClosedConnection: return "the server closed the connection"
            case .clientClosedConnection: return "the connection was closed"
            case .sslUnsupported: return "the server does not support TLS"
            case .authMechanismRequiresPassword: return "the server wants a password: set PGPASSWORD or add it to ~/.pgpass"
            case .connectionError: return "connection failed"
            default: return "\(error.code)"
            }
        }
        if let error = error as? IOError {
            return String(cString: strerror(error.errnoCode)).lowercased()
        }
        if let error = error as? NIOConnectionError {
            if let first = error.connectionErrors.first { return describe(first.error) }
            if let dns = error.dnsAAAAError ?? error.dnsAError { return "cannot resolve \(error.host): \(dns)" }
            return "cannot connect to \(error.host):\(error.port)"
        }
        if error is ChannelError {
            if case ChannelError.connectTimeout = error { return "timed out connecting" }
            return "connection failed (\(error))"
        }
        let text = "\(error)"
        return text.split(separator: "\n").first.map(String.init) ?? text
    }
}
