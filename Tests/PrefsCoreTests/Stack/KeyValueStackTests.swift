import Foundation
import PrefsCore
import Testing

@Suite("KeyValueStack", .timeLimit(.minutes(5)))
struct KeyValueStackTests {
    struct Window: Codable, Equatable {
        var width: Int
        var title: String
        var ratio: Double
    }

    @Test func readingAMissingStoreCreatesNothing() throws {
        let store = try TemporaryStore()
        let stack = try store.open()
        #expect(try stack.value(in: .user, forKey: "k") == nil)
        #expect(try stack.entries().isEmpty)
        #expect(try stack.exportJSON() == "{}")
        #expect(try stack.remove(in: .user, keys: ["k"]).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: store.path))
    }

    @Test func typedValuesRoundTrip() throws {
        let store = try TemporaryStore()
        let stack = try store.open()
        let window = Window(width: 800, title: "Ünïcode / ✓", ratio: 0.1)
        try stack.set(window, in: .user, forKey: "window")
        #expect(try stack.value(Window.self, in: .user, forKey: "window") == window)
        try stack.set(true, in: .user, forKey: "flag")
        #expect(try stack.value(Bool.self, in: .user, forKey: "flag") == true)
        try stack.set("a/b", in: .default, forKey: "path")
        #expect(try stack.value(in: .default, forKey: "path") == .string("a/b"))
        #expect(try stack.value(String.self, in: .user, forKey: "missing") == nil)
        #expect(throws: PrefsError.self) { try stack.value(Int.self, in: .user, forKey: "window") }
    }

    @Test func valuesThatCannotBeEncodedAreErrors() throws {
        let store = try TemporaryStore()
        let stack = try store.open()
        do {
            try stack.set(Double.nan, in: .user, forKey: "nan")
            Issue.record("NaN was accepted")
        } catch let error as PrefsError {
            #expect(error.kind == .invalidValue)
        }
        #expect(try stack.value(in: .user, forKey: "nan") == nil)
    }

