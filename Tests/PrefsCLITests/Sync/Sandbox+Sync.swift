import Foundation
import PrefsCore
import PrefsSync
import Testing

/// Sync through the library in this test process (`StoreSync.run` and `compactRemote`, what
/// the `prefs-sync` helper runs), for tests whose subject is what a sync does to stores and
/// to the server: convergence, conflicts, the snapshot, the horizon, offline first. What
/// belongs to the helper's process stays with tests that run `prefs sync`: its printed
/// report and messages, exit codes, libpq's environment (PG* variables, service and password
/// files), `--watch` and its signals, a store file replaced under a running sync.
extension Sandbox {
    /// Opens the store as the helper does (the program options with the sandbox's
    /// environment: the shared memory tier under its runtime directory).
    func openStack() throws -> KeyValueStack {
        try KeyValueStack(path: store, options: .commandLine(environment: environment()))
    }

    /// Syncs the store (only `domains` when given) and returns what the sync did.
    @discardableResult
    func syncInProcess(domains: Set<Domain>? = nil, timeout: Duration = .seconds(30)) throws -> SyncReport {
        let stack = try openStack()
        defer { try? stack.close() }
        return try stack.sync.run(domains: domains, timeout: timeout)
    }

    /// A sync of the store that must fail: the error, whose kind gives the exit code
    /// `prefs sync` ends with (``PrefsError/exitCode``) and whose message is what it prints
    /// after `prefs: `.
    func syncFailure(
        domains: Set<Domain>? = nil, timeout: Duration = .seconds(30), sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> PrefsError {
        try #require(throws: PrefsError.self, sourceLocation: sourceLocation) { try self.syncInProcess(domains: domains, timeout: timeout) }
    }

    /// Compacts the store's remote with `horizonSeconds` (`prefs sync --compact --horizon`).
    @discardableResult
    func compactRemote(horizonSeconds: Int64) throws -> PostgresRemote.Compaction {
        let stack = try openStack()
        defer { try? stack.close() }
        return try stack.sync.compactRemote(horizonSeconds: horizonSeconds)
    }

    /// `prefs sync --status` (with `extra`, e.g. `--json`), expected to exit 0: run in this
    /// process in an in-process sandbox (it reads the store and starts no helper; `sync` is
    /// otherwise in ``binaryOnly``), else in the binary.
    @discardableResult
    func syncStatus(_ extra: [String] = [], sourceLocation: SourceLocation = #_sourceLocation) throws -> RunResult {
        guard inProcess else { return try runOK(["sync", "--status"] + extra, sourceLocation: sourceLocation) }
        let result = Sandbox.runInProcess(["--store", store, "sync", "--status"] + extra, stdin: nil, environment: environment())
        #expect(result.status == 0, "prefs sync --status: \(result)", sourceLocation: sourceLocation)
        return result
    }
}
