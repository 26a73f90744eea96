import FoundationEssentials
import Glibc
import PrefsCore

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
    /// Whether the current state was loaded from the remote's snapshot (a new store, or one
    /// whose cursor the log's horizon passed) instead of the log.
    public var snapshot = false
    /// Local keys removed because the snapshot no longer holds them (deletes compacted away).
    public var forgotten = 0

    /// The report as one JSON object.
    public var json: String {
        #"{"pulled":\#(pulled),"applied":\#(applied),"skipped":\#(skipped),"pushed":\#(pushed),"pending":\#(pending),"remoteSeq":\#(remoteSeq),"snapshot":\#(snapshot)}"#
    }
}

extension StoreSync {
    /// Syncs with the remote PostgreSQL database: pulls what other stores pushed since the
    /// last sync and applies what wins (last writer wins by hybrid logical clock timestamp,
    /// then node id), then pushes this store's pending operations in one transaction. Queued
    /// writes are flushed first.
    ///
    /// A new store, or one whose cursor is older than the log's horizon (the operations it
    /// missed were compacted away), loads the remote's current state (the snapshot) instead,
    /// then the log after it; keys it had synced that the snapshot no longer holds are
    /// removed (their deletes were compacted), unless they have pending writes, which are
    /// pushed after, under the same last-writer-wins rule.
    ///
    /// Offline first: when the remote cannot be reached, or fails during the sync, nothing
    /// local is lost — what was pulled stays applied, pending operations stay pending, and
    /// the next sync completes. Pushing an operation twice is harmless.
    ///
    /// libpq reads the connection string with the `PG*` environment variables, the service
    /// file and the password file (`PGPASSWORD`, `PGPASSFILE`, `~/.pgpass`).
    ///
    /// ```swift
    /// let report = try stack.sync.run()
    /// print(report.pushed, report.pending)
    /// ```
    /// - Parameters:
    ///   - domains: sync only these domains (each must be synced); nil for all.
    ///   - timeout: the whole sync's time limit.
    /// - Throws: ``PrefsError``: `unreachable` (the message ends with the pending count),
    ///   `usage` when no remote is set or a domain is not synced, `storeUnreadable` for a
    ///   newer remote schema or a store file replaced (renamed over), moved or removed during
    ///   the sync (nothing more is written to it), `cannotWrite` for the local store.
    @discardableResult
    public func run(domains: Set<Domain>? = nil, timeout: Duration = .seconds(30)) throws -> SyncReport {
        try withRemote(domains: domains, timeout: timeout) { remote in
            try self.exchange(remote, domains: domains)
        }
    }

    /// Compacts the remote's log: removes the operations pushed longer ago than the horizon
    /// and the tombstones they set (stores whose cursor is older load the snapshot on their
    /// next sync). With `horizonSeconds`, that horizon becomes the remote's automatic one.
    ///
    /// - Throws: ``PrefsError`` as ``run(domains:timeout:)``.
    public func compactRemote(horizonSeconds: Int64?, timeout: Duration = .seconds(30)) throws -> PostgresRemote.Compaction {
        try withRemote(domains: nil, timeout: timeout) { remote in
            try remote.migrate()
            return try remote.compact(horizonSeconds: horizonSeconds) ?? PostgresRemote.Compaction()
        }
    }

    /// Connects to this store's remote and runs `body`; a failure to reach it is recorded
    /// and reported with the pending count.
    func withRemote<T>(domains: Set<Domain>?, timeout: Duration, _ body: (PostgresRemote) throws -> T) throws -> T {
        _ = try stack.flushSynchronously()
        guard let remote = try status().remote else {
            throw PrefsError(.usage, "no remote set (prefs remote set postgres://USER@HOST:PORT/DB)")
        }
        for domain in domains ?? [] where !remote.syncs(domain) {
            throw PrefsError(.usage, "domain \(domain.name) is not synced (see prefs remote show)")
        }
        do {
            let connection = try PostgresRemote.connect(remote.url, deadline: .now + timeout)
            defer { connection.close() }
            do {
                return try body(connection)
            } catch let error as PrefsError where error.kind == .unreachable && error.message == PostgresConnection.timedOut.message {
                throw PrefsError(.unreachable, "timed out after \(timeout.shortText)")
            }
        } catch let error as PrefsError where error.kind == .unreachable {
            let message = error.message == PostgresConnection.timedOut.message ? "timed out after \(timeout.shortText)" : error.message
            if !stack.storeFileWasReplaced() { try? recordFailure(message) }
            let pending = (try? status().pending) ?? 0
            throw PrefsError(
                .unreachable,
                "sync: \(message); \(pending) operation\(pending == 1 ? "" : "s") pending, local data kept")
        }
    }

