import Foundation
import PrefsCore
import Testing

/// A randomized multi-process checker: workers run a seeded random mix of writing and reading
/// commands against one store that starts missing, at schema 1 or 2 (migrated by whichever
/// process comes first) or current, while a `watch` started before it follows every change.
/// Afterwards an oracle checks that every acknowledged write is present (each writes its own
/// key, so nothing supersedes it), removals stay removed, acknowledged increments add up
/// exactly, the memory tier kept every acknowledged value, no command crashed or found the
/// store unreadable, and `watch` printed every change-log record once, in order.
///
/// `PREFS_CHECKER_SEED` replays a seed's choices; `PREFS_CHECKER_ROUNDS` (default 4) sets the
/// budget. The seed and counts are printed.
@Suite("concurrency checker", .tags(.slow), .enabled(if: SlowTests.enabled, SlowTests.reason), .timeLimit(.minutes(20)), .ownThreads)
struct ConcurrencyCheckerTests {
    /// SplitMix64: small, seedable, the same sequence on every machine.
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// What the workers were told "yes" to.
    final class Oracle: @unchecked Sendable {
        private let lock = NSLock()
        var present: [String: [String: String]] = [:]  // domain -> key -> compact JSON
        var absent: [(String, String)] = []
        var increments = 0
        var memory: [String: String] = [:]
        var operations = 0
        var acknowledged = 0
        var failures: [String] = []
        var schemaLoaded = false

        func record(_ body: (Oracle) -> Void) { lock.withLock { body(self) } }
    }

    enum Start: CaseIterable { case missing, schema1, schema2, schema3, current }

