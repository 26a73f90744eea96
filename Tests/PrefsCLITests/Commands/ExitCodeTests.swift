import Foundation
import PrefsCore
import PrefsTestSupport
import Testing

/// One test per row of the exit-code table, and bad input that must leave the store as it was.
/// The in-process entry returns the status the binary exits with: one test per code runs the
/// binary where the process adds something (1 and 3: the start-up `get`; 2: the parser's
/// refusals of a real argv; 4: a lock another process holds; 6: bytes on a real standard
/// input), the others run in process.
@Suite("exit codes and bad input", .timeLimit(.minutes(5)), .ownThreads)
struct ExitCodeTests {
    @Test func zeroForSuccessDefaultAndRemovingAMissingKey() throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["set", "user", "k", "v"])
        try box.runOK(["get", "user", "nope", "--default", "x"])
        try box.runOK(["rm", "user", "nope"])
        let help = try box.runOK(["--help"])
        #expect(help.status == 0 && help.stdout.contains("USAGE: prefs") && help.stderr.isEmpty)
        #expect(try box.runOK(["--version"]).stdout == "0.2.0-dev\n")
    }

    @Test func oneForMissingKeys() throws {
        let box = try Sandbox()
        try box.runOK(["set", "user", "k", "v"])
        expectFailure(try box.runFailing(["get", "user", "nope"], status: 1), 1, contains: "not found")
        expectFailure(try box.runFailing(["get", "custom", "nope"], status: 1), 1)
        expectFailure(try box.runFailing(["rm", "user", "nope", "--must-exist"], status: 1), 1)
    }

    @Test(arguments: [
        ["frobnicate"], ["get", "user"], ["get", "user", "k", "--bogus"], ["set", "user", "k"], ["get", "User", "k"],
        ["get", "user;drop table kv_user", "k"], ["set", "'); DROP TABLE kv_user; --", "k", "v"], ["get", "1abc", "k"],
        ["get", String(repeating: "d", count: 65), "k"], ["set", "user", "", "v"], ["set", "user", "a\u{1}b", "v"],
        ["set", "user", "tab\there", "v"], ["set", "user", String(repeating: "k", count: 1025), "v"],
        ["set", "user", "é" + String(repeating: "k", count: 1023), "v"], ["get", "user", "line\nbreak"], ["rm", "USER", "k"],
        ["list", "bad domain"], ["export", "Nope"], ["--store"], ["set", "user", "k", "v", "extra"],
    ])
    func twoForUsageErrors(arguments: [String]) throws {
        let box = try Sandbox()
        try box.runOK(["set", "user", "k", "before"])
        let before = try box.storeSnapshot()
        let result = try box.runFailing(arguments, status: 2)
        expectFailure(result, 2)
        #expect(!result.stderr.contains("USAGE"), "no usage text: \(result)")
        #expect(try box.storeSnapshot() == before)
    }

    @Test func threeForADirectoryAsStore() throws {
        let box = try Sandbox(inProcess: true)
        expectFailure(
            try box.runFailing(["--store", box.root, "get", "user", "k"], status: 3, store: false), 3, contains: "is a directory")
        expectFailure(
            try box.runFailing(["--store", box.root, "set", "user", "k", "v"], status: 3, store: false), 3, contains: "is a directory")
    }

    @Test func threeForANonSQLiteFileWhichIsLeftAlone() throws {
        let box = try Sandbox(inProcess: true)
        let path = box.root + "/notes.txt"
        let content = Data("these are my notes, not a database\n".utf8)
        try content.write(to: URL(fileURLWithPath: path))
        for arguments in [["get", "user", "k"], ["set", "user", "k", "v"], ["list"], ["import"]] {
            expectFailure(
                try box.runFailing(["--store", path] + arguments, status: 3, stdin: "{}", store: false), 3, contains: "not a prefs store")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == content)
    }

    @Test func threeForAnotherApplicationsDatabase() throws {
        let box = try Sandbox(inProcess: true)
        let path = box.root + "/other.sqlite"
        try DatabaseQueue(path: path).write { try $0.execute(sql: "CREATE TABLE notes (body TEXT)") }
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        expectFailure(
            try box.runFailing(["--store", path, "set", "user", "k", "v"], status: 3, store: false), 3, contains: "not a prefs store")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test func threeForANewerSchemaWhichIsLeftUntouched() throws {
        let box = try Sandbox()
        try box.runOK(["set", "user", "k", "v"])
        try DatabaseQueue(path: box.store).writeWithoutTransaction { try $0.execute(sql: "PRAGMA user_version = 99") }
        let before = try Data(contentsOf: URL(fileURLWithPath: box.store))
        expectFailure(try box.runFailing(["get", "user", "k"], status: 3), 3, contains: "schema version 99")
        expectFailure(try box.runFailing(["set", "user", "k", "w"], status: 3), 3, contains: "newer than this prefs supports")
        #expect(try Data(contentsOf: URL(fileURLWithPath: box.store)) == before)
    }

    @Test func threeForACorruptStore() throws {
        let box = try Sandbox(inProcess: true)
        for i in 0..<300 { try box.runOK(["set", "user", "key\(i % 3)", String(repeating: "x", count: 2000 + i)]) }
        try DatabaseQueue(path: box.store).writeWithoutTransaction { _ = try $0.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: box.store)))
        #expect(bytes.count > 8192)
        // Overwrite every page after the first with garbage.
        for i in 4096..<bytes.count { bytes[i] = UInt8(truncatingIfNeeded: i &* 31) }
        try Data(bytes).write(to: URL(fileURLWithPath: box.store))
        expectFailure(try box.runFailing(["list", "user"], status: 3), 3)
        // A truncated header.
        try Data(bytes[0..<10]).write(to: URL(fileURLWithPath: box.store))
        expectFailure(try box.runFailing(["get", "user", "key1"], status: 3), 3)
    }

    @Test func fourWhenTheLocationCannotBeCreated() throws {
        let box = try Sandbox(inProcess: true)
        let file = box.root + "/plain-file"
        try Data("x".utf8).write(to: URL(fileURLWithPath: file))
        expectFailure(
            try box.runFailing(["--store", file + "/sub/prefs.db", "set", "user", "k", "v"], status: 4, store: false), 4,
            contains: "cannot create")
        // Reading from a location that does not exist is an empty store, not an error.
        expectFailure(try box.runFailing(["--store", file + "/sub/prefs.db", "get", "user", "k"], status: 1, store: false), 1)
    }

    @Test func fourWhenTheLockWaitTimesOut() throws {
        let box = try Sandbox()
        try box.runOK(["set", "user", "k", "before"])
        let queue = try DatabaseQueue(path: box.store)
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: "BEGIN IMMEDIATE")
            let started = Date()
            let result = try box.runFailing(["set", "user", "k", "after"], status: 4, environment: ["PREFS_BUSY_TIMEOUT": "0.3"])
            expectFailure(result, 4, contains: "locked")
            #expect(Date().timeIntervalSince(started) >= 0.3, "the writer waited before giving up")
            // Readers are not blocked by a writer (WAL).
            #expect(try box.runOK(["get", "user", "k"]).stdout == "before\n")
            try db.execute(sql: "ROLLBACK")
        }
        #expect(try box.runOK(["get", "user", "k"]).stdout == "before\n")
    }

    @Test func fiveForFailedPreconditions() throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["set", "user", "k", "v"])
        expectFailure(try box.runFailing(["set", "user", "k", "w", "--if-absent"], status: 5), 5)
        #expect(try box.runOK(["get", "user", "k"]).stdout == "v\n")
    }

    @Test func sixForInvalidValues() throws {
        let box = try Sandbox()
        try box.runOK(["set", "user", "k", "v"])
        let before = try box.storeSnapshot()
        expectFailure(try box.runFailing(["set", "user", "k", "{\"a\":"], status: 6), 6)
        expectFailure(try box.runFailing(["set", "user", "k", "--type", "integer", "x"], status: 6), 6)
        expectFailure(try box.runFailing(["set", "user", "k", "-"], status: 6, stdinBytes: [0xC3, 0x28]), 6)
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        expectFailure(try box.runFailing(["set", "user", "k", "-"], status: 6, stdin: deep), 6, contains: "nested deeper")
        expectFailure(try box.runFailing(["import"], status: 6, stdin: deep), 6, contains: "nested deeper")
        #expect(try box.storeSnapshot() == before)
    }

    @Test func largeValuesWork() throws {
        let box = try Sandbox(inProcess: true)
        let big = "\"" + String(repeating: "a", count: 10_000_000) + "\""
        try box.runOK(["set", "user", "big", "-"], stdin: big)
        #expect(try box.runOK(["get", "user", "big"]).stdout.count == 10_000_001)
    }
}

