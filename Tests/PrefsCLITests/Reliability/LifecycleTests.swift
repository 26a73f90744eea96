import Foundation
import PrefsCore
import Testing

/// Acknowledged writes survive the creation and migration of a store while other processes
/// open and close it (issue 16, finding 1: closing a second descriptor of the store file
/// cancelled SQLite's locks, and the next process to close the store deleted the live WAL).
@Suite(
    "store lifecycle under concurrency", .tags(.slow), .enabled(if: SlowTests.enabled, SlowTests.reason), .timeLimit(.minutes(20)),
    .ownThreads)
struct LifecycleTests {
    @Test func batchOnANewStoreKeepsWritesAcrossAnExportByAnotherProcess() throws {
        let box = try Sandbox()
        let batch = try Running(["--store", box.store, "batch", "--window", "50ms"], environment: box.environment())
        batch.write("set user first 1\n")
        #expect(batch.waitForLines(1), "the first line is committed")
        let export = try box.runOK(["export"])
        #expect(export.status == 0, "\(export)")
        batch.write("set user second 2\n")
        #expect(batch.waitForLines(2), "the second line is committed")
        let doctor = try box.runOK(["list"])
        #expect(doctor.status == 0, "\(doctor)")
        batch.write("set user third 3\n")
        let result = batch.finish()
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("\"through\":3"), "\(result)")
        let listed = try box.runOK(["list", "user", "--json"])
        #expect(listed.status == 0 && listed.stdout == "{\"first\":1,\"second\":2,\"third\":3}\n", "\(listed)")
    }

    /// 8 `set`s and one maintenance command at once on a store that does not exist yet.
    @Test(arguments: [["log", "--retain", "50"], ["schema", "load", "SCHEMA"], ["export"], ["doctor"], ["backup", "BACKUP"]])
    func concurrentFirstWritesAreAllKept(_ maintenance: [String]) throws {
        for round in 0..<6 {
            let box = try Sandbox()
            let schema = box.root + "/schema.json"
            try Data(#"{"other":{"x":{"type":"string"}}}"#.utf8).write(to: URL(fileURLWithPath: schema))
            let command = maintenance.map { $0 == "SCHEMA" ? schema : $0 == "BACKUP" ? box.root + "/backup.db" : $0 }
            var processes: [Running] = []
            for index in 0..<8 {
                processes.append(
                    try Running(["--store", box.store, "set", "race", "k\(index)", "\(index)"], environment: box.environment()))
                if index == 3 { processes.append(try Running(["--store", box.store] + command, environment: box.environment())) }
            }
            var acknowledged: [String: Int] = [:]
            for (position, process) in processes.enumerated() {
                let result = process.finish()
                let setIndex = position < 4 ? position : position - 1
                if position == 4 {
                    // The maintenance command succeeds (a backup before any set finds no store: 1).
                    let allowed: Swift.Set<Int32> = maintenance[0] == "backup" ? [0, 1] : [0]
                    #expect(allowed.contains(result.status), "round \(round): \(maintenance): \(result)")
                    continue
                }
                #expect(result.status == 0, "round \(round): set k\(setIndex): \(result)")
                if result.status == 0 { acknowledged["k\(setIndex)"] = setIndex }
            }
            let listed = try box.runOK(["list", "race", "--json"])
            #expect(listed.status == 0, "\(listed)")
            let stored = try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [String: Int] ?? [:]
            #expect(stored == acknowledged, "round \(round) with \(maintenance): every acknowledged set is stored")
        }
    }

    @Test func watchStartedBeforeTheStoreExistsSeesEveryChange() throws {
        let box = try Sandbox()
        let (watch, start) = try Running.watch(["--store", box.store, "watch", "--json"], box: box)
        #expect(start == 0)
        for index in 0..<5 {
            let set = try box.runOK(["set", "user", "k\(index)", "\(index)"])
            #expect(set.status == 0, "\(set)")
            let read = try box.runOK(["export"])
            #expect(read.status == 0, "\(read)")
        }
        #expect(watch.waitForLines(5, timeout: 10), "watch printed every change")
        usleep(300_000)
        let result = watch.finish(signal: SIGTERM)
        #expect(result.status == 0, "\(result)")
        let keys = result.stdout.split(separator: "\n").compactMap { line -> String? in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["key"] as? String
        }
        #expect(keys == ["k0", "k1", "k2", "k3", "k4"], "\(result)")
    }

    /// An older store is migrated by the first process while others write and read.
    @Test(arguments: ["schema-1", "schema-2", "schema-3", "schema-4"])
    func migrationWhileOthersWriteLosesNothing(_ fixture: String) throws {
        for round in 0..<4 {
            let box = try Sandbox()
            try makeFixtureStore(fixture, at: box.store)
            var processes: [Running] = []
            for index in 0..<6 {
                processes.append(
                    try Running(["--store", box.store, "set", "legacy", "n\(index)", "\(index)"], environment: box.environment()))
                if index % 2 == 0 { processes.append(try Running(["--store", box.store, "export"], environment: box.environment())) }
            }
            for process in processes {
                let result = process.finish()
                #expect(result.status == 0, "round \(round): \(result)")
            }
            let listed = try box.runOK(["list", "legacy", "--json"])
            // schema-3 and schema-4 have a key that expires in 2100
            let later = fixture == "schema-3" || fixture == "schema-4" ? ",\"later\":\"soon\"" : ""
            #expect(
                listed.stdout == "{\"count\":41\(later),\"n0\":0,\"n1\":1,\"n2\":2,\"n3\":3,\"n4\":4,\"n5\":5}\n",
                "round \(round): \(listed)")
            let theme = try box.runOK(["get", "user", "theme"])
            #expect(theme.stdout == "dark\n", "\(theme)")
            let version = try DatabaseQueue(path: box.store).read { try Int.fetchOne($0, sql: "PRAGMA user_version") }
            #expect(version == 5)
        }
    }
}
