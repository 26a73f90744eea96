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
}