@Suite("store files and processes", .timeLimit(.minutes(5)), .ownThreads)
struct StoreFileTests {
    @Test func permissionsAreOwnerOnlyWhateverTheUmask() throws {
        let box = try Sandbox(inProcess: true)  // the umask is the process's: the first write is the binary's
        let store = box.root + "/deep/er/prefs.db"
        let result = try Sandbox.exec(
            "/bin/sh", ["-c", "umask 000; exec \"$0\" --store \"$1\" set user k v", Sandbox.binary, store], stdin: nil,
            environment: box.environment())
        #expect(result.status == 0, "\(result)")
        for dir in [box.root + "/deep", box.root + "/deep/er"] {
            #expect(try FileManager.default.attributesOfItem(atPath: dir)[.posixPermissions] as? Int == 0o700)
        }
        for file in [store, store + "-wal", store + "-shm"] where FileManager.default.fileExists(atPath: file) {
            #expect(try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int == 0o600, "\(file)")
        }
        try box.runOK(["--store", store, "set", "memory", "m", "1"], store: false)
        #expect(try FileManager.default.attributesOfItem(atPath: box.runtime + "/prefs")[.posixPermissions] as? Int == 0o700)
    }

    @Test func storeIsSQLiteInWALMode() throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["set", "user", "k", "v"])
        let mode = try DatabaseQueue(path: box.store).read { try String.fetchOne($0, sql: "PRAGMA journal_mode") }
        #expect(mode == "wal")
        let tables = try DatabaseQueue(path: box.store).read {
            try String.fetchAll($0, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'kv_%' ORDER BY name")
        }
        // The built-in domains' tables and the one table of every custom domain.
        #expect(tables == ["kv__custom", "kv_default", "kv_dynamic", "kv_switch", "kv_user"])
    }

    @Test func twoProcessesWritingAtOnceBothSucceed() throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["set", "user", "init", "1"])
        let script = "for i in $(seq 1 25); do \"$0\" --store \"$1\" set user \"$2$i\" \"$i\" || exit 1; done"
        let results = ResultBox()
        let group = DispatchGroup()
        let binary = Sandbox.binary  // asked for on the test's task: the spawn log names the test
        for name in ["a", "b"] {
            group.enter()
            let env = box.environment()
            let store = box.store
            Thread {
                let result = try? Sandbox.exec("/bin/sh", ["-c", script, binary, store, name], stdin: nil, environment: env)
                results.append(result)
                group.leave()
            }.start()
        }
        group.wait()
        for result in results.all { #expect(result?.status == 0, "\(String(describing: result))") }
        let keys = try box.runOK(["list", "user", "--keys-only"]).stdout.split(separator: "\n")
        #expect(keys.count == 51)
        #expect(try box.runOK(["get", "user", "b25"]).stdout == "25\n")
    }
}