    @Test func everyAcknowledgedWriteSurvivesRandomConcurrentLifecycles() throws {
        let environment = ProcessInfo.processInfo.environment
        let seed = environment["PREFS_CHECKER_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: 1...UInt64.max)
        let rounds = environment["PREFS_CHECKER_ROUNDS"].flatMap { Int($0) } ?? 4
        let workers = 6
        let operationsPerWorker = 12
        var generator = Generator(state: seed)
        var totals = (operations: 0, acknowledged: 0, watched: 0, processes: 0)
        print("checker: seed \(seed) (PREFS_CHECKER_SEED=\(seed) replays it), \(rounds) rounds of \(workers) workers")
        for round in 0..<rounds {
            let start = Start.allCases[Int(generator.next() % UInt64(Start.allCases.count))]
            let plans = (0..<workers).map { _ in (0..<operationsPerWorker).map { _ in generator.next() } }
            let result = try runRound(round, start: start, plans: plans)
            totals.operations += result.operations
            totals.acknowledged += result.acknowledged
            totals.watched += result.watched
            totals.processes += result.processes
            #expect(result.failures.isEmpty, "seed \(seed) round \(round) (\(start)): \(result.failures.prefix(10))")
        }
        print(
            "checker: seed \(seed): \(totals.processes) processes, \(totals.operations) operations, \(totals.acknowledged) acknowledged, \(totals.watched) changes watched"
        )
    }

    struct RoundResult {
        var operations = 0
        var acknowledged = 0
        var watched = 0
        var processes = 0
        var failures: [String] = []
    }

    func runRound(_ round: Int, start: Start, plans: [[UInt64]]) throws -> RoundResult {
        let box = try Sandbox()
        let oracle = Oracle()
        var counts = RoundResult()
        let schema = box.root + "/schema.json"
        try Data(#"{"sch":{"x":{"type":"string","default":"d"}}}"#.utf8).write(to: URL(fileURLWithPath: schema))
        switch start {
        case .missing: break
        case .schema1: try makeFixtureStore("schema-1", at: box.store)
        case .schema2: try makeFixtureStore("schema-2", at: box.store)
        case .schema3: try makeFixtureStore("schema-3", at: box.store)
        case .current:
            let seeded = try box.runOK(["set", "user", "seed", "1"])
            guard seeded.status == 0 else { return RoundResult(failures: ["setup: \(seeded)"]) }
        }
        // The watcher and the workers start together: whichever comes first creates or
        // migrates the store. The watcher writes where it starts to a file.
        let (watch, ready) = try Running.startWatch(["--store", box.store, "watch", "--json"], box: box)
        let group = DispatchGroup()
        let processCount = Oracle()
        for (worker, plan) in plans.enumerated() {
            group.enter()
            Thread {
                defer { group.leave() }
                for (index, choice) in plan.enumerated() {
                    let spawned = Self.operate(box: box, schema: schema, tag: "w\(worker)i\(index)", choice: choice, oracle: oracle)
                    processCount.record { $0.operations += spawned }
                }
            }.start()
        }
        group.wait()
        counts.processes = processCount.operations + 1

        // The oracle.
        let exported = try box.runOK(["export"])
        guard exported.status == 0, let document = try JSONSerialization.jsonObject(with: Data(exported.stdout.utf8)) as? [String: Any]
        else {
            _ = watch.finish(signal: SIGTERM)
            return RoundResult(failures: ["export: \(exported)"])
        }
        func stored(_ domain: String, _ key: String) -> String? {
            guard let keys = document[domain] as? [String: Any], let value = keys[key] else { return nil }
            let data = try? JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed])
            return data.map { String(decoding: $0, as: UTF8.self) }
        }
        oracle.record { oracle in
            counts.operations = oracle.operations
            counts.acknowledged = oracle.acknowledged
            counts.failures = oracle.failures
            for (domain, keys) in oracle.present {
                for (key, value) in keys where stored(domain, key) != value {
                    counts.failures.append("acknowledged \(domain)/\(key)=\(value) is \(stored(domain, key) ?? "missing")")
                }
            }
            for (domain, key) in oracle.absent where stored(domain, key) != nil {
                counts.failures.append("removed \(domain)/\(key) is back")
            }
            let counter = stored("ca", "counter").flatMap { Int($0) } ?? 0
            if counter != oracle.increments {
                counts.failures.append("counter is \(counter) after \(oracle.increments) acknowledged increments")
            }
        }
        let memory = try box.runOK(["list", "memory", "--json"])
        let memoryValues = (try? JSONSerialization.jsonObject(with: Data(memory.stdout.utf8)) as? [String: Any]) ?? [:]
        for (key, value) in oracle.memory where (memoryValues[key] as? String) != value {
            counts.failures.append("acknowledged memory/\(key) is \(String(describing: memoryValues[key]))")
        }
        let integrity = try DatabaseQueue(path: box.store).read { try String.fetchAll($0, sql: "PRAGMA integrity_check") }
        if integrity != ["ok"] { counts.failures.append("integrity_check: \(integrity)") }

        if oracle.schemaLoaded {
            let fromSchema = try box.runOK(["get", "sch", "x"])
            if fromSchema.stdout != "d\n" { counts.failures.append("a loaded schema's default is not read: \(fromSchema)") }
        }

        // Every change-log record after the watcher's start reached it once, in order.
        guard let watchStart = Running.watchStart(ready) else {
            _ = watch.finish(signal: SIGKILL)
            counts.failures.append("watch never started")
            return counts
        }
        let log = try box.runOK(["log", "--json", "--limit", "1000000"])
        if log.status != 0 { counts.failures.append("log: \(log)") }
        let logged = Self.sequences(log.stdout).filter { $0 > watchStart }.sorted()
        _ = watch.waitForLines(logged.count, timeout: 15)
        let watched = watch.finish(signal: SIGTERM)
        let seen = Self.sequences(watched.stdout)
        counts.watched = seen.count
        if watched.status != 0 { counts.failures.append("watch: \(watched.status) \(watched.stderr)") }
        if seen != logged {
            counts.failures.append("watch saw \(seen.count) records, the log has \(logged.count) after \(watchStart): \(watched.stderr)")
        }
        _ = round
        return counts
    }

