import Glibc

extension StoreMaintenance {
    /// Gives the store file's free pages back to the file system while other processes may
    /// be reading and writing (SQLite's `VACUUM`), and switches a store made before
    /// incremental auto-vacuum to it, so that from then on its writes give back the pages of
    /// what they remove.
    ///
    /// The compaction is one write transaction: it waits for the write lock like any writer
    /// (the busy timeout), other writers wait for it, readers go on reading the store as it
    /// was until it commits. A write acknowledged before or after is kept; nothing is
    /// logged (no key changes).
    ///
    /// ```swift
    /// let report = try stack.maintenance.compact()
    /// print(report.bytesBefore, report.bytesAfter)
    /// ```
    /// - Returns: the file's size before and after.
    /// - Throws: `PrefsError`: `notFound` when there is no store; `cannotWrite` when it
    ///   cannot be written or the lock is not had within the busy timeout.
    public func compact() throws -> CompactReport {
        guard try stack.main.reader() != nil else { throw PrefsError(.notFound, "no store at \(stack.path) to compact") }
        try stack.flushSynchronously()
        let before = Self.fileSize(stack.path)
        let writer = try stack.main.writer()
        var switched = false
        var after = 0
        do {
            try writer.writeWithoutTransaction { db in
                // 2 = incremental. The pragma takes effect at the VACUUM that follows.
                switched = try Int.fetchOne(db, sql: "PRAGMA auto_vacuum") != 2
                if switched { try db.execute(sql: "PRAGMA auto_vacuum = INCREMENTAL") }
                try db.execute(sql: "VACUUM")
                after = try (Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0) * (Int.fetchOne(db, sql: "PRAGMA page_size") ?? 0)
                // The VACUUM wrote the whole store into the WAL: copy it back and truncate the
                // file now when no other process still reads the old pages (never waits: else
                // a later checkpoint, at the latest the last connection's close, truncates it).
                try db.execute(sql: "PRAGMA wal_checkpoint(PASSIVE)")
            }
        } catch {
            throw PrefsError.database(error, path: stack.path, writing: true)
        }
        return CompactReport(bytesBefore: before, bytesAfter: after, switchedToIncremental: switched)
    }

    /// The size of the file at `path` in bytes (0 when it cannot be read).
    static func fileSize(_ path: String) -> Int {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_size) : 0
    }
}
