import Foundation
import Testing

/// A command line run in process (`Sandbox(inProcess: true)`, which most command suites use)
/// answers as the `prefs` binary does: the same exit status and the same bytes on standard
/// output and standard error, with its own environment and standard input (issue 39, item 1).
@Suite(
    "commands in process", .timeLimit(.minutes(5)),
    .enabled(
        if: ProcessInfo.processInfo.environment["PREFS_TEST_IN_PROCESS"] != "0", "PREFS_TEST_IN_PROCESS=0 runs every command in the binary")
)
struct InProcessTests {
    /// One session: each command line with its standard input (nil: none) and exit status.
    static let session: [(arguments: [String], stdin: String?, status: Int32)] = [
        (["set", "user", "theme", "dark"], nil, 0),
        (["set", "user", "size", "12"], nil, 0),
        (["set", "user", "note", "-"], "from stdin\n", 0),
        (["get", "user", "theme"], nil, 0),
        (["get", "user", "note", "--json"], nil, 0),
        (["get", "user", "them"], nil, 1),
        (["get", "user", "theme", "size", "--json"], nil, 0),
        (["set", "user", "size", "{"], nil, 6),
        (["set", "user", "size", "13", "--if-absent"], nil, 5),
        (["incr", "user", "size"], nil, 0),
        (["list"], nil, 0),
        (["list", "usr"], nil, 1),
        (["export", "user", "--format", "env"], nil, 0),
        (["import", "-"], #"{"build":{"target":"release"}}"#, 0),
        (["domains"], nil, 0),
        (["rm", "user", "theme", "--must-exist"], nil, 0),
        (["rm", "user", "theme", "--must-exist"], nil, 1),
        (["bogus"], nil, 2),
        (["get"], nil, 2),
        (["set", "user", "size", "1", "--ttl", "soon"], nil, 2),
        (["flag", "list"], nil, 0),
        (["--help"], nil, 0),
        (["help", "get"], nil, 0),
        (["set", "--help"], nil, 0),
        (["--version"], nil, 0),
        (["backup", "@ROOT@/copy.db"], nil, 0),
        (["backup", "@ROOT@/copy.db"], nil, 4),
        (["restore", "@ROOT@/copy.db"], nil, 4),
        (["restore", "@ROOT@/copy.db", "--force"], nil, 0),
        (["log", "--limit", "2", "--json"], nil, 0),
    ]

    /// What `session` prints and exits with in `box` (its directory written ROOT, times T;
    /// `@ROOT@` in an argument is the directory).
    static func transcript(_ box: Sandbox, environment: [String: String] = [:]) throws -> [String] {
        try session.map { line in
            let arguments = line.arguments.map { $0.replacingOccurrences(of: "@ROOT@", with: box.root) }
            var result = try box.run(arguments, expecting: line.status, stdin: line.stdin, environment: environment)
            result.stdout = result.stdout.replacing(/"time":"[^"]*"/, with: #""time":"T""#)
            return "\(line.arguments): \(result)".replacingOccurrences(of: box.root, with: "ROOT")
        }
    }

    @Test func aSessionAnswersAsTheBinaryDoes() throws {
        let inProcess = try Sandbox(inProcess: true)
        #expect(inProcess.inProcess)
        let environment = ["PREFS_ACTOR": "tester"]
        let expected = try Self.transcript(try Sandbox(), environment: environment)
        let got = try Self.transcript(inProcess, environment: environment)
        #expect(got.count == expected.count)
        for (binary, local) in zip(expected, got) { #expect(local == binary) }
        #expect(got[4].contains(#"stdout "\"from stdin\"\n""#), "\(got[4])")
        #expect(got.last?.contains("tester") == true, "\(got.last ?? "")")
    }

    /// Each run has its own environment: neither another run nor this process sees it.
    @Test func eachRunHasItsOwnEnvironment() throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["set", "user", "theme", "dark"])
        let overridden = try box.runOK(["get", "user", "theme"], environment: ["PREFS_OVERRIDES": #"{"user":{"theme":"light"}}"#])
        #expect(overridden.stdout == "light\n" && overridden.stderr.isEmpty, "\(overridden)")
        let plain = try box.runOK(["get", "user", "theme"])
        #expect(plain.stdout == "dark\n" && plain.stderr.isEmpty, "\(plain)")
        #expect(getenv("PREFS_OVERRIDES") == nil)
        // Another store through PREFS_STORE, with no --store: the run's, not the process's.
        let other = box.root + "/other.db"
        try box.runOK(["set", "user", "theme", "blue"], store: false, environment: ["PREFS_STORE": other])
        let read = try box.runOK(["get", "user", "theme"], store: false, environment: ["PREFS_STORE": other])
        #expect(read.stdout == "blue\n", "\(read)")
        #expect(FileManager.default.fileExists(atPath: other))
    }

    /// Runs on several tasks at once keep their output apart.
    @Test func concurrentRunsKeepTheirOutputApart() async throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["set", "user", "n", "0"])
        let results = try await withThrowingTaskGroup(of: (Int, RunResult).self) { group in
            for index in 0..<8 {
                group.addTask { (index, try box.runOK(["get", "user", "n", "--default", "x", "--json"], environment: ["I": "\(index)"])) }
                group.addTask { (-1, try box.runFailing(["get", "user", "missing\(index)"], status: 1)) }
            }
            var all: [(Int, RunResult)] = []
            for try await result in group { all.append(result) }
            return all
        }
        for (index, result) in results {
            if index >= 0 {
                #expect(result.stdout == "0\n" && result.stderr.isEmpty, "\(result)")
            } else {
                #expect(
                    result.stdout.isEmpty && result.stderr.hasPrefix("prefs: user/missing")
                        && result.stderr.count(where: { $0 == "\n" }) == 1, "\(result)")
            }
        }
    }
}
