import Foundation
import PrefsCore
import PrefsTestSupport
import Testing

/// Reliability: crashes, concurrency, full disks, damaged stores, doctor and backup.
@Suite("torture", .tags(.slow))
struct TortureTests {
    func integrity(_ path: String) throws -> String {
        try DatabaseQueue(path: path).read { try String.fetchAll($0, sql: "PRAGMA integrity_check").joined(separator: ";") }
    }

    @Test func killNineDuringBatchImportAndApplyLosesNothingAcknowledged() throws {
        let box = try Sandbox()
        try box.runOK(["set", "user", "seed", "0"])
        var generator = SystemRandomNumberGenerator()
        var killed = 0
        for iteration in 0..<51 {
            let process = Process()
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
            try launch(process)
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
                    guard try db.tableExists("kv_b\(iteration)") else { return 0 }
                    return try Int.fetchOne(db, sql: "SELECT count(*) FROM \"kv_b\(iteration)\"") ?? 0
                }
                #expect(stored >= through, "iteration \(iteration): every line up to \(through) is stored")
            case 1:
                let values = try DatabaseQueue(path: box.store).read { db -> Set<String> in
                    guard try db.tableExists("kv_imp") else { return [] }
                    return Set(try String.fetchAll(db, sql: "SELECT value FROM kv_imp"))
                }
                #expect(values.count <= 1, "iteration \(iteration): an import is all or nothing, saw \(values)")
                if process.terminationStatus == 0 { #expect(values == ["\(iteration)"]) }
            default:
                let values = try DatabaseQueue(path: box.store).read { db -> [String] in
                    guard try db.tableExists("kv_ap") else { return [] }
                    return try String.fetchAll(db, sql: "SELECT value FROM kv_ap")
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
        let writer = Process()
        writer.executableURL = URL(fileURLWithPath: "/bin/sh")
        writer.arguments = [
            "-c",
            "i=0; while [ $i -lt 300 ]; do echo \"set user doc {\\\"n\\\":$i,\\\"pad\\\":\\\"$(printf '%05000d' 0)\\\"}\"; i=$((i+1)); done | \"$0\" --store \"$1\" batch --window 1ms",
            Sandbox.binary, box.store,
        ]
        writer.environment = box.environment()
        writer.standardOutput = FileHandle.nullDevice
        try launch(writer)
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
        #expect(healthy.stdout.contains("ok\tschema\tschema version 3"))
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
        let writer = Process()
        writer.executableURL = URL(fileURLWithPath: "/bin/sh")
        writer.arguments = [
            "-c", "i=0; while [ $i -lt 20000 ]; do echo \"set user k$i $i\"; i=$((i+1)); done | \"$0\" --store \"$1\" batch --window 1ms",
            Sandbox.binary, box.store,
        ]
        writer.environment = box.environment()
        writer.standardOutput = FileHandle.nullDevice
        try launch(writer)
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
}
