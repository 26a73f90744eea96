import Foundation
import PrefsCore
import Testing

/// Cases found in review: concurrency on a new store, bytewise keys, option parsing, nesting.
@Suite("edge cases", .timeLimit(.minutes(5)), .ownThreads)
struct EdgeCaseTests {
    @Test func processesCreatingANewStoreTogetherAllSucceed() throws {
        let box = try Sandbox(inProcess: true)
        for round in 0..<4 {
            let store = box.root + "/new\(round)/prefs.db"
            let results = ResultBox()
            let group = DispatchGroup()
            for i in 0..<8 {
                group.enter()
                let env = box.environment()
                Thread {
                    results.append(
                        try? Sandbox.exec(Sandbox.binary, ["--store", store, "set", "user", "k\(i)", "\(i)"], stdin: nil, environment: env))
                    group.leave()
                }.start()
            }
            group.wait()
            for result in results.all { #expect(result?.status == 0, "\(String(describing: result))") }
            let listed = try box.runOK(["--store", store, "list", "user", "--keys-only"], store: false)
            #expect(listed.stdout.split(separator: "\n").count == 8)
        }
    }

    @Test func keysAndValuesAreComparedBytewise() throws {
        let box = try Sandbox(inProcess: true)
        let nfc = "k\u{E9}"
        let nfd = "ke\u{301}"
        try box.runOK(["set", "user", nfc, "1"])
        try box.runOK(["set", "user", nfd, "2"])
        #expect(try box.runOK(["get", "user", nfc]).stdout == "1\n")
        #expect(try box.runOK(["get", "user", nfd]).stdout == "2\n")
        try box.runOK(["import", "--replace"], stdin: "{\"user\":{\"\(nfd)\":2}}")
        #expect(try box.runOK(["list", "user", "--keys-only"]).stdout == nfd + "\n")
        try box.runOK(["set", "user", "x", "\u{E9}"])
        expectFailure(try box.runFailing(["set", "user", "x", "new", "--if-value", "\"e\u{301}\""], status: 5), 5)
        #expect(
            try box.runOK(["import", "--dry-run"], stdin: "{\"user\":{\"x\":\"e\u{301}\"}}").stdout == "change\tuser\tx\t\"e\u{301}\"\n")
        try box.runOK(["set", "user", "o", "{\"\(nfc)\":1,\"\(nfd)\":2,\"\(nfc)\":3}"])
        #expect(try box.runOK(["get", "user", "o"]).stdout == "{\"\(nfc)\":3,\"\(nfd)\":2}\n")
    }

    @Test func invalidUTF8ArgumentsAreRefused() throws {
        let box = try Sandbox(inProcess: true)
        let result = try Sandbox.exec(
            "/bin/sh", ["-c", "exec \"$0\" --store \"$1\" set user k \"$(printf 'a\\377b')\"", Sandbox.binary, box.store], stdin: nil,
            environment: box.environment())
        expectFailure(result, 6, contains: "not valid UTF-8")
        #expect(!FileManager.default.fileExists(atPath: box.store))
    }

    @Test func valuesThatLookLikeOptions() throws {
        let box = try Sandbox(inProcess: true)
        expectFailure(try box.runFailing(["set", "user", "k", "--strin"], status: 2), 2, contains: "Unknown option '--strin'")
        expectFailure(try box.runFailing(["set", "user", "k", "-x"], status: 2), 2)
        try box.runOK(["set", "user", "k", "--", "--foo"])
        #expect(try box.runOK(["get", "user", "k"]).stdout == "--foo\n")
        try box.runOK(["set", "user", "n", "-0.5e3"])
        #expect(try box.runOK(["get", "user", "n"]).stdout == "-0.5e3\n")
        expectFailure(try box.runFailing([], status: 2, store: false), 2, contains: "missing command")
    }

    @Test func deepestValuesSurviveExportAndImport() throws {
        let box = try Sandbox(inProcess: true)
        let deep = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        try box.runOK(["set", "user", "deep", "-"], stdin: deep)
        let exported = try box.runOK(["export"])
        #expect(exported.status == 0)
        try box.runOK(["export", "--pretty"])
        let other = try Sandbox(inProcess: true)
        try other.runOK(["import"], stdin: exported.stdout)
        #expect(try other.runOK(["export"]).stdout == exported.stdout)
        try box.runOK(["batch"], stdin: "{\"op\":\"set\",\"domain\":\"user\",\"key\":\"d2\",\"value\":\(deep)}\n")
    }

