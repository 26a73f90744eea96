import Foundation
import PrefsCore
import PrefsTestSupport
import Testing

/// Reliability: crashes, concurrency, full disks, damaged stores, doctor and backup.
@Suite("torture", .tags(.slow), .enabled(if: SlowTests.enabled, SlowTests.reason), .timeLimit(.minutes(20)), .ownThreads)
struct TortureTests {
    func integrity(_ path: String) throws -> String {
        try DatabaseQueue(path: path).read { try String.fetchAll($0, sql: "PRAGMA integrity_check").joined(separator: ";") }
    }

    /// Runs `prefs set user probe VALUE` on the sandbox's store and kills it with SIGKILL after
    /// `seconds` unless it has ended: a kill at a chosen moment of a migration it starts.
    static func setProbe(_ box: Sandbox, _ value: String, killedAfter seconds: Double) throws {
        let process = SpawnedProcess()
        process.executableURL = URL(fileURLWithPath: Sandbox.binary)
        process.environment = box.environment()
        process.arguments = ["--store", box.store, "set", "user", "probe", value]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        Thread.sleep(forTimeInterval: seconds)
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    @Test func killNineDuringBatchImportAndApplyLosesNothingAcknowledged() throws {
        let box = try Sandbox()
        try box.runOK(["set", "user", "seed", "0"])
        var generator = SystemRandomNumberGenerator()
        var killed = 0
        for iteration in 0..<51 {
            let process = SpawnedProcess()
            process.executableURL = URL(fileURLWithPath: Sandbox.binary)
            process.environment = box.environment()
            let input = Pipe()
            let output = Pipe()
            process.standardInput = input
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            let kind = iteration % 3
            var payload = ""
            switch kind {
            case 0:
                process.arguments = ["--store", box.store, "batch", "--window", "2ms"]
                payload = (0..<3000).map { "set b\(iteration) k\($0) \($0)" }.joined(separator: "\n") + "\n"
            case 1:
                process.arguments = ["--store", box.store, "import", "--replace", "-"]
                let keys = (0..<3000).map { "\"k\($0)\":\(iteration)" }.joined(separator: ",")
                payload = "{\"imp\":{\(keys)}}"
            default:
                process.arguments = ["--store", box.store, "apply", "-"]
                payload =
                    "["
                    + (0..<500).map { "{\"op\":\"set\",\"domain\":\"ap\",\"key\":\"k\($0)\",\"value\":\(iteration)}" }.joined(
                        separator: ",") + "]"
            }
            try process.run()
            let collected = LinesCollector(output.fileHandleForReading)
            let bytes = Data(payload.utf8)
            let writer = Thread {
                try? input.fileHandleForWriting.write(contentsOf: bytes)  // EPIPE when the process is killed first
                try? input.fileHandleForWriting.close()
            }
            writer.start()
            Thread.sleep(forTimeInterval: Double(UInt64.random(in: 2...40, using: &generator)) / 1000)
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                killed += 1
            }
            process.waitUntilExit()
            let lines = collected.finish()
            #expect(try integrity(box.store) == "ok", "iteration \(iteration)")
            switch kind {
            case 0:
                let through = lines.compactMap { Int($0.split(separator: ":").last?.dropLast() ?? "") }.max() ?? 0
                let stored = try DatabaseQueue(path: box.store).read { db -> Int in
                    try Int.fetchOne(db, sql: "SELECT count(*) FROM kv__custom WHERE domain = ?", arguments: ["b\(iteration)"]) ?? 0
                }
                #expect(stored >= through, "iteration \(iteration): every line up to \(through) is stored")
            case 1:
                let values = try DatabaseQueue(path: box.store).read { db -> Set<String> in
                    Set(try String.fetchAll(db, sql: "SELECT value FROM kv__custom WHERE domain = 'imp'"))
                }
                #expect(values.count <= 1, "iteration \(iteration): an import is all or nothing, saw \(values)")
                if process.terminationStatus == 0 { #expect(values == ["\(iteration)"]) }
            default:
                let values = try DatabaseQueue(path: box.store).read { db -> [String] in
                    try String.fetchAll(db, sql: "SELECT value FROM kv__custom WHERE domain = 'ap'")
                }
                #expect(
                    Set(values).count <= 1 && (values.isEmpty || values.count == 500), "iteration \(iteration): apply is all or nothing")
                if process.terminationStatus == 0 { #expect(Set(values) == ["\(iteration)"]) }
            }
        }
        #expect(killed >= 15, "many iterations were killed mid-way (\(killed) of 51)")
    }

    @Test func readersDuringHeavyWritesNeverSeeAnErrorOrATornValue() throws {
        let box = try Sandbox()
        try box.runOK(["set", "user", "doc", "{\"n\":0,\"pad\":\"\(String(repeating: "x", count: 5000))\"}"])
        let writer = SpawnedProcess()
        writer.executableURL = URL(fileURLWithPath: "/bin/sh")
        writer.arguments = [
            "-c",
            "i=0; while [ $i -lt 300 ]; do echo \"set user doc {\\\"n\\\":$i,\\\"pad\\\":\\\"$(printf '%05000d' 0)\\\"}\"; i=$((i+1)); done | \"$0\" --store \"$1\" batch --window 1ms",
            Sandbox.binary, box.store,
        ]
        writer.environment = box.environment()
        writer.standardOutput = FileHandle.nullDevice
        try writer.run()
        var reads = 0
        while writer.isRunning || reads < 20 {
            let result = try box.runOK(["get", "user", "doc"])
            #expect(result.status == 0, "\(result.stderr)")
            let parsed = try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
            #expect((parsed?["pad"] as? String)?.count == 5000, "a whole value every time")
            reads += 1
            if reads > 400 { break }
        }
        writer.waitUntilExit()
        #expect(writer.terminationStatus == 0)
    }

    @Test func aFullDiskIsExitFourAndTheStoreStaysIntact() throws {
        let box = try Sandbox()
        try box.runOK(["set", "user", "small", "1"])
        let big = "\"" + String(repeating: "z", count: 4_000_000) + "\""
        let script = "trap '' XFSZ; ulimit -f 512; exec \"$0\" --store \"$1\" set user big -"
        let full = try Sandbox.exec(
            "/bin/sh", ["-c", script, Sandbox.binary, box.store], stdin: Array(big.utf8), environment: box.environment())
        expectFailure(full, 4)
        #expect(try integrity(box.store) == "ok")
        #expect(try box.runOK(["get", "user", "small"]).stdout == "1\n")
        expectFailure(try box.runFailing(["get", "user", "big"], status: 1), 1)
        #expect(try box.runOK(["set", "user", "big", "-"], stdin: big).status == 0, "writing works again once space returns")
    }

    @Test func doctorReportsHealthAndDamage() throws {
        let box = try Sandbox()
        try box.runOK(["set", "user", "a", "1", "--ttl", "1s"])
        let healthy = try box.runOK(["doctor"])
        #expect(healthy.status == 0, "\(healthy)")
        #expect(healthy.stdout.contains("ok\tintegrity\tPRAGMA integrity_check: ok"))
        #expect(healthy.stdout.contains("ok\tschema\tschema version 5"))
        chmod(box.store, 0o644)
        #expect(try box.runOK(["doctor"]).stdout.contains("warning\tpermissions\tstore file"))
        Thread.sleep(forTimeInterval: 1.1)
        #expect(try box.runOK(["doctor", "--json"]).stdout.contains("\"message\":\"1 expired key(s)"))
        // A memory file whose store is gone.
        let other = box.root + "/gone/prefs.db"
        try box.runOK(["--store", other, "set", "memory", "m", "1"], store: false)
        try box.runOK(["--store", other, "set", "user", "u", "1"], store: false)
        try FileManager.default.removeItem(atPath: box.root + "/gone")
        // Another store's file concerns that store: listed with --all only (issue 38).
        let own = try box.runOK(["doctor"])
        #expect(!own.stdout.contains("orphaned") && !own.stdout.contains("/gone/"), "\(own)")
        #expect(own.stdout.contains("ok\tmemory\tno memory-tier file in \(box.runtime)/prefs\n"), "\(own)")
        let all = try box.runOK(["doctor", "--all"])
        #expect(
            all.stdout.contains("warning\tmemory-other\torphaned memory-tier file ") && all.stdout.contains("/gone/prefs.db is gone)"),
            "\(all)")
        try box.runOK(["set", "memory", "m", "1"])
        #expect(try box.runOK(["doctor"]).stdout.contains("ok\tmemory\tmemory-tier file \(box.runtime)/prefs/memory-"))
        // Damage.
        try DatabaseQueue(path: box.store).writeWithoutTransaction { _ = try $0.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: box.store)))
        for i in 4096..<min(bytes.count, 12288) { bytes[i] = 0x5A }
        try Data(bytes).write(to: URL(fileURLWithPath: box.store))
        let damaged = try box.runFailing(["doctor"], status: 3)
        #expect(damaged.status == 3, "\(damaged)")
    }

    @Test func backupIsConsistentWhileOthersWrite() throws {
        let box = try Sandbox()
        try box.runOK(["set", "user", "seed", "1"])
        let writer = SpawnedProcess()
        writer.executableURL = URL(fileURLWithPath: "/bin/sh")
        writer.arguments = [
            "-c", "i=0; while [ $i -lt 20000 ]; do echo \"set user k$i $i\"; i=$((i+1)); done | \"$0\" --store \"$1\" batch --window 1ms",
            Sandbox.binary, box.store,
        ]
        writer.environment = box.environment()
        writer.standardOutput = FileHandle.nullDevice
        try writer.run()
        Thread.sleep(forTimeInterval: 0.2)
        let file = box.root + "/backup.db"
        let result = try box.runOK(["backup", file])
        #expect(result.status == 0, "\(result)")
        writer.waitUntilExit()
        #expect(try integrity(file) == "ok")
        #expect(try box.runOK(["--store", file, "get", "user", "seed"], store: false).stdout == "1\n")
        #expect(try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int == 0o600)
        expectFailure(try box.runFailing(["backup", file], status: 4), 4, contains: "--force")
        try box.runOK(["backup", file, "--force"])
        #expect(try box.runOK(["--store", file, "list", "user", "--keys-only"], store: false).stdout.split(separator: "\n").count == 20001)
    }

    /// The move of custom domains to one shared table (schema version 4) is one transaction:
    /// `prefs` killed at any point of migrating a store of 1,500 custom domains leaves the
    /// version 3 store as it was (or the migrated one), and the next run has every row —
    /// value, version, times, expiry — and every change-log record.
    @Test func killNineDuringTheMigrationOfManyDomainsLosesNothing() async throws {
        let box = try Sandbox()
        let template = box.root + "/v3.db"
        try makeFixtureStore("schema-3", at: template)
        func trigger(_ name: String, _ event: String, _ values: String) -> String {
            """
            CREATE TRIGGER "kv_\(name)_log_\(event.lowercased())" AFTER \(event) ON "kv_\(name)" BEGIN INSERT INTO changelog \
            (at, domain, key, op, old, new, actor) SELECT \(values), actor FROM write_context; END;
            """
        }
        var sql = "BEGIN;"
        for index in 0..<1_500 {
            let name = "app\(index)"
            sql += """
                CREATE TABLE "kv_\(name)" (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL, version INTEGER NOT NULL, \
                updated_at INTEGER NOT NULL, expires_at INTEGER) WITHOUT ROWID;
                \(trigger(name, "INSERT", "new.updated_at, '\(name)', new.key, op, NULL, new.value"))
                \(trigger(name, "UPDATE", "new.updated_at, '\(name)', new.key, op, old.value, new.value"))
                \(trigger(name, "DELETE", "CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER), '\(name)', old.key, op, old.value, NULL"))
                CREATE INDEX "kv_\(name)_expiry" ON "kv_\(name)" (expires_at) WHERE expires_at IS NOT NULL;
                INSERT INTO domains VALUES ('\(name)', \(index));
                INSERT INTO "kv_\(name)" VALUES ('theme', '"dark-\(index)"', \(index + 1), \(1000 + index), NULL);
                INSERT INTO "kv_\(name)" VALUES ('until', '\(index)', 7, 8, 4102444800000);
                INSERT INTO changelog (at, domain, key, op, old, new, actor) VALUES (\(index), '\(name)', 'theme', 'set', NULL, '"dark-\(index)"', 'a');

                """
        }
        sql += "COMMIT;"
        let queue = try DatabaseQueue(path: template)
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: sql)
            _ = try String.fetchAll(db, sql: "PRAGMA wal_checkpoint(TRUNCATE)")
        }
        // What version 3 holds: every custom domain's rows, and the log.
        let rows = try queue.read { db -> [String] in
            var result: [String] = []
            for name in try String.fetchAll(
                db, sql: "SELECT name FROM domains WHERE name NOT IN ('default', 'dynamic', 'switch', 'user') ORDER BY name")
            {
                for row in try Row.fetchAll(db, sql: "SELECT key, value, version, updated_at, expires_at FROM \"kv_\(name)\" ORDER BY key")
                {
                    result.append("\(name) \(row)")
                }
            }
            return result
        }
        let logSQL = "SELECT seq, at, domain, key, op, old, new, actor FROM changelog WHERE seq <= 3003 ORDER BY seq"
        let log = try queue.read { try Row.fetchAll($0, sql: logSQL).map(\.description) }
        try queue.close()
        #expect(rows.count == 3_002 && log.count == 3_003, "\(rows.count) rows, \(log.count) records")

        // Two lanes, each with a store of its own, share the eight kills: the test takes half
        // the time (each kill is a migration of 1,500 domains, seconds in a debug build). The
        // uninterrupted migration the kills fall within is timed with both lanes migrating,
        // as they are while they kill.
        let lanes = [box, try Sandbox()]
        @Sendable func fresh(_ box: Sandbox) throws {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: box.store + suffix) }
            try FileManager.default.createDirectory(
                atPath: (box.store as NSString).deletingLastPathComponent, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
            try FileManager.default.copyItem(atPath: template, toPath: box.store)
        }
        // How long an uninterrupted migration takes: the kills fall within it.
        let took = try await withThrowingTaskGroup(of: Double.self) { group in
            for lane in lanes {
                group.addTask {
                    try fresh(lane)
                    let started = Date()
                    try lane.runOK(["set", "user", "probe", "0"])
                    return max(Date().timeIntervalSince(started), 0.02)
                }
            }
            return try await group.reduce(0, max)
        }
        let interrupted = try await withThrowingTaskGroup(of: Int.self) { group in
            for (first, box) in lanes.enumerated() {
                group.addTask {
                    var generator = SystemRandomNumberGenerator()
                    var interrupted = 0
                    for iteration in stride(from: first, to: 8, by: lanes.count) {
                        try fresh(box)
                        try Self.setProbe(box, "\(iteration)", killedAfter: took * Double.random(in: 0.05...1.1, using: &generator))
                        #expect(try integrity(box.store) == "ok", "iteration \(iteration)")
                        let (version, legacyTables, shared) = try DatabaseQueue(path: box.store).read { db in
                            (
                                try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0,
                                try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name GLOB 'kv_app*'")
                                    ?? 0,
                                try db.tableExists("kv__custom")
                            )
                        }
                        // All or nothing: version 3 with its 1,500 tables, or version 5 (through 4) with none.
                        #expect(
                            (version == 3 && legacyTables == 1_500 && !shared) || (version == 5 && legacyTables == 0 && shared),
                            "iteration \(iteration): version \(version), \(legacyTables) tables, shared \(shared)")
                        if version == 3 { interrupted += 1 }
                        let get = try box.runOK(["get", "app1499", "theme"])
                        #expect(get.stdout == "dark-1499\n", "iteration \(iteration): \(get)")
                        let moved = try DatabaseQueue(path: box.store).read { db in
                            try Row.fetchAll(
                                db, sql: "SELECT domain, key, value, version, updated_at, expires_at FROM kv__custom ORDER BY domain, key"
                            )
                            .map { row in
                                "\(try row[0] as String) [key:\(row.values[1]) value:\(row.values[2]) version:\(row.values[3]) updated_at:\(row.values[4]) expires_at:\(row.values[5])]"
                            }
                        }
                        #expect(moved == rows, "iteration \(iteration): \(moved.count) rows, each as version 3 held it")
                        let kept = try DatabaseQueue(path: box.store).read { try Row.fetchAll($0, sql: logSQL).map(\.description) }
                        #expect(kept == log, "iteration \(iteration): the log records are kept")
                    }
                    return interrupted
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(interrupted >= 1, "some kills fell before the migration committed (\(interrupted) of 8)")
    }

    /// Schema 5 takes the change log's 15 triggers out of the store's schema in one
    /// transaction: `prefs` killed at any point of migrating a version 4 store of 1,500 custom
    /// domains leaves version 4 as it was (its triggers too) or version 5 without them, every
    /// row, version, expiry and log record kept, and the next write logged once.
    @Test func killNineDuringTheMigrationToSchemaFiveLosesNothing() throws {
        let box = try Sandbox()
        let template = box.root + "/v4.db"
        try makeFixtureStore("schema-4", at: template)
        // Written through version 4's own triggers: every row has its log record.
        var sql = "BEGIN; UPDATE write_context SET op = 'import', actor = 'torture';"
        for index in 0..<1_500 {
            sql += """
                INSERT INTO domains VALUES ('app\(index)', \(index));
                INSERT INTO kv__custom VALUES ('app\(index)', 'theme', '"dark-\(index)"', \(index + 1), \(1000 + index), NULL);
                INSERT INTO kv__custom VALUES ('app\(index)', 'until', '\(index)', 7, 8, 4102444800000);

                """
        }
        sql += "COMMIT;"
        let queue = try DatabaseQueue(path: template)
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: sql)
            _ = try String.fetchAll(db, sql: "PRAGMA wal_checkpoint(TRUNCATE)")
        }
        let rowsSQL = "SELECT domain, key, value, version, updated_at, expires_at FROM kv__custom ORDER BY domain, key"
        let logSQL = "SELECT seq, at, domain, key, op, old, new, actor FROM changelog ORDER BY seq"
        let (rows, log) = try queue.read { db in
            (try Row.fetchAll(db, sql: rowsSQL).map(\.description), try Row.fetchAll(db, sql: logSQL).map(\.description))
        }
        try queue.close()
        #expect(rows.count == 3_002 && log.count == 3_003, "\(rows.count) rows, \(log.count) records")

        func fresh() throws {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: box.store + suffix) }
            try FileManager.default.copyItem(atPath: template, toPath: box.store)
        }
        try FileManager.default.createDirectory(
            atPath: (box.store as NSString).deletingLastPathComponent, withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        // How long an uninterrupted run that migrates takes: the kills fall within it.
        try fresh()
        let started = Date()
        try box.runOK(["set", "user", "probe", "0"])
        let took = max(Date().timeIntervalSince(started), 0.02)
        var generator = SystemRandomNumberGenerator()
        var interrupted = 0
        let rounds = 16
        for round in 0..<rounds {
            try fresh()
            // Spread over the run: from its start to a little after its usual end.
            try Self.setProbe(
                box, "\(round)", killedAfter: took * (Double(round) + Double.random(in: 0...1, using: &generator)) / Double(rounds) * 1.1)
            #expect(try integrity(box.store) == "ok", "round \(round)")
            let (version, meta, triggers, context) = try DatabaseQueue(path: box.store).read { db in
                (
                    try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0,
                    try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'schema_version'") ?? "",
                    try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master WHERE type = 'trigger'") ?? -1,
                    try String.fetchOne(db, sql: "SELECT name FROM sqlite_master WHERE name IN ('write_context', 'log_context')") ?? ""
                )
            }
            // All or nothing: version 4 with its 15 triggers and `write_context`, or version 5
            // with none and `log_context` (which a prefs of version 4 still running cannot use).
            #expect(
                (version == 4 && meta == "4" && triggers == 15 && context == "write_context")
                    || (version == 5 && meta == "5" && triggers == 0 && context == "log_context"),
                "round \(round): version \(version) (meta \(meta)), \(triggers) triggers, \(context)")
            if version == 4 { interrupted += 1 }
            let get = try box.runOK(["get", "app1499", "theme"])
            #expect(get.stdout == "dark-1499\n", "round \(round): \(get)")
            let (kept, keptLog, migrated) = try DatabaseQueue(path: box.store).read { db in
                (
                    try Row.fetchAll(db, sql: rowsSQL).map(\.description),
                    try Row.fetchAll(db, sql: logSQL).map(\.description),
                    try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
                )
            }
            #expect(kept == rows, "round \(round): \(kept.count) rows, each as version 4 held it")
            // The log as version 4 held it, then the probe's record when the killed run committed.
            #expect(
                Array(keptLog.prefix(log.count)) == log && keptLog.count - log.count <= 1, "round \(round): the log records are kept")
            #expect(migrated == 5, "round \(round): the get migrated what the kill left")
            // A write after it is logged, once.
            try box.runOK(["--actor", "after", "set", "app7", "theme", "light"])
            let logged = try DatabaseQueue(path: box.store).read { db in
                try Int.fetchOne(
                    db,
                    sql: """
                        SELECT count(*) FROM changelog WHERE domain = 'app7' AND key = 'theme' AND op = 'set' \
                        AND old = '"dark-7"' AND new = '"light"' AND actor = 'after'
                        """) ?? 0
            }
            #expect(logged == 1, "round \(round): the write after the migration has \(logged) log records")
        }
        #expect(interrupted >= 1, "some kills fell before the migration committed (\(interrupted) of \(rounds))")
    }

}
