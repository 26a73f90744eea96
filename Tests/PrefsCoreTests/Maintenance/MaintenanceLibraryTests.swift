import Foundation
import PrefsCore
import PrefsTestSupport
import Testing

/// Opening older stores, backup and restore, export and import, and doctor, through the
/// library (issue 39: behaviour the CLI tests reached only through the binary).
@Suite("maintenance through the library", .timeLimit(.minutes(5)))
struct MaintenanceLibraryTests {
    /// A store written by an older prefs (the schema fixtures the CLI tests restore), made at
    /// `path` the way that prefs left it: WAL mode, private.
    static func makeFixtureStore(_ name: String, at path: String) throws {
        let sql = try String(contentsOfFile: repositoryRoot + "/Tests/PrefsCLITests/Fixtures/\(name).sql", encoding: .utf8)
        let queue = try DatabaseQueue(path: path)
        try queue.writeWithoutTransaction { db in
            _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: sql)
        }
        try queue.close()
        try #require(chmod(path, 0o600) == 0)
    }

    /// Opening a store of schema 1, 2, 3 or 4 moves it to schema 5 with its rows, versions and
    /// expiry, no trigger left in its schema, the next write logged once, and doctor finds
    /// nothing wrong with the result.
    @Test(arguments: ["schema-1", "schema-2", "schema-3", "schema-4"])
    func openingAnOlderStoreMigratesIt(_ fixture: String) throws {
        let store = try TemporaryStore()
        try Self.makeFixtureStore(fixture, at: store.path)
        let stack = try store.open()
        let count = try #require(try stack.entry(in: "legacy", forKey: "count"))
        #expect(count.json == "41" && count.updatedAt == 1_763_683_200_000, "\(count)")
        #expect(try stack.domains().contains("legacy"))
        try stack.set(.number("42"), in: "legacy", forKey: "count")
        try stack.flushSynchronously()
        let after = try #require(try stack.entry(in: "legacy", forKey: "count"))
        #expect(after.json == "42" && after.version > count.version, "\(count) → \(after)")
        let (version, triggers, logged) = try DatabaseQueue(path: store.path).read { db in
            (
                try Int.fetchOne(db, sql: "PRAGMA user_version"),
                try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master WHERE type = 'trigger'"),
                try Int.fetchOne(
                    db, sql: "SELECT count(*) FROM changelog WHERE domain = 'legacy' AND key = 'count' AND old = '41' AND new = '42'")
            )
        }
        #expect(
            version == 5 && triggers == 0 && logged == 1,
            "version \(String(describing: version)), \(String(describing: triggers)) triggers, \(String(describing: logged)) records")
        let findings = try stack.maintenance.doctor(environment: ["XDG_RUNTIME_DIR": store.directory])
        #expect(!findings.contains { $0.level == .error }, "\(findings.map(\.json))")
        #expect(findings.contains { $0.check == "objects" && $0.level == .ok }, "\(findings.map(\.json))")
    }

    /// A prefs of schema 4 still running when a newer one migrates the store (a `serve` or
    /// `sync --watch` started before an upgrade) names its op in `write_context` before every
    /// write: the migration renames that table, so the old writer's next write fails instead
    /// of changing keys that no change-log record (and so no watcher or sync) would ever show.
    @Test func aWriterOfSchemaFourStillRunningFailsAfterTheMigration() throws {
        let store = try TemporaryStore()
        try Self.makeFixtureStore("schema-4", at: store.path)
        let old = try DatabaseQueue(path: store.path)
        try old.writeWithoutTransaction { db in
            try db.execute(sql: "UPDATE write_context SET op = 'set', actor = 'old'")
        }
        let stack = try store.open()
        try stack.set(.number("42"), in: "legacy", forKey: "count")
        try stack.flushSynchronously()
        #expect(throws: (any Error).self) {
            try old.writeWithoutTransaction { db in
                try db.execute(sql: "UPDATE write_context SET op = 'set', actor = 'old'")
            }
        }
    }

    /// A backup holds the store as it was; restoring it brings those values back, reports what
    /// it restores before the store changes, and refuses to replace keys without `overwrite`.
    @Test func backupThenRestoreBringsTheValuesBack() throws {
        let store = try TemporaryStore()
        let stack = try store.open()
        try stack.set(.string("dark"), in: "user", forKey: "theme")
        try stack.set(.number("3"), in: "mailapp", forKey: "retries")
        try stack.flushSynchronously()
        let backup = store.directory + "/backup.db"
        try stack.maintenance.backup(to: backup)
        #expect(throws: PrefsError.self) { try stack.maintenance.backup(to: backup) }

        try stack.set(.string("light"), in: "user", forKey: "theme")
        _ = try stack.removeDomain("mailapp")
        try stack.flushSynchronously()
        #expect {
            try stack.maintenance.restore(from: backup)
        } throws: { error in
            (error as? PrefsError)?.kind == .cannotWrite
        }
        #expect(try stack.value(in: "user", forKey: "theme") == .string("light"), "a refused restore changes nothing")

        var reports: [RestoreReport] = []
        try stack.maintenance.restore(from: backup, overwrite: true) { reports.append($0) }
        #expect(reports.count == 1 && reports.first?.keys == 2, "\(reports.map(\.lines))")
        #expect(try stack.value(in: "user", forKey: "theme") == .string("dark"))
        #expect(try stack.value(in: "mailapp", forKey: "retries") == .number("3"))
    }

    /// Export then import into an empty store gives the same document; importing it again
    /// changes nothing, and `replace` removes what the document does not hold.
    @Test func exportThenImportIsTheSameStore() throws {
        let source = try TemporaryStore()
        let from = try source.open()
        try from.set(.string("dark"), in: "user", forKey: "theme")
        try from.set(.object([.init("depth", .number("2"))]), in: "mailapp", forKey: "layout")
        try from.set(.bool(true), in: "switch", forKey: "beta")
        try from.flushSynchronously()
        let document = try from.exportJSON()

        let target = try TemporaryStore()
        let to = try target.open()
        let plan = try to.importDocument(utf8: Array(document.utf8))
        #expect(plan.count(.add) == 3 && plan.count(.change) == 0 && plan.count(.remove) == 0, "\(plan)")
        try to.flushSynchronously()
        #expect(try to.exportJSON() == document)

        let again = try to.importDocument(utf8: Array(document.utf8), dryRun: true)
        #expect(again.changes.isEmpty && again.unchanged == 3, "\(again)")

        try to.set(.string("extra"), in: "user", forKey: "more")
        try to.flushSynchronously()
        let replaced = try to.importDocument(utf8: Array(document.utf8), replace: true)
        #expect(replaced.changes.map(\.key) == ["more"] && replaced.count(.remove) == 1, "\(replaced)")
        try to.flushSynchronously()
        #expect(try to.value(in: "user", forKey: "more") == nil)
        #expect(try to.exportJSON() == document)
    }

    /// A restore brings the backup's schema, and this stack reads it at once (its own write
    /// does not move the counter other connections' commits move).
    @Test func aRestoredSchemaIsReadAtOnce() throws {
        let store = try TemporaryStore()
        let stack = try store.open()
        try stack.loadSchema(try JSONValue(parsing: #"{"user":{"size":{"type":"integer","default":12}}}"#))
        #expect(try stack.value(in: .user, forKey: "size") == .number("12"))
        let backup = store.directory + "/backup.db"
        try stack.maintenance.backup(to: backup)
        try stack.loadSchema(try JSONValue(parsing: #"{"user":{"size":{"type":"integer","default":14}}}"#))
        #expect(try stack.value(in: .user, forKey: "size") == .number("14"))
        try stack.maintenance.restore(from: backup, overwrite: true)
        #expect(try stack.value(in: .user, forKey: "size") == .number("12"))
        #expect(try stack.schema().spec(in: .user, forKey: "size")?.defaultValue == .number("12"))
    }
}