    /// A store file replaced (another file renamed over it), moved or removed since it was
    /// opened is not written: the write would go to a file nobody reads, and the sync state it
    /// records (cursor, acknowledged pushes) belongs to the file now at the path. Called before
    /// each local write of a sync, which may have waited on the server since it read the file.
    func refuseReplacedStore() throws {
        guard stack.storeFileWasReplaced() else { return }
        throw PrefsError(
            .storeUnreadable,
            "sync: \(stack.path) was replaced, moved or removed during the sync; nothing more was written to it: sync again")
    }

    func exchange(_ remote: PostgresRemote, domains: Set<Domain>?) throws -> SyncReport {
        try remote.migrate()
        var report = SyncReport()
        let state = try status()
        let node = state.node
        var last = state.lastRemoteSeq
        let batch = 5_000
        let position = try remote.position()
        var needsSnapshot = last < position.compactedThrough || (last == 0 && position.hasState)
        var snapshots = 0
        func wanted(_ operations: [SyncOperation]) -> [SyncOperation] {
            guard let domains else { return operations }
            return operations.filter { operation in domains.contains { $0.name == operation.domain } }
        }
        while true {
            if needsSnapshot {
                // The log no longer holds everything after the cursor: load the current state.
                snapshots += 1
                guard snapshots <= 10 else { throw PrefsError(.unreachable, "the remote's log is compacted faster than it can be read") }
                report.snapshot = true
                var present = Set<String>()
                let through = try remote.snapshot(batch: batch) { operations in
                    try refuseReplacedStore()
                    let chosen = wanted(operations)
                    for operation in chosen { present.insert(operation.domain + "\u{0}" + operation.key) }
                    report.pulled += chosen.filter { $0.node != node }.count
                    let outcome = try applyRemoteOperationsCounting(chosen, through: nil, in: domains)
                    report.applied += outcome.applied
                    report.skipped += outcome.skipped
                }
                try refuseReplacedStore()
                report.forgotten += try forgetSyncedKeys(notIn: present, in: domains, through: domains == nil ? through : nil)
                last = through
                needsSnapshot = false
            }
            let pulled = try remote.pull(after: last, limit: batch)
            if last < pulled.compactedThrough {
                needsSnapshot = true
                continue
            }
            if pulled.operations.isEmpty { break }
            // This node's own operations are applied too, under the same rule: normally they
            // lose to (or tie with) what the store already has, but a store restored from a
            // backup gets its own later writes back this way.
            let chosen = wanted(pulled.operations)
            report.pulled += chosen.filter { $0.node != node }.count
            try refuseReplacedStore()
            let outcome = try applyRemoteOperationsCounting(chosen, through: domains == nil ? pulled.through : nil, in: domains)
            report.applied += outcome.applied
            report.skipped += outcome.skipped
            last = pulled.through
            // A short batch may only have reached the byte budget: read on until nothing is left.
        }
        let pending = try pendingOperations(in: domains)
        let remoteSeq = try remote.push(pending, known: domains == nil ? last : nil)
        // Pushed from the old file: the new file's pending operations are pushed next time
        // (pushing one twice is harmless).
        try refuseReplacedStore()
        try acknowledgePush(through: pending.last?.localSeq ?? 0, in: domains, remoteSeq: remoteSeq)
        report.pushed = pending.count
        report.remoteSeq = remoteSeq ?? last
        report.pending = try status().pending
        if !pending.isEmpty {
            // The automatic horizon: one of the pushing stores compacts now and then.
            try remote.compact(onlyIfDue: true)
        }
        return report
    }
}

extension Duration {
    var shortText: String {
        let seconds = Double(components.seconds) + Double(components.attoseconds) / 1e18
        return seconds == seconds.rounded() ? "\(Int(seconds))s" : NumberText.fixed(seconds, fractionDigits: 1) + "s"
    }
}
