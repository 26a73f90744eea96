import Dispatch
import Glibc
import Synchronization

/// Wakes a watcher when another process (or this one) may have committed to the store: the
/// file system tells (inotify on the store's directory, for the store file and its `-wal`),
/// where inotify is unavailable a timer does (every ``pollInterval``, 100 ms unless told). A wake-up is a hint:
/// the caller then reads the store (the change log, ``LogPoller``) to see what changed.
/// Nothing wakes while nothing changes.
///
/// ```swift
/// let monitor = try stack.changeMonitor()
/// var poller = try LogPoller(stack)
/// while true {
///     let page = try poller.poll()
///     for record in page.records { print(record.key) }
///     if page.caughtUp { _ = monitor.wait() }
/// }
/// ```
///
/// The directory is watched rather than the `-wal` itself: a checkpoint by the last process
/// to close the store deletes the `-wal`, and the next writer makes a new one. A commit's
/// last write to the `-wal` comes before SQLite publishes the commit (after its `fsync`), so
/// after each event the monitor wakes its waiter a few more times (1 ms, 2 ms, 4 ms, … up to
/// about a second later) to read again; then it sleeps until the next event.
///
/// Other directories can be watched too (``init(storePath:pollInterval:environment:alsoWatching:)``:
/// a stack's project and system layer files): a change of an entry there wakes the waiter
/// as a commit does. A directory that does not exist is watched from the first wait after it
/// appears.
///
/// `PREFS_WATCH=poll` in the environment selects the timer; `PREFS_WATCH=inotify` refuses
/// to fall back to it. One waiter at a time: `wait(timeout:)` or ``next(timeout:)``.
public final class StoreChangeMonitor: Sendable {
    /// How a monitor learns of changes.
    public enum Mechanism: String, Sendable {
        /// inotify on the store's directory: no wake-up while nothing changes.
        case inotify
        /// A timer every ``StoreChangeMonitor/pollInterval``.
        case polling
    }

    /// Why a wait ended.
    public enum Wake: Sendable, Equatable {
        /// The store may have changed: read it.
        case changed
        /// The timeout passed without a sign of a change.
        case timedOut
        /// ``StoreChangeMonitor/cancel()`` was called (or the waiting task was cancelled).
        case cancelled
        /// The descriptor passed to ``StoreChangeMonitor/wait(timeout:orReadable:)`` can be read.
        case readable
    }

    /// How often a polling monitor (or one whose store directory does not exist yet) wakes.
    public let pollInterval: Duration

