import FoundationEssentials
import Glibc
import PrefsCore
import PrefsSync

/// `sync --watch`: a connection LISTENs for other stores' pushes; a sync runs on a
/// notification, when local writes are pending (the store's ``StoreChangeMonitor`` wakes the
/// watcher within milliseconds of a local commit), and every `fallback` interval
/// (a pull that does not depend on notifications). When the server goes away the listener
/// reconnects with backoff (1 s doubling to 30 s) and failed syncs are retried the same way.
/// Runs until the process is signalled.
///
/// A store file replaced under the watcher (a file renamed over it: a restore by hand, a file
/// sync tool) is followed, as a restore is: on every wake, before anything is read or written,
/// the watcher asks whether the file it has open is still the one at the path; when not, it
/// says so on stderr, reopens the path, listens again (the new file may name another remote)
/// and syncs the new file at once. Its sync state (cursor, pending operations) is in the
/// file, so the new file's pending operations are pushed and what it has not pulled yet is
/// pulled; the old file's unpushed operations are gone with it. Nothing is written to the old
/// file after that wake. A store file removed or moved away with nothing left at the path
/// ends the watch with exit 3 (reopening would create an empty store there).
struct Watcher {
    let stack: KeyValueStack
    let monitor: StoreChangeMonitor
    let domains: Set<Domain>?
    let fallback: Duration
    let timeout: Duration
    let print: (SyncReport) -> String

    static let longestBackoff: Duration = .seconds(30)

    func run() -> Never {
        let clock = ContinuousClock()
        var listener: PostgresRemote?
        var reconnectAt = clock.now
        var reconnectBackoff: Duration = .seconds(1)
        var syncAt = clock.now  // the first sync at once
        var retryAt = clock.now
        var retryBackoff: Duration = .zero
        var seenSeq: Int64 = 0
        /// Whether the store file was replaced since it was opened; when it was, the next
        /// access opens the file now at the path and everything starts again for it.
        func followReplacedStore() -> Bool {
            guard stack.reopenStoreIfReplaced() else { return false }
            guard FileManager.default.fileExists(atPath: stack.path) else {
                fail("sync: \(stack.path) was moved or removed while it was synced, and nothing is at that path now", 3)
            }
            try? FileIO.write(
                STDERR_FILENO, "prefs: sync: \(stack.path) was replaced, moved or removed; syncing the file now at that path\n".utf8)
            listener?.close()
            listener = nil
            reconnectAt = clock.now
            reconnectBackoff = .seconds(1)
            seenSeq = 0
            syncAt = clock.now
            retryAt = clock.now
            retryBackoff = .zero
            return true
        }
        while true {
            _ = followReplacedStore()
            if listener == nil && clock.now >= reconnectAt {
                do {
                    guard let remote = try stack.sync.status().remote else {
                        fail("no remote set (prefs remote set postgres://USER@HOST:PORT/DB)", 2)
                    }
                    let connection = try PostgresRemote.connect(remote.url, deadline: clock.now + timeout)
                    try connection.migrate()
                    try connection.listen()
                    listener = connection
                    reconnectBackoff = .seconds(1)
                    syncAt = clock.now  // what was pushed while nobody listened
                } catch let error as PrefsError {
                    if error.kind != .unreachable { fail(error.message, error.exitCode) }
                    reconnectAt = clock.now + reconnectBackoff
                    reconnectBackoff = min(reconnectBackoff * 2, Self.longestBackoff)
                } catch {
                    fail("\(error)", 7)
                }
            }
            let pending = (try? stack.sync.status().pending) ?? 0
            if clock.now >= syncAt || (pending > 0 && clock.now >= retryAt) {
                do {
                    let report = try stack.sync.run(domains: domains, timeout: timeout)
                    seenSeq = max(seenSeq, report.remoteSeq)
                    try? FileIO.write(STDOUT_FILENO, (print(report) + "\n").utf8)
                    retryBackoff = .zero
                    retryAt = clock.now
                    syncAt = clock.now + fallback
                } catch let error as PrefsError {
                    // Replaced while it synced (the sync refuses to write the old file): say so
                    // once and sync the new one at once.
                    if followReplacedStore() { continue }
                    try? FileIO.write(STDERR_FILENO, "prefs: \(error.message)\n".utf8)
                    if error.kind != .unreachable { exit(error.exitCode) }
                    retryBackoff = min(max(retryBackoff * 2, .seconds(1)), Self.longestBackoff)
                    retryAt = clock.now + retryBackoff
                    syncAt = min(syncAt, retryAt)
                } catch {
                    fail("\(error)", 7)
                }
            }
            // Wait for a notification, a local commit, or the next sync, retry or reconnection.
            var next = syncAt
            if pending > 0 { next = min(next, retryAt) }
            if listener == nil { next = min(next, reconnectAt) }
            let wake = monitor.wait(timeout: max(next - clock.now, .zero), orReadable: listener?.socket)
            if wake == .readable, let connection = listener {
                do {
                    if let newest = try connection.receivedNotifications(), newest > seenSeq { syncAt = min(syncAt, retryAt) }
                } catch {
                    connection.close()
                    listener = nil
                    reconnectAt = clock.now + reconnectBackoff
                }
            }
        }
    }
}