    @Test func versionsIncreaseAndPreconditionsHold() throws {
        let store = try TemporaryStore()
        let stack = try store.open()
        let first = try stack.set(.number("1"), in: .user, forKey: "k", if: .absent)
        #expect(first > 0)
        try stack.set(.number("2"), in: .user, forKey: "k")
        try stack.flushSynchronously()
        let second = try #require(try stack.entry(in: .user, forKey: "k")?.version)
        #expect(second > first)
        #expect(
            throws: PrefsError(
                .preconditionFailed, "user/k is at version \(second), not \(first)", reason: .versionConflict(current: second),
                domain: .user,
                key: "k")
        ) {
            try stack.set(.number("3"), in: .user, forKey: "k", if: .version(first))
        }
        #expect(try stack.set(.number("3"), in: .user, forKey: "k", if: .value(.number("2"))) > second)
        #expect(throws: PrefsError.self) { try stack.set(.null, in: .user, forKey: "k", if: .absent) }
        #expect(try stack.value(in: .user, forKey: "k") == .number("3"))
    }

    @Test func customDomainsAndListing() throws {
        let store = try TemporaryStore()
        let stack = try store.open()
        let custom = Domain("ci-cache")
        try stack.set(.string("x"), in: custom, forKey: "b")
        try stack.set(.string("y"), in: custom, forKey: "a")
        try stack.set(.string("z"), in: .user, forKey: "c")
        #expect(try stack.domains().map(\.name) == ["ci-cache", "default", "dynamic", "memory", "switch", "user"])
        #expect(try stack.entries().map { "\($0.domain)/\($0.key)" } == ["ci-cache/a", "ci-cache/b", "user/c"])
        #expect(try stack.entries(in: custom, prefix: "b").map(\.key) == ["b"])
        #expect(try stack.entries(in: Domain("nothing")).isEmpty)
    }

    @Test func removeIsAllOrNothingWithMustExist() throws {
        let store = try TemporaryStore()
        let stack = try store.open()
        for key in ["a", "b", "p.1", "p.2", "q"] { try stack.set(.bool(true), in: .user, forKey: key) }
        #expect(throws: PrefsError(.notFound, "user/zz not found", domain: .user, key: "zz")) {
            try stack.remove(in: .user, keys: ["a", "zz"], mustExist: true)
        }
        #expect(try stack.value(in: .user, forKey: "a") != nil)
        #expect(try stack.remove(in: .user, keys: ["a", "zz"]) == ["a"])
        #expect(try stack.remove(in: .user, prefix: "p.") == 2)
        #expect(try stack.entries(in: .user).map(\.key) == ["b", "q"])
    }

    @Test func importExportRoundTrip() throws {
        let source = try TemporaryStore()
        let stack = try source.open()
        try stack.set(try JSONValue(parsing: "{\"n\":0.1,\"big\":123456789012345678901}"), in: .switch, forKey: "cfg")
        try stack.set(.string("héllo"), in: Domain("zeta"), forKey: "k")
        try stack.set(.string("ram"), in: .memory, forKey: "m")
        let exported = try stack.exportJSON()
        #expect(exported == "{\"switch\":{\"cfg\":{\"n\":0.1,\"big\":123456789012345678901}},\"zeta\":{\"k\":\"héllo\"}}")
        let target = try TemporaryStore()
        let other = try target.open()
        let plan = try other.importDocument(try JSONValue(parsing: exported))
        #expect(plan.count(.add) == 2)
        #expect(try other.exportJSON() == exported)
        #expect(try other.importDocument(try JSONValue(parsing: exported)).changes.isEmpty)
    }

    /// The text import (member by member, values copied without their whitespace where that
    /// is their compact form) must store exactly what importing the parsed document stores.
    @Test(arguments: [
        #"{"user":{"a":1,"b":"x"}}"#,
        #"{ "user" : { "b" : { "y" : [ 1 , 2.50 , true , null ] , "x" : { } } , "a" : [ ] } }"#,
        #"{"user":{"k":"\u00e9\/\n","\u006b2":"tab\there","k3":{"\"q\"":1}}}"#,
        #"{"user":{"a":1,"b":2,"a":3},"zeta":{"z":1,"y":2,"z":{"n":1,"n":2}}}"#,
        #"{"user":{"k":"é日本🎉","l":{"ü":"ß"}}}"#,
        #"{"user":{"big":{"m00":0,"m01":1,"m02":2,"m03":3,"m04":4,"m05":5,"m06":6,"m07":7,"m08":8,"m09":9,"m10":10,"m11":11,"m12":12,"m13":13,"m14":14,"m15":15,"m16":16,"m17":17,"m18":18,"m19":19,"m20":20,"m21":21,"m22":22,"m23":23,"m24":24,"m25":25,"m26":26,"m27":27,"m28":28,"m29":29,"m30":30,"m31":31,"m32":32,"m00":"again"}}}"#,
        "{\"user\":{\"del\":\"a\u{7F}b\",\"n\":-0.0e+5}}",
        #"{"user":{"b":1,"a":2,"c":3,"a":4},"default":{}}"#,
    ])
    func importTextMatchesImportOfParsedDocument(document: String) throws {
        let streamed = try TemporaryStore()
        let parsed = try TemporaryStore()
        let a = try streamed.open()
        let b = try parsed.open()
        let planA = try a.importDocument(utf8: Array(document.utf8))
        let planB = try b.importDocument(try JSONValue(parsing: document, wrappingLevels: 2))
        #expect(planA == planB)
        #expect(try a.exportJSON() == b.exportJSON())
        #expect(try a.importDocument(utf8: Array(document.utf8)).changes.isEmpty)
    }

    /// A domain's bulk writer never serves another domain, even when a removal in the next
    /// domain comes between their sets.
    @Test func bulkSetsAfterARemovalInTheNextDomain() throws {
        let store = try TemporaryStore()
        let stack = try store.open()
        let other = Domain("aaa")
        try stack.set(.number("0"), in: .user, forKey: "a")
        try stack.flushSynchronously()
        let plan = try stack.importDocument(utf8: Array(#"{"aaa":{"k1":1},"user":{"b":2}}"#.utf8), replace: true)
        #expect(plan.changes.map { "\($0.action) \($0.domain.name)/\($0.key)" } == ["add aaa/k1", "remove user/a", "add user/b"])
        #expect(try stack.entries(in: other).map { "\($0.key)=\($0.json)" } == ["k1=1"])
        #expect(try stack.entries(in: .user).map { "\($0.key)=\($0.json)" } == ["b=2"])
        // The same order through the write queue.
        try stack.set(.number("3"), in: other, forKey: "k2")
        try stack.remove(in: .user, keys: ["b"])
        try stack.set(.number("4"), in: .user, forKey: "c")
        try stack.flushSynchronously()
        #expect(try stack.entries(in: other).map { "\($0.key)=\($0.json)" } == ["k1=1", "k2=3"])
        #expect(try stack.entries(in: .user).map { "\($0.key)=\($0.json)" } == ["c=4"])
    }

    /// Bulk rows are written 16 per statement: rows left over at a change of domain, at the
    /// end of the unlogged head and at the end must all be written, logged exactly as before.
    @Test func bulkWritesAcrossDomainsAndTheUnloggedHead() throws {
        let store = try TemporaryStore()
        let stack = try store.open()
        try stack.setLogRetention(20)
        let keys = (0..<37).map { "k" + String($0 + 100) }
        let zeta = Domain("aaa")
        let document =
            "{\"aaa\":{" + keys.map { "\"\($0)\":[\"\($0)\"]" }.joined(separator: ",") + "},\"user\":{"
            + keys.map { "\"\($0)\":{\"v\":\"\($0)\"}" }.joined(separator: ",") + "}}"
        let plan = try stack.importDocument(utf8: Array(document.utf8))
        #expect(plan.count(.add) == 74)
        #expect(try stack.entries(in: zeta).map(\.json) == keys.map { "[\"\($0)\"]" })
        #expect(try stack.entries(in: .user).map(\.json) == keys.map { "{\"v\":\"\($0)\"}" })
        // 74 sets, a log of 20: the last 20 (user k117...k136) are logged, in order.
        let log = try stack.history().reversed().map { "\($0.op) \($0.domain.name)/\($0.key) \($0.new ?? "-")" }
        #expect(log == keys[17...].map { "import user/\($0) {\"v\":\"\($0)\"}" })
        // A queued flush mixing bulk sets with a removal keeps the order and the ops.
        for key in keys.prefix(20) { try stack.set(.string("n" + key), in: .user, forKey: key) }
        try stack.remove(in: .user, keys: ["k120"])
        try stack.set(.string("last"), in: .user, forKey: "k121")
        try stack.flushSynchronously()
        // 22 records, the log keeps the last 20.
        let recent = try stack.history().reversed().map { "\($0.op) \($0.key) \($0.new ?? "-")" }
        #expect(recent == keys[2..<20].map { "set \($0) \"n\($0)\"" } + ["rm k120 -", "set k121 \"last\""])
        #expect(try stack.entries(in: .user).count == 36)
    }

    @Test func importTextRejectsBadValues() throws {
        let store = try TemporaryStore()
        let stack = try store.open()
        // Invalid UTF-8 inside a value, a nested object left open, a bad number: nothing is written.
        for bytes in [
            Array(#"{"user":{"a":1,"b":{"s":""#.utf8) + [0xFF] + Array(#""}}}"#.utf8),
            Array(#"{"user":{"a":{"x":1}"#.utf8),
            Array(#"{"user":{"a":01}}"#.utf8),
        ] {
            #expect(throws: PrefsError.self) { try stack.importDocument(utf8: bytes) }
            do {
                try stack.importDocument(utf8: bytes)
            } catch let error as PrefsError {
                #expect(error.kind == .invalidValue)
            }
        }
        #expect(try stack.exportJSON() == "{}")
    }

    @Test func inProcessMemoryNeverTouchesDisk() throws {
        let store = try TemporaryStore()
        let stack = try store.open()
        try stack.set(.number("1"), in: .memory, forKey: "m")
        #expect(try stack.value(in: .memory, forKey: "m") == .number("1"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.directory).isEmpty)
        let second = try store.open()
        #expect(try second.value(in: .memory, forKey: "m") == nil, "in-process memory is private to its stack")
    }

    @Test func sharedMemoryIsSharedBetweenStacksOfOneStore() throws {
        let store = try TemporaryStore()
        try store.open(memoryTier: .shared).set(.string("v"), in: .memory, forKey: "k")
        #expect(try store.open(memoryTier: .shared).value(in: .memory, forKey: "k") == .string("v"))
        #expect(!FileManager.default.fileExists(atPath: store.path))
        #expect(FileManager.default.fileExists(atPath: store.directory + "/prefs"))
    }

    @Test func newerSchemaIsRefusedAndUntouched() throws {
        let store = try TemporaryStore()
        try store.open().set(.null, in: .user, forKey: "k")
        try DatabaseQueue(path: store.path).writeWithoutTransaction { try $0.execute(sql: "PRAGMA user_version = 99") }
        let before = try Data(contentsOf: URL(fileURLWithPath: store.path))
        let stack = try store.open()
        do {
            _ = try stack.value(in: .user, forKey: "k")
            Issue.record("a newer store was read")
        } catch let error as PrefsError {
            #expect(error.kind == .storeUnreadable)
        }
        #expect(throws: PrefsError.self) { try stack.set(.null, in: .user, forKey: "x") }
        #expect(try Data(contentsOf: URL(fileURLWithPath: store.path)) == before)
    }

    @Test func metadataTableHoldsSchemaVersionAndStoreID() throws {
        let store = try TemporaryStore()
        try store.open().set(.null, in: .user, forKey: "k")
        let meta = try DatabaseQueue(path: store.path).read { db in
            try Dictionary(
                uniqueKeysWithValues: Row.fetchAll(db, sql: "SELECT key, value FROM meta").map {
                    (try $0[0] as String, try $0[1] as String)
                })
        }
        #expect(meta["schema_version"] == "5")
        #expect(meta["store_id"]?.count == 36)
        let version = try DatabaseQueue(path: store.path).read { try Int.fetchOne($0, sql: "PRAGMA user_version") }
        #expect(version == 5, "migrations are tracked by user_version")
    }

    @Test func aVersionOneStoreIsMigratedWithItsDataKept() throws {
        // A store exactly as schema v1 left it.
        let store = try TemporaryStore()
        let old = try DatabaseQueue(path: store.path)
        try old.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(
                sql: """
                    CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
                    INSERT INTO grdb_migrations VALUES ('v1');
                    CREATE TABLE meta (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL) WITHOUT ROWID;
                    INSERT INTO meta VALUES ('schema_version', '1'), ('store_id', 'x'), ('kind', 'store');
                    CREATE TABLE domains (name TEXT PRIMARY KEY NOT NULL, created_at INTEGER NOT NULL) WITHOUT ROWID;
                    """)
            for name in ["default", "dynamic", "switch", "user", "custom"] {
                try db.execute(
                    sql: """
                        CREATE TABLE "kv_\(name)" (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL, version INTEGER NOT NULL,
                            updated_at INTEGER NOT NULL, expires_at INTEGER) WITHOUT ROWID;
                        INSERT INTO domains VALUES ('\(name)', 0);
                        """)
            }
            try db.execute(sql: "INSERT INTO kv_custom VALUES ('k', '\"kept\"', 3, 0, NULL)")
            try db.execute(sql: "PRAGMA application_id = 1886545523; PRAGMA user_version = 1")
        }
        try old.close()
        let stack = try store.open()
        #expect(try stack.value(in: Domain("custom"), forKey: "k") == .string("kept"))
        try stack.set(.string("new"), in: Domain("custom"), forKey: "k")
        try stack.flushSynchronously()
        let log = try DatabaseQueue(path: store.path).read { db in
            try Row.fetchAll(db, sql: "SELECT op, old, new FROM changelog").map {
                try "\($0[0] as String) \($0[1] as String) \($0[2] as String)"
            }
        }
        #expect(log == ["set \"kept\" \"new\""])
        #expect(try stack.entry(in: Domain("custom"), forKey: "k")?.version ?? 0 > 3)
    }

    @Test func getCostDoesNotGrowWithTheStore() throws {
        // The get path must use the primary-key index: check SQLite's plan, not a timer.
        let store = try TemporaryStore()
        try store.open().set(.null, in: .user, forKey: "k")
        let plan = try DatabaseQueue(path: store.path).read { db in
            try Row.fetchAll(
                db, sql: "EXPLAIN QUERY PLAN SELECT value FROM kv_user WHERE key = ? AND (expires_at IS NULL OR expires_at > ?)",
                arguments: ["k", 0]
            )
            .map { try $0["detail"] as String }
        }
        #expect(plan.count == 1 && plan[0].contains("USING PRIMARY KEY"), "\(plan)")
        let prefixPlan = try DatabaseQueue(path: store.path).read { db in
            try Row.fetchAll(
                db, sql: "EXPLAIN QUERY PLAN SELECT key FROM kv_user WHERE key >= ? AND key < ? ORDER BY key", arguments: ["a", "b"]
            )
            .map { try $0["detail"] as String }
        }
        #expect(prefixPlan.joined().contains("PRIMARY KEY (key>? AND key<?)"), "\(prefixPlan)")
    }
}
