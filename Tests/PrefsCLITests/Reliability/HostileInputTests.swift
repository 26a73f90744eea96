import Foundation
import Testing

/// Hostile input in one table: each case gets its documented exit code, exactly one stderr
/// line, no crash signal, and leaves the store as it was.
@Suite("hostile input", .timeLimit(.minutes(5)))
struct HostileInputTests {
    struct Case: CustomStringConvertible, Sendable {
        var arguments: [String]
        var stdin: [UInt8]?
        var status: Int32
        var description: String { arguments.joined(separator: " ").prefix(80).description }
    }

    static func text(_ s: String) -> [UInt8] { Array(s.utf8) }

    static let cases: [Case] = [
        Case(arguments: ["set", "user", "k", "{\"a\":"], status: 6),
        Case(arguments: ["set", "user", "k", "[1,2"], status: 6),
        Case(arguments: ["set", "user", "k", "-"], stdin: [0xFF, 0xFE], status: 6),
        Case(arguments: ["set", "user", "k", "--type", "json", "-"], stdin: text("\"a\u{0}b\""), status: 6),
        Case(arguments: ["set", "user", "k", "-"], stdin: text(String(repeating: "[", count: 100_000)), status: 6),
        Case(arguments: ["set", "user", "k", "-"], stdin: text(String(repeating: "{\"a\":", count: 100_000)), status: 6),
        Case(arguments: ["set", "user", "k", "--type", "integer", "1.5"], status: 6),
        Case(arguments: ["set", "user", "k", "--type", "boolean", "maybe"], status: 6),
        Case(arguments: ["set", "user", String(repeating: "k", count: 1025), "v"], status: 2),
        Case(arguments: ["set", "user", "a\u{7}b", "v"], status: 2),
        Case(arguments: ["set", "user", "", "v"], status: 2),
        Case(arguments: ["set", "x'; DROP TABLE kv_user; --", "k", "v"], status: 2),
        Case(arguments: ["get", "kv_user\"", "k"], status: 2),
        Case(arguments: ["set", "Robert');", "k", "v"], status: 2),
        Case(arguments: ["get", "user", "k", "--frobnicate"], status: 2),
        Case(arguments: ["frobnicate"], status: 2),
        Case(arguments: ["set", "user", "k", "v", "--ttl", "soon"], status: 2),
        Case(arguments: ["set", "user", "k", "v", "--ttl", "-1s"], status: 2),
        Case(arguments: ["batch", "--window", "0ms"], stdin: text(""), status: 2),
        Case(arguments: ["log", "--since", "yesterday"], status: 2),
        Case(arguments: ["flag", "eval", "f", "--type", "boolean", "--default", "false", "--context", "{nope"], status: 6),
        Case(arguments: ["flag", "eval", "f", "--type", "boolean", "--default", "false", "--context", "\"str\""], status: 6),
        Case(arguments: ["flag", "eval", "f", "--type", "integer", "--default", "one"], status: 6),
        Case(arguments: ["batch"], stdin: text("set user a 1\n{\"op\":\"set\"}\n"), status: 6),
        Case(arguments: ["batch"], stdin: text("delete user a\n"), status: 6),
        Case(arguments: ["batch"], stdin: text("set User a 1\n"), status: 6),
        Case(arguments: ["batch"], stdin: [0x73, 0x65, 0x74, 0x20, 0xC0, 0x0A], status: 6),
        Case(arguments: ["apply"], stdin: text("{\"op\":\"set\"}"), status: 6),
        Case(arguments: ["apply"], stdin: text("[{\"op\":\"set\",\"domain\":\"user\",\"key\":\"k\"}]"), status: 6),
        Case(arguments: ["apply"], stdin: text("[{\"op\":\"incr\",\"domain\":\"user\",\"key\":\"s\"}]"), status: 6),
        Case(
            arguments: ["apply"], stdin: text("[{\"op\":\"set\",\"domain\":\"user\",\"key\":\"s\",\"value\":1,\"ifVersion\":1}]"), status: 5
        ),
        Case(arguments: ["import"], stdin: text("{\"user\":[1]}"), status: 6),
        Case(arguments: ["import"], stdin: text("{\"user\":{\"a\":1}"), status: 6),
        Case(arguments: ["import"], stdin: text("{\"no such domain!\":{}}"), status: 6),
        Case(arguments: ["flag", "import"], stdin: text("{\"flags\":{\"f\":{\"state\":\"MAYBE\",\"variants\":{\"a\":1}}}}"), status: 6),
        Case(
            arguments: ["flag", "import"], stdin: text("{\"flags\":{\"f\":{\"state\":\"ENABLED\",\"variants\":{\"a\":1,\"b\":true}}}}"),
            status: 6),
        Case(arguments: ["flag", "import"], stdin: text("not json at all"), status: 6),
        Case(arguments: ["schema", "load", "-"], stdin: text("{\"user\":{\"k\":{\"type\":\"uuid\"}}}"), status: 6),
        Case(arguments: ["schema", "load", "-"], stdin: text("{\"user\":{\"k\":{\"type\":\"string\",\"pattern\":\"([\"}}}"), status: 6),
        Case(arguments: ["incr", "user", "s"], status: 6),
        Case(arguments: ["incr", "user", "max"], status: 6),
        Case(arguments: ["set", "user", "s", "x", "--if-version", "12"], status: 5),
        Case(arguments: ["rm", "user", "nope", "--must-exist"], status: 1),
        Case(arguments: ["--override", "broken", "get", "user", "s"], status: 2),
    ]

    @Test(arguments: cases)
    func refusedCleanly(testCase: Case) throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["set", "user", "s", "text"])
        try box.runOK(["set", "user", "max", "9223372036854775807"])
        let before = try box.storeSnapshot()
        let result = try box.run(testCase.arguments, expecting: testCase.status, stdinBytes: testCase.stdin ?? [])
        #expect(result.status == testCase.status, "\(testCase): \(result)")
        #expect(result.status < 128, "no crash signal: \(result)")
        let stderrLines = result.stderr.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.isEmpty }
        #expect(stderrLines.count == 1 && stderrLines[0].hasPrefix("prefs: "), "\(testCase): \(result)")
        if !testCase.arguments.contains("batch") {
            #expect(try box.storeSnapshot() == before, "\(testCase): the store is unchanged")
        }
    }
}
