import Foundation
import PrefsTestSupport
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

    /// `batch` and `edit` (with ``editor`` as `EDITOR`): the editor's output, its standard
    /// input, its failure, a whole domain, progress lines and a malformed line.
    static let batchAndEditSession: [(arguments: [String], stdin: String?, status: Int32)] = [
        (["set", "user", "note", "first"], nil, 0),
        (["edit", "user", "note"], nil, 0),
        (["get", "user", "note"], nil, 0),
        (["edit", "user", "fail"], nil, 1),
        (["edit", "user", "typed"], "\"typed in\"\n", 0),
        (["get", "user", "typed"], nil, 0),
        (["edit", "user", "same"], nil, 0),
        (["edit", "user"], nil, 0),
        (["list", "user"], nil, 0),
        (["batch"], "set user a 1\n{\"op\":\"incr\",\"domain\":\"user\",\"key\":\"n\",\"by\":2}\n# a comment\nrm user note\n", 0),
        (["batch"], "set user b 2\nincr user n\nbogus\nset user c 3\n", 6),
        (["batch", "--window", "0ms"], "", 2),
        (["batch"], "", 0),
        (["list"], nil, 0),
    ]

    /// The editor of ``batchAndEditSession``: what it does depends on the key in the file's name.
    static let editor = """
        #!/bin/sh
        case "$1" in
          *prefs-edit-note*) echo "editing the note"; echo "a line on stderr" >&2; printf '"edited"\\n' > "$1" ;;
          *prefs-edit-fail*) echo "cannot edit" >&2; exit 3 ;;
          *prefs-edit-typed*) IFS= read -r line; printf '%s\\n' "$line" > "$1" ;;
          *prefs-edit-user*) printf '{"note":"whole","added":[1,2]}\\n' > "$1" ;;
        esac
        """

    /// What `session` prints and exits with in `box` (its directory written ROOT, times T;
    /// `@ROOT@` in an argument is the directory).
    static func transcript(
        _ box: Sandbox, _ session: [(arguments: [String], stdin: String?, status: Int32)] = session, environment: [String: String] = [:]
    ) throws -> [String] {
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

    /// `batch` and `edit` in process answer as the binary does; the editor gets the run's
    /// standard streams.
    @Test func batchAndEditAnswerAsTheBinaryDoes() throws {
        let scripts = try makeTemporaryDirectory(prefix: "prefs-editor")
        defer { try? FileManager.default.removeItem(atPath: scripts) }
        let editor = scripts + "/editor"
        try Self.editor.write(toFile: editor, atomically: true, encoding: .utf8)
        #expect(chmod(editor, 0o755) == 0)
        let environment = ["EDITOR": editor, "VISUAL": editor]
        let expected = try Self.transcript(try Sandbox(), Self.batchAndEditSession, environment: environment)
        let got = try Self.transcript(try Sandbox(inProcess: true), Self.batchAndEditSession, environment: environment)
        #expect(got.count == expected.count)
        for (binary, local) in zip(expected, got) { #expect(local == binary) }
        #expect(got[1].contains(#"stdout "editing the note\n", stderr "a line on stderr\n""#), "\(got[1])")
        #expect(got[5].contains(#"stdout "typed in\n""#), "\(got[5])")
        #expect(got[9].contains(#"stdout "{\"flushed\":3,\"through\":4}\n""#), "\(got[9])")
    }

    /// Batches in process at once, each flushing from its own thread many times: every
    /// progress line reaches its own run's output, none the test's.
    @Test func concurrentBatchesKeepTheirProgressApart() async throws {
        let box = try Sandbox(inProcess: true)
        #expect(box.inProcess)
        let results = try await withThrowingTaskGroup(of: (Int, RunResult).self) { group in
            for index in 1...3 {
                let count = 3_000 + index
                let input = (1...count).map { "set user t\(index)k\($0 % 100) \($0)\n" }.joined()
                group.addTask { (count, try box.runOK(["batch", "--window", "1ms"], stdin: input)) }
            }
            var all: [(Int, RunResult)] = []
            for try await result in group { all.append(result) }
            return all
        }
        #expect(results.count == 3)
        for (count, result) in results {
            let throughs = result.stdout.split(separator: "\n").map { line in
                line.wholeMatch(of: /\{"flushed":\d+,"through":(\d+)\}/).flatMap { Int($0.output.1) } ?? -1
            }
            #expect(!throughs.contains(-1) && result.stderr.isEmpty, "\(result)")
            #expect(throughs == throughs.sorted() && throughs.last == count, "\(result)")
        }
        for index in 1...3 {
            #expect(try box.runOK(["get", "user", "t\(index)k0"]).stdout == "3000\n")
        }
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