    /// `import` reads a document member by member (no whole tree); what it stores must be
    /// what the full parse means: repeated names, escapes, whitespace, depth limits.
    @Test func importMeansWhatTheFullParseMeans() throws {
        let box = try Sandbox(inProcess: true)
        let many = (0..<20).map { "\"k\($0)\": \($0)" }.joined(separator: ", ")
        let document = """
            { "user" : { "a" : 1, "b" : { "x" : [ 1, 2 ], "y" : "\\u0041\\n" }, "a" : 2 },
              "switch": { \(many), "k3": "last", "k19": null }, "ci": {} }
            """
        try box.runOK(["import"], stdin: document)
        let exported = try box.runOK(["export"])
        let members = (0..<20).map { "k\($0)" }.sorted().map { (key: String) -> String in
            let value: String = key == "k3" ? "\"last\"" : key == "k19" ? "null" : String(key.dropFirst())
            return "\"\(key)\":" + value
        }
        let expected = #"{"switch":{"# + members.joined(separator: ",") + #"},"user":{"a":2,"b":{"x":[1,2],"y":"A\n"}}}"# + "\n"
        #expect(exported.stdout == expected, "\(exported)")
        // A repeated domain name: the last object counts, as in any JSON object.
        let other = try Sandbox(inProcess: true)
        try other.runOK(["import"], stdin: #"{"user":{"a":1},"user":{"b":2}}"#)
        #expect(try other.runOK(["export"]).stdout == #"{"user":{"b":2}}"# + "\n")
        // Too deep by one level, invalid UTF-8, trailing text: refused as before, nothing stored.
        let tooDeep = "{\"user\":{\"d\":" + String(repeating: "[", count: 513) + String(repeating: "]", count: 513) + "}}"
        expectFailure(try other.runFailing(["import"], status: 6, stdin: tooDeep), 6, contains: "nested deeper than")
        expectFailure(
            try other.runFailing(["import"], status: 6, stdinBytes: Array(#"{"user":{"k":""#.utf8) + [0xFF] + Array(#""}}"#.utf8)), 6,
            contains: "UTF-8")
        expectFailure(try other.runFailing(["import"], status: 6, stdin: #"{"user":{"k":1}} x"#), 6, contains: "after the JSON value")
        expectFailure(try other.runFailing(["import"], status: 6, stdin: #"{"user":[1]}"#), 6, contains: "expected an object of keys")
        #expect(try other.runOK(["export"]).stdout == #"{"user":{"b":2}}"# + "\n")
    }

    @Test func removingFromAMissingDomainCreatesNothing() throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["set", "user", "k", "v"])
        let before = try box.storeSnapshot()
        try box.runOK(["rm", "nosuch", "k"])
        try box.runOK(["rm", "nosuch", "--prefix", "x"])
        #expect(try box.storeSnapshot() == before)
        #expect(!(try box.runOK(["domains"]).stdout.contains("nosuch")))
    }

    @Test func removeWithKeysAndPrefixIsAllOrNothing() throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["set", "user", "a", "1"])
        try box.runOK(["set", "user", "p.1", "1"])
        expectFailure(try box.runFailing(["rm", "user", "a", "--prefix", "zz", "--must-exist"], status: 1), 1)
        expectFailure(try box.runFailing(["rm", "user", "missing", "--prefix", "p.", "--must-exist"], status: 1), 1)
        #expect(try box.runOK(["list", "user", "--keys-only"]).stdout == "a\np.1\n")
        try box.runOK(["rm", "user", "a", "p.1", "--prefix", "p.", "--must-exist"])
        #expect(try box.runOK(["list", "user"]).stdout == "")
        expectFailure(try box.runFailing(["rm", "user", "--prefix", ""], status: 2), 2, contains: "must not be empty")
    }

    @Test func anUnsafeMemoryDirectoryDoesNotHideTheStore() throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["set", "user", "k", "v"])
        let directory = box.runtime + "/prefs"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        chmod(directory, 0o755)
        #expect(try box.runOK(["list"]).stdout == "user\tk\t\"v\"\n")
        expectFailure(try box.runFailing(["get", "memory", "k"], status: 3), 3, contains: "mode 0700")
    }

    @Test func anEmptyFileWithAUserVersionIsNotTakenOver() throws {
        let box = try Sandbox(inProcess: true)
        let path = box.root + "/versioned.db"
        try DatabaseQueue(path: path).writeWithoutTransaction { try $0.execute(sql: "PRAGMA user_version = 9") }
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        expectFailure(try box.runFailing(["--store", path, "set", "user", "k", "v"], status: 3, store: false), 3)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }
}
