import Foundation
import PrefsCore
import PrefsTestSupport
import Testing

/// What `prefs batch` prints, exits with and leaves in the store, in process
/// (`Sandbox(inProcess: true)`); SIGINT and SIGTERM go to the binary.
@Suite("prefs batch", .timeLimit(.minutes(5)), .ownThreads)
struct BatchTests {
    @Test func appliesJSONLinesAndShortCommands() throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["set", "user", "gone", "1"])
        let input = """
            {"op":"set","domain":"user","key":"a","value":{"x":[1,2.50]}}
            set user b hello   world
            # a comment

            set ci-cache warm true
            {"op":"incr","domain":"user","key":"n","by":5}
            incr user n
            incr user n -2
            rm user gone
            {"op":"rm","domain":"user","key":"never"}
            set memory m 1
            """
        let result = try box.runOK(["batch", "--window", "1s"], stdin: input + "\n")
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.isEmpty)
        #expect(result.stdout == "{\"flushed\":7,\"through\":11}\n")
        #expect(
            try box.runOK(["list"]).stdout
                == "ci-cache\twarm\ttrue\nmemory\tm\t1\nuser\ta\t{\"x\":[1,2.50]}\nuser\tb\t\"hello   world\"\nuser\tn\t4\n")
    }

    @Test func coalescesAndReportsEveryFlush() throws {
        let box = try Sandbox(inProcess: true)
        let input = (1...10_000).map { "set user k \($0)" }.joined(separator: "\n") + "\n"
        let result = try box.runOK(["batch"], stdin: input)
        #expect(result.status == 0)
        #expect(result.stdout == "{\"flushed\":1,\"through\":10000}\n")
        let writes = try DatabaseQueue(path: box.store).read { try Int.fetchOne($0, sql: "SELECT count(*) FROM changelog WHERE key = 'k'") }
        #expect(writes == 1, "one row write, not 10,000")
        #expect(try box.runOK(["get", "user", "k"]).stdout == "10000\n")
    }

    @Test(arguments: [
        ("bogus user k", "unknown command \"bogus\""), ("set User k v", "invalid domain name"), ("set user", "needs DOMAIN and KEY"),
        ("set user k", "needs a VALUE"), ("set user k {oops", "invalid JSON"),
        ("{\"op\":\"set\",\"domain\":\"user\",\"key\":\"k\"}", "missing \"value\""),
        ("{\"op\":\"drop\",\"domain\":\"user\",\"key\":\"k\"}", "unknown op"),
        ("{\"op\":\"set\",\"domain\":\"user\",\"key\":\"k\",\"value\":1,\"x\":2}", "unknown field"),
        ("{\"op\":\"incr\",\"domain\":\"user\",\"key\":\"k\",\"by\":1.5}", "must be an integer"), ("incr user s", "not an integer"),
        ("rm user k extra", "unexpected"), ("[1]", "unknown command"), ("{not json", "invalid JSON"),
    ])
    func aMalformedLineStopsAfterFlushingWhatCameBefore(line: String, message: String) throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["set", "user", "s", "text"])
        let input = "set user first 1\nset user second 2\n\(line)\nset user after 3\n"
        let result = try box.runFailing(["batch"], status: 6, stdin: input)
        #expect(result.status == 6, "\(result)")
        #expect(result.stderr.hasPrefix("prefs: line 3: ") && result.stderr.contains(message), "\(result)")
        #expect(result.stdout == "{\"flushed\":2,\"through\":2}\n")
        #expect(try box.runOK(["list", "user", "--keys-only"]).stdout == "first\ns\nsecond\n")
    }

    @Test func invalidUTF8LineIsRejected() throws {
        let box = try Sandbox(inProcess: true)
        let result = try box.runFailing(
            ["batch"], status: 6, stdinBytes: Array("set user a 1\n".utf8) + [0x73, 0x65, 0x74, 0x20, 0xFF, 0x0A])
        #expect(result.status == 6, "\(result)")
        #expect(result.stderr.contains("line 2"))
        #expect(try box.runOK(["get", "user", "a"]).stdout == "1\n")
    }

    @Test(arguments: ["0ms", "abc", "1x", "-1s", ""])
    func badWindowIsAUsageError(window: String) throws {
        let box = try Sandbox(inProcess: true)
        expectFailure(try box.runFailing(["batch", "--window", window], status: 2, stdin: ""), 2)
    }

    @Test func incrementsAddUpWithATinyWindow() throws {
        let box = try Sandbox(inProcess: true)
        let input = String(repeating: "incr user n\n", count: 30_000)
        let result = try box.runOK(["batch", "--window", "1ms"], stdin: input)
        #expect(result.status == 0, "\(result)")
        #expect(try box.runOK(["get", "user", "n"]).stdout == "30000\n")
        let throughs = result.stdout.split(separator: "\n").compactMap { Int($0.split(separator: ":").last?.dropLast() ?? "") }
        #expect(throughs == throughs.sorted(), "progress never moves back")
        #expect(throughs.last == 30_000)
    }

    @Test func aHugeWindowIsClampedNotACrash() throws {
        let box = try Sandbox(inProcess: true)
        let result = try box.runOK(["batch", "--window", "20000000000s"], stdin: "set user k 1\n")
        #expect(result.status == 0, "\(result)")
        #expect(try box.runOK(["get", "user", "k"]).stdout == "1\n")
    }

    @Test func aFailedFlushIsExitFourAndNothingIsWrittenAfterwards() throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["set", "user", "k", "before"])
        let queue = try DatabaseQueue(path: box.store)
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: "BEGIN IMMEDIATE")
            let env = ["PREFS_BUSY_TIMEOUT": "0.2"]
            let batch = try box.runFailing(["batch"], status: 4, stdin: "set user a 1\nbogus\n", environment: env)
            #expect(batch.status == 4, "\(batch)")
            #expect(batch.stderr.contains("line 2") || batch.stderr.contains("not written"), "\(batch)")
            #expect(!batch.stderr.contains("will retry"), "\(batch)")
            let set = try box.runFailing(["set", "user", "k", "after"], status: 4, environment: env)
            expectFailure(set, 4, contains: "locked")
            try db.execute(sql: "ROLLBACK")
        }
        #expect(try box.runOK(["get", "user", "k"]).stdout == "before\n", "exit 4 means not written")
        expectFailure(try box.runFailing(["get", "user", "a"], status: 1), 1)
    }

    @Test func emptyInputPrintsOneLine() throws {
        let box = try Sandbox(inProcess: true)
        let result = try box.runOK(["batch"], stdin: "")
        #expect(result.status == 0 && result.stdout == "{\"flushed\":0,\"through\":0}\n", "\(result)")
    }

    @Test(arguments: [(SIGTERM, Int32(143)), (SIGINT, Int32(130))])
    func aSignalFlushesWhatWasReadAndEveryAcknowledgedLineIsStored(signal: Int32, status: Int32) throws {
        let box = try Sandbox()  // signals go to the binary
        let process = box.process(["batch", "--window", "20ms"])
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let collected = LinesCollector(output.fileHandleForReading)
        var line = 0
        // Feed lines until at least three progress lines came back, then more without waiting.
        while collected.count < 3 && line < 20_000 {
            line += 1
            try input.fileHandleForWriting.write(contentsOf: Data("set user k\(line) \(line)\n".utf8))
            if line % 50 == 0 { Thread.sleep(forTimeInterval: 0.005) }
        }
        for _ in 0..<100 {
            line += 1
            try input.fileHandleForWriting.write(contentsOf: Data("set user k\(line) \(line)\n".utf8))
        }
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
        #expect(process.terminationStatus == status)
        let lines = collected.finish()
        #expect(lines.count >= 3)
        #expect(Set(lines).count == lines.count, "no progress line is printed twice")
        let last = try #require(lines.last)
        let through = try #require(Int(last.split(separator: ":").last?.dropLast() ?? ""))
        #expect(through > 0 && through <= line)
        let stored = try DatabaseQueue(path: box.store).read { db -> (Int, String) in
            let count = try Int.fetchOne(db, sql: "SELECT count(*) FROM kv_user") ?? 0
            let integrity = try String.fetchOne(db, sql: "PRAGMA integrity_check") ?? ""
            return (count, integrity)
        }
        #expect(stored.1 == "ok")
        #expect(stored.0 >= through, "every line up to the last 'through' is stored")
        for check in [1, through / 2, through] where check > 0 {
            #expect(try box.runOK(["get", "user", "k\(check)"]).stdout == "\(check)\n")
        }
    }
}

/// Collects newline-terminated lines from a pipe on a background thread.
final class LinesCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var buffer = Data()
    private let done = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) {
        Thread {
            while true {
                let data = handle.availableData
                if data.isEmpty { break }
                self.lock.withLock { self.buffer.append(data) }
            }
            self.done.signal()
        }.start()
    }

    var count: Int { lock.withLock { buffer.filter { $0 == 0x0A }.count } }

    /// The complete lines so far.
    func snapshot() -> [String] {
        lock.withLock {
            let text = String(decoding: buffer, as: UTF8.self)
            return text.split(separator: "\n", omittingEmptySubsequences: true).dropLast(text.hasSuffix("\n") ? 0 : 1).map(String.init)
        }
    }

    func finish() -> [String] {
        done.wait()
        return lock.withLock { String(decoding: buffer, as: UTF8.self).split(separator: "\n").map(String.init) }
    }
}