    static func sequences(_ jsonLines: String) -> [Int] {
        jsonLines.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["seq"] as? Int
        }
    }

    /// Runs one randomly chosen command (or two); returns how many processes it started.
    static func operate(box: Sandbox, schema: String, tag: String, choice: UInt64, oracle: Oracle) -> Int {
        func run(_ arguments: [String], stdin: String? = nil) -> RunResult {
            // The oracle judges each status (an issue recorded on a worker thread would belong to no test).
            (try? Sandbox.exec(
                Sandbox.binary, ["--store", box.store] + arguments, stdin: stdin.map { Array($0.utf8) }, environment: box.environment()))
                ?? RunResult(stdout: "", stderr: "could not start", status: -1)
        }
        func expectWrite(_ result: RunResult, _ what: String) -> Bool {
            oracle.record { $0.operations += 1 }
            guard result.status == 0 else {
                oracle.record { $0.failures.append("\(what): \(result)") }
                return false
            }
            oracle.record { $0.acknowledged += 1 }
            return true
        }
        func expectRead(_ result: RunResult, _ what: String, allowed: Set<Int32> = [0]) {
            oracle.record { $0.operations += 1 }
            if !allowed.contains(result.status) { oracle.record { $0.failures.append("\(what): \(result)") } }
        }
        let value = Int(choice >> 40)
        switch choice % 16 {
        case 0, 1, 2:
            if expectWrite(run(["set", "ca", tag, "\(value)"]), "set ca/\(tag)") {
                oracle.record { $0.present["ca", default: [:]][tag] = "\(value)" }
            }
        case 3, 4:
            if expectWrite(run(["incr", "ca", "counter"]), "incr") { oracle.record { $0.increments += 1 } }
        case 5:
            guard expectWrite(run(["set", "cb", tag, "true"]), "set cb/\(tag)") else { return 1 }
            if expectWrite(run(["rm", "cb", tag]), "rm cb/\(tag)") {
                oracle.record { $0.absent.append(("cb", tag)) }
            } else {
                oracle.record { $0.present["cb", default: [:]][tag] = "true" }
            }
            return 2
        case 6:
            if expectWrite(run(["set", "memory", tag, "v\(value)"]), "set memory/\(tag)") {
                oracle.record { $0.memory[tag] = "v\(value)" }
            }
        case 7:
            let lines = (0..<5).map { "set cc \(tag)-\($0) \($0)" }.joined(separator: "\n") + "\n"
            if expectWrite(run(["batch", "--window", "5ms"], stdin: lines), "batch") {
                oracle.record { oracle in for index in 0..<5 { oracle.present["cc", default: [:]]["\(tag)-\(index)"] = "\(index)" } }
            }
        case 8:
            if expectWrite(run(["import", "-"], stdin: "{\"cd\":{\"\(tag)\":\(value)}}"), "import") {
                oracle.record { $0.present["cd", default: [:]][tag] = "\(value)" }
            }
        case 9:
            let ops =
                "[{\"op\":\"set\",\"domain\":\"ce\",\"key\":\"\(tag)\",\"value\":\(value)},{\"op\":\"incr\",\"domain\":\"ca\",\"key\":\"counter\"}]"
            if expectWrite(run(["apply", "-"], stdin: ops), "apply") {
                oracle.record { oracle in
                    oracle.present["ce", default: [:]][tag] = "\(value)"
                    oracle.increments += 1
                }
            }
        case 10: expectRead(run(["export"]), "export")
        case 11: expectRead(run(["doctor"]), "doctor")
        case 12: expectRead(run(["backup", box.root + "/backup-\(tag).db"]), "backup", allowed: [0, 1])
        case 13: expectRead(run(["log", "--retain", "1000000"]), "log --retain")
        case 14:
            let loaded = run(["schema", "load", schema])
            expectRead(loaded, "schema load")
            if loaded.status == 0 { oracle.record { $0.schemaLoaded = true } }
        default:
            expectRead(run(["list", "ca", "--allow-missing"]), "list")  // ca may not exist yet
            expectRead(run(["get", "ca", "counter"]), "get", allowed: [0, 1])
            return 2
        }
        return 1
    }
}
