import Foundation
import PrefsCore
import Synchronization

/// What one sync did.
public struct SyncReport: Sendable, Equatable {
    /// Operations pulled from other stores.
    public var pulled = 0
    /// Pulled operations that changed a key here (the others lost to a newer write).
    public var applied = 0
    /// Pulled operations skipped because a local write would refuse them.
    public var skipped = 0
    /// Operations pushed.
    public var pushed = 0
    /// Operations still pending afterwards (written while the sync ran).
    public var pending = 0
    /// The remote sequence number pulled up to.
    public var remoteSeq: Int64 = 0

    /// The report as one JSON object.
    public var json: String {
        #"{"pulled":\#(pulled),"applied":\#(applied),"skipped":\#(skipped),"pushed":\#(pushed),"pending":\#(pending),"remoteSeq":\#(remoteSeq)}"#
    }
}

extension KeyValueStack {
    /// Syncs with the remote PostgreSQL database: pulls the operations other stores pushed
    /// since the last sync and applies those that win (last writer wins by hybrid logical
    /// clock timestamp, then node id), then pushes this store's pending operations in one
    /// transaction. Queued writes are flushed first.
    ///
    /// Offline first: when the remote cannot be reached, or fails during the sync, nothing
    /// local is lost — what was pulled stays applied, pending operations stay pending, and
    /// the next sync completes. Pushing an operation twice is harmless.
    ///
    /// ```swift
    /// let report = try await stack.sync()
    /// print(report.pushed, report.pending)
    /// ```
    /// - Parameters:
    ///   - domains: sync only these domains (each must be synced); nil for all.
    ///   - timeout: the whole sync's time limit.
    ///   - environment: where `PGPASSWORD`, `PGPASSFILE` and `HOME` are read.
    /// - Throws: ``PrefsError``: `unreachable` (the message ends with the pending count),
    ///   `usage` when no remote is set or a domain is not synced, `storeUnreadable` for a
    ///   newer remote schema, `cannotWrite` for the local store.
    @discardableResult
    public func sync(
        domains: Set<Domain>? = nil, timeout: Duration = .seconds(30),
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) async throws -> SyncReport {
        try await flush()
        guard let remote = try syncStatus().remote else {
            throw PrefsError(.usage, "no remote set (prefs remote set postgres://USER@HOST:PORT/DB)")
        }
        for domain in domains ?? [] where !remote.syncs(domain) {
            throw PrefsError(.usage, "domain \(domain.name) is not synced (see prefs remote show)")
        }
        do {
            var report = try await withDeadline(timeout) { session in
                let connection = try await PostgresRemote.connect(remote.url, environment: environment, timeout: timeout)
                await session.hold(connection)
                do {
                    let report = try await self.exchange(connection, domains: domains)
                    await connection.close()
                    return report
                } catch {
                    await connection.close()
                    throw error
                }
            }
            report.pending = try syncStatus().pending
            return report
        } catch let error as PrefsError where error.kind == .unreachable {
            try? recordSyncFailure(error.message)
            let pending = (try? syncStatus().pending) ?? 0
            throw PrefsError(
                .unreachable,
                "sync: \(error.message); \(pending) operation\(pending == 1 ? "" : "s") pending, local data kept")
        }
    }

    private func exchange(_ remote: PostgresRemote, domains: Set<Domain>?) async throws -> SyncReport {
        try await remote.migrate()
        var report = SyncReport()
        let status = try syncStatus()
        let node = status.node
        var last = status.lastRemoteSeq
        let batch = 5_000
        while true {
            let (operations, through) = try await remote.pull(after: last, limit: batch)
            if operations.isEmpty { break }
            // This node's own operations are applied too, under the same rule: normally they
            // lose to (or tie with) what the store already has, but a store restored from a
            // backup gets its own later writes back this way.
            let wanted = operations.filter { operation in
                domains.map { $0.contains { $0.name == operation.domain } } ?? true
            }
            report.pulled += wanted.filter { $0.node != node }.count
            let outcome = try applyRemoteOperationsCounting(wanted, through: domains == nil ? through : nil, in: domains)
            report.applied += outcome.applied
            report.skipped += outcome.skipped
            last = through
            // A short batch may only have reached the byte budget: read on until nothing is left.
        }
        let pending = try pendingSyncOperations(in: domains)
        let remoteSeq = try await remote.push(pending, known: domains == nil ? last : nil)
        try acknowledgeSyncPush(through: pending.last?.localSeq ?? 0, in: domains, remoteSeq: remoteSeq)
        report.pushed = pending.count
        report.remoteSeq = remoteSeq ?? last
        return report
    }
}

/// Holds the connection so a deadline can close it.
actor SyncSession {
    private var connection: PostgresRemote?
    private var expired = false

    func hold(_ connection: PostgresRemote) async {
        self.connection = connection
        if expired { await connection.close() }
    }

    func expire() async {
        expired = true
        await connection?.close()
    }
}

/// Runs `body`; after `timeout`, fails with a timeout and closes its connection. The caller
/// is answered at the deadline even when the work is stuck in an await that ignores
/// cancellation (a server that stopped answering, a query the client library dropped).
func withDeadline<T: Sendable>(_ timeout: Duration, _ body: @escaping @Sendable (SyncSession) async throws -> T) async throws -> T {
    let session = SyncSession()
    let gate = Gate<T>()
    return try await withCheckedThrowingContinuation { continuation in
        gate.open(continuation)
        let work = Task {
            do { gate.resume(.success(try await body(session))) } catch { gate.resume(.failure(error)) }
        }
        let watchdog = Task {
            try await Task.sleep(for: timeout)
            gate.resume(.failure(PrefsError(.unreachable, "timed out after \(timeout.shortText)")))
            await session.expire()
            work.cancel()
        }
        gate.onResume { watchdog.cancel() }
    }
}

/// Resumes a continuation once, whoever comes first.
final class Gate<T: Sendable>: Sendable {
    private let state = Mutex<(continuation: CheckedContinuation<T, any Error>?, done: (@Sendable () -> Void)?)>((nil, nil))

    func open(_ continuation: CheckedContinuation<T, any Error>) {
        state.withLock { $0.continuation = continuation }
    }

    func onResume(_ action: @escaping @Sendable () -> Void) {
        let finished = state.withLock { value -> Bool in
            if value.continuation == nil { return true }
            value.done = action
            return false
        }
        if finished { action() }
    }

    func resume(_ result: Result<T, any Error>) {
        let taken = state.withLock { value -> (CheckedContinuation<T, any Error>, (@Sendable () -> Void)?)? in
            guard let continuation = value.continuation else { return nil }
            value.continuation = nil
            return (continuation, value.done)
        }
        guard let (continuation, done) = taken else { return }
        continuation.resume(with: result)
        done?()
    }
}

extension Duration {
    var shortText: String {
        let seconds = Double(components.seconds) + Double(components.attoseconds) / 1e18
        return seconds == seconds.rounded() ? "\(Int(seconds))s" : String(format: "%.1fs", seconds)
    }
}
