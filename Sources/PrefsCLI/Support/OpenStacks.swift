import PrefsCore
import Synchronization

/// The stacks this process opened (or the in-process run under way, ``CommandContext``),
/// closed before it exits.
///
/// Closing the last connection to a store checkpoints its WAL and removes the `-wal` file, as
/// the `sqlite3` shell does. A one-shot command that exited with its connection open left
/// every page it wrote in the `-wal`; the next process, the only one with the store open,
/// rebuilt the WAL index by reading the whole file and could never start the WAL over, so it
/// grew by about three pages per command for ever (issue 29).
enum OpenStacks {
    private static let stacks = Mutex<[KeyValueStack]>([])

    /// Records `stack` to be closed by ``closeAll()``; returns it.
    static func add(_ stack: KeyValueStack) -> KeyValueStack {
        if let context = CommandContext.active {
            context.stacks.withLock { $0.append(stack) }
        } else {
            stacks.withLock { $0.append(stack) }
        }
        return stack
    }

    /// Flushes and closes every recorded stack.
    ///
    /// - Throws: the first stack's ``PrefsError`` when its final flush fails (the others are
    ///   still closed).
    static func closeAll() throws {
        let open: [KeyValueStack]
        if let context = CommandContext.active {
            open = context.stacks.withLock { current in
                defer { current = [] }
                return current
            }
        } else {
            open = stacks.withLock { current in
                defer { current = [] }
                return current
            }
        }
        var failure: (any Error)?
        for stack in open {
            do { try stack.close() } catch { failure = failure ?? error }
        }
        if let failure { throw failure }
    }
}