final class ResultBox: @unchecked Sendable {
    private let lock = NSLock()
    private var results: [RunResult?] = []
    func append(_ result: RunResult?) { lock.withLock { results.append(result) } }
    var all: [RunResult?] { lock.withLock { results } }
}

@Suite("generated files", .timeLimit(.minutes(5)), .ownThreads)
struct GeneratedFileTests {
    static let root = URL(fileURLWithPath: repositoryRoot)

    @Test(arguments: [("bash", "prefs.bash"), ("zsh", "_prefs"), ("fish", "prefs.fish")])
    func completionScriptsMatchTheBinary(shell: String, file: String) throws {
        let box = try Sandbox()
        let generated = try box.runOK(["--generate-completion-script", shell], store: false)
        #expect(generated.status == 0)
        let committed = try String(contentsOf: Self.root.appendingPathComponent("completions/\(file)"), encoding: .utf8)
        #expect(generated.stdout == committed, "completions/\(file) is out of date: run scripts/generate")
    }

    @Test func manPageListsEveryCommand() throws {
        let page = try String(contentsOf: Self.root.appendingPathComponent("man/prefs.1"), encoding: .utf8)
        for command in ["get", "set", "rm", "list", "domains", "export", "import"] {
            #expect(page.contains("prefs \(command)") || page.contains(".It Em \(command)"), "man page lacks \(command)")
        }
    }
}
