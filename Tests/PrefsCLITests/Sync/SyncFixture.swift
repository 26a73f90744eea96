import Foundation
import PrefsCore
import PrefsTestSupport
import Testing

/// What the sync suites share: a PostgreSQL server, a database of the test's own on it, and
/// the stores and commands a test makes against it (``SyncTests``, ``SyncOutageTests``).
protocol SyncFixture {
    /// The server the test's database is on.
    var server: TestPostgres { get }
    /// The test's own database.
    var database: String { get }
    /// The remote URL of ``database``.
    var url: String { get }
}

extension SyncFixture {
    /// A new store with the test's remote set.
    func syncedStore(domains: String? = nil) throws -> Sandbox {
        let box = try Sandbox(inProcess: true)
        let set = try box.runOK(["remote", "set", url] + (domains.map { ["--domains", $0] } ?? []))
        #expect(set.status == 0, "\(set)")
        return box
    }

    func sync(_ box: Sandbox, _ extra: [String] = []) throws -> RunResult {
        let result = try box.runOK(["sync"] + extra)
        #expect(result.status == 0, "\(result)")
        return result
    }

    func pending(_ box: Sandbox) throws -> [Row] {
        try DatabaseQueue(path: box.store).read { db in
            try Row.fetchAll(db, sql: "SELECT op_id, domain, key, value, expires_at, hlc, node FROM sync_pending ORDER BY seq")
        }
    }

    func export(_ box: Sandbox) throws -> String {
        let result = try box.runOK(["export"])
        #expect(result.status == 0, "\(result)")
        return result.stdout
    }

    /// `prefs sync --timeout 20s` of `box` started while a psql session holds `prefs_state`'s
    /// lock (``TestPostgres/sessionHoldingTheStateLock(database:)``), returned once its push
    /// waits on that lock inside its transaction (within about 30 s; else it throws): the sync
    /// with its standard error on a pipe, and the lock's session with its input (kept open
    /// until the caller closes it).
    func syncWaitingOnTheStateLock(_ box: Sandbox) throws -> (sync: SpawnedProcess, errors: Pipe, holder: SpawnedProcess, input: FileHandle)
    {
        let (holder, input) = try server.sessionHoldingTheStateLock(database: database)
        let syncing = box.process(["sync", "--timeout", "20s"])
        let errors = Pipe()
        syncing.standardError = errors
        syncing.standardOutput = FileHandle.nullDevice
        try syncing.run()
        for _ in 0..<600 {
            let waiting = try server.psql(
                """
                SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = '\(database)' AND query LIKE 'WITH inserted AS%'
                """, database: "postgres")
            if waiting == "1\n" { return (syncing, errors, holder, input) }
            usleep(50_000)
        }
        syncing.terminate()
        holder.terminate()
        throw TestPostgresError("the push never reached its state update")
    }
}