    /// The pauses after an event at which the waiter is woken again to read the store once
    /// more (the commit may be published only after its last write to the `-wal`).
    static let settleSteps: [Duration] = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512].map { .milliseconds($0) }

    private static let eventMask: UInt32 =
        UInt32(IN_MODIFY) | UInt32(IN_CLOSE_WRITE) | UInt32(IN_CREATE) | UInt32(IN_DELETE) | UInt32(IN_MOVED_FROM)
        | UInt32(IN_MOVED_TO) | UInt32(IN_ATTRIB) | UInt32(IN_DELETE_SELF) | UInt32(IN_MOVE_SELF) | UInt32(IN_ONLYDIR)

    /// How this monitor learns of changes.
    public let mechanism: Mechanism
    /// The store's path as given: when it is (or goes through) a symbolic link, the file it
    /// names now is watched, looked up again before every wait.
    private let storePath: String
    /// The directory of ``storePath`` as given and its last component: watched too, so a
    /// symbolic link pointed elsewhere (`ln -sfn b.db link.db`, a rename over the link) wakes
    /// the waiter. The same directory as the store's when the path is no link.
    private let link: (directory: String, name: String)
    /// Other directories watched, each with the one entry name that matters (nil: any).
    private let extras: [(directory: String, name: String?)]
    /// The inotify descriptor (-1 when polling).
    private let inotify: Int32
    /// A pipe that ``cancel()`` writes to: (read end, write end).
    private let cancelPipe: (read: Int32, write: Int32)
    private let state: Mutex<State>
    /// Runs the waits of ``next(timeout:)`` (one at a time, off the cooperative pool).
    private let queue = DispatchQueue(label: "prefs.store-change-monitor")

    private struct State {
        /// The store file watched: ``storePath`` with symbolic links resolved.
        var target: String
        /// The directory of ``target``, watched.
        var directory: String
        /// The names in ``directory`` whose changes wake the waiter: the store, its `-wal` and `-journal`.
        var names: Set<String>
        /// The watch descriptor of ``directory``, -1 when it is not watched (yet, or any more).
        var watch: Int32 = -1
        /// The watch descriptor of the link's directory (the same as ``watch`` when it is the
        /// same directory), -1 when it is not watched.
        var linkWatch: Int32 = -1
        /// The next of ``settleSteps`` and when it is due, while settling after an event.
        var settle: (step: Int, at: ContinuousClock.Instant)?
        /// The watch descriptor of each of ``StoreChangeMonitor/extras``, -1 when it is not watched.
        var extraWatches: [Int32] = []
    }

    /// Watches the store at `storePath` (which need not exist yet). Changes committed after
    /// this call wake the next wait (as does one whose commit was under way during it: the
    /// monitor starts as though an event had just happened).
    ///
    /// - Parameters:
    ///   - storePath: the store file.
    ///   - pollInterval: how often to look where inotify is not used.
    ///   - environment: where `PREFS_WATCH` is read.
    ///   - alsoWatching: other directories whose entries wake the waiter, each with the one
    ///     entry name that matters (nil: any).
    /// - Throws: `PrefsError`: `usage` for a `PREFS_WATCH` other than `poll`, `inotify` or
    ///   `auto`; `storeUnreadable` when `PREFS_WATCH=inotify` and inotify cannot be used, or
    ///   when no pipe can be made.
    public init(
        storePath: String, pollInterval: Duration = .milliseconds(100), environment: [String: String] = ProcessEnvironment.current(),
        alsoWatching: [(directory: String, name: String?)] = []
    ) throws {
        self.pollInterval = max(pollInterval, .milliseconds(1))
        self.extras = alsoWatching
        self.storePath = storePath
        let resolved = StoreLocation.resolvingSymbolicLinks(storePath)
        let linkParent = PathText.deletingLastComponent(storePath)
        link = (linkParent.isEmpty ? "." : linkParent, PathText.lastComponent(storePath))
        let requested = environment["PREFS_WATCH"] ?? "auto"
        guard ["auto", "poll", "inotify", ""].contains(requested) else {
            throw PrefsError(.usage, "PREFS_WATCH must be auto, inotify or poll, not \(requested)")
        }
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else {
            throw PrefsError(.storeUnreadable, "cannot watch \(resolved): \(String(cString: strerror(errno)))")
        }
        for fd in fds {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }
        cancelPipe = (fds[0], fds[1])
        var initial = State(target: resolved, directory: "", names: [])
        Self.aim(&initial, at: resolved)
        initial.settle = (0, ContinuousClock.now + Self.settleSteps[0])
        let descriptor = requested == "poll" ? -1 : inotify_init1(Int32(IN_NONBLOCK) | Int32(IN_CLOEXEC))
        if descriptor >= 0 {
            mechanism = .inotify
            initial.watch = inotify_add_watch(descriptor, initial.directory, Self.eventMask)
            initial.linkWatch = inotify_add_watch(descriptor, link.directory, Self.eventMask)
            initial.extraWatches = alsoWatching.map { inotify_add_watch(descriptor, $0.directory, Self.eventMask) }
        } else {
            if requested == "inotify" {
                let reason = String(cString: strerror(errno))
                Glibc.close(fds[0])
                Glibc.close(fds[1])
                throw PrefsError(.storeUnreadable, "cannot watch \(resolved) with inotify (PREFS_WATCH=inotify): \(reason)")
            }
            mechanism = .polling
        }
        inotify = descriptor
        state = Mutex(initial)
    }

    deinit {
        if inotify >= 0 { Glibc.close(inotify) }
        Glibc.close(cancelPipe.read)
        Glibc.close(cancelPipe.write)
    }

    /// Blocks until the store may have changed, `timeout` passes (nil: no limit),
    /// ``cancel()`` is called or `descriptor` (a socket, say) can be read.
    public func wait(timeout: Duration? = nil, orReadable descriptor: Int32? = nil) -> Wake {
        let clock = ContinuousClock()
        let deadline = timeout.map { clock.now + max($0, .zero) }
        while true {
            var limit = deadline
            var pollingSlice = false
            if mechanism == .polling {
                pollingSlice = true
            } else {
                // A link pointed at another file: a new store to read (and to watch).
                if followLink() { return .changed }
                switch ensureWatch() {
                case .watching: break
                case .rewatched: return .changed  // changes while unwatched are not known
                case .missing: pollingSlice = true
                }
            }
            if pollingSlice { limit = Self.earlier(limit, clock.now + pollInterval) }
            let settleAt = state.withLock { $0.settle?.at }
            limit = Self.earlier(limit, settleAt)
            var descriptors = [pollfd(fd: cancelPipe.read, events: Int16(POLLIN), revents: 0)]
            if inotify >= 0 { descriptors.append(pollfd(fd: inotify, events: Int16(POLLIN), revents: 0)) }
            if let descriptor { descriptors.append(pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)) }
            let milliseconds = limit.map { Self.milliseconds(until: $0, now: clock.now) } ?? -1
            let ready = poll(&descriptors, nfds_t(descriptors.count), milliseconds)
            if ready < 0 {
                if errno == EINTR { continue }
                return .changed  // cannot wait: let the caller read (and come back)
            }
            if descriptors[0].revents != 0 {
                drain(cancelPipe.read)
                return .cancelled
            }
            if descriptor != nil && descriptors[descriptors.count - 1].revents != 0 { return .readable }
            if inotify >= 0 && descriptors[1].revents != 0 {
                if readEvents() {
                    state.withLock { $0.settle = (0, clock.now + Self.settleSteps[0]) }
                    return .changed
                }
                continue
            }
            let now = clock.now
            let settled = state.withLock { current -> Bool in
                guard let settle = current.settle, settle.at <= now else { return false }
                let next = settle.step + 1
                current.settle = next < Self.settleSteps.count ? (next, now + Self.settleSteps[next]) : nil
                return true
            }
            if settled || pollingSlice { return .changed }
            if let deadline, now >= deadline { return .timedOut }
        }
    }

    /// `wait(timeout:)` for async code, on a thread of the monitor's own (not the
    /// cooperative pool's); cancelling the task ends it with ``Wake/cancelled``.
    public func next(timeout: Duration? = nil) async -> Wake {
        if Task.isCancelled { return .cancelled }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                queue.async { continuation.resume(returning: self.wait(timeout: timeout)) }
            }
        } onCancel: {
            cancel()
        }
    }

    /// Ends the current wait with ``Wake/cancelled`` (or the next one, when none is running).
    public func cancel() {
        var byte: UInt8 = 1
        _ = Glibc.write(cancelPipe.write, &byte, 1)
    }

    // MARK: - inotify

    private enum WatchState {
        case watching
        case rewatched
        case missing
    }

    /// Points `state` at the store file `target` (links resolved): its directory and names.
    private static func aim(_ state: inout State, at target: String) {
        let parent = PathText.deletingLastComponent(target)
        let base = PathText.lastComponent(target)
        state.target = target
        state.directory = parent.isEmpty ? "." : parent
        state.names = [base, base + "-wal", base + "-journal"]
    }

    /// Looks up the file ``storePath`` names now; when a symbolic link on the way points
    /// elsewhere than before, watches that file's directory instead. Whether it changed.
    private func followLink() -> Bool {
        let resolved = StoreLocation.resolvingSymbolicLinks(storePath)
        return state.withLock { current in
            guard resolved != current.target else { return false }
            let previous = current.directory
            Self.aim(&current, at: resolved)
            if current.directory != previous {
                // The link's directory keeps its own watch (the same descriptor when it is
                // the same directory).
                if current.watch >= 0 && current.watch != current.linkWatch && !current.extraWatches.contains(current.watch) {
                    _ = inotify_rm_watch(inotify, current.watch)
                }
                current.watch = -1
            }
            return true
        }
    }

    /// Watches the directories again when they were removed or moved (or did not exist yet).
    private func ensureWatch() -> WatchState {
        state.withLock { current in
            var rewatched = false
            for index in current.extraWatches.indices where current.extraWatches[index] < 0 {
                current.extraWatches[index] = inotify_add_watch(inotify, extras[index].directory, Self.eventMask)
                if current.extraWatches[index] >= 0 { rewatched = true }
            }
            if current.linkWatch < 0 {
                current.linkWatch = inotify_add_watch(inotify, link.directory, Self.eventMask)
                if current.linkWatch >= 0 { rewatched = true }
            }
            if current.watch < 0 {
                let watch = inotify_add_watch(inotify, current.directory, Self.eventMask)
                guard watch >= 0 else { return .missing }
                current.watch = watch
                rewatched = true
            }
            return rewatched ? .rewatched : .watching
        }
    }

    /// Reads every queued event; whether one concerns the store (or the watch was lost).
    private func readEvents() -> Bool {
        var relevant = false
        let headerSize = MemoryLayout<inotify_event>.size
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(inotify, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return relevant }
            buffer.withUnsafeBytes { bytes in
                var offset = 0
                while offset + headerSize <= count {
                    let watch = bytes.loadUnaligned(fromByteOffset: offset, as: Int32.self)
                    let mask = bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
                    let length = Int(bytes.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                    let nameBytes = bytes[(offset + headerSize)..<min(offset + headerSize + length, count)]
                    offset += headerSize + length
                    if mask & UInt32(IN_Q_OVERFLOW) != 0 || watch < 0 {
                        relevant = true
                        continue
                    }
                    if mask & (UInt32(IN_IGNORED) | UInt32(IN_DELETE_SELF) | UInt32(IN_MOVE_SELF) | UInt32(IN_UNMOUNT)) != 0 {
                        // The directory went away (or moved): watch whatever is at its path next.
                        state.withLock { current in
                            if current.watch == watch || current.linkWatch == watch || current.extraWatches.contains(watch) {
                                if mask & UInt32(IN_IGNORED) == 0 { _ = inotify_rm_watch(inotify, watch) }
                                if current.watch == watch { current.watch = -1 }
                                if current.linkWatch == watch { current.linkWatch = -1 }
                                for index in current.extraWatches.indices where current.extraWatches[index] == watch {
                                    current.extraWatches[index] = -1
                                }
                            }
                        }
                        relevant = true
                        continue
                    }
                    let name = String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
                    if name == link.name || state.withLock({ $0.names.contains(name) }) { relevant = true }
                    if !extras.isEmpty {
                        let watches = state.withLock { $0.extraWatches }
                        for (index, extra) in extras.enumerated() where watches[index] == watch && (extra.name == nil || extra.name == name)
                        {
                            relevant = true
                        }
                    }
                }
            }
        }
    }

    private func drain(_ fd: Int32) {
        var bytes = [UInt8](repeating: 0, count: 64)
        while bytes.withUnsafeMutableBytes({ Glibc.read(fd, $0.baseAddress, $0.count) }) > 0 {}
    }

    private static func earlier(_ a: ContinuousClock.Instant?, _ b: ContinuousClock.Instant?) -> ContinuousClock.Instant? {
        guard let a else { return b }
        guard let b else { return a }
        return min(a, b)
    }

    /// Whole milliseconds from `now` to `instant`, rounded up (0 when past), for poll(2).
    private static func milliseconds(until instant: ContinuousClock.Instant, now: ContinuousClock.Instant) -> Int32 {
        let left = instant - now
        guard left > .zero else { return 0 }
        let (seconds, attoseconds) = left.components
        let total = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(clamping: total)
    }
}
