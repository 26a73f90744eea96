import Foundation
import PrefsTestSupport
import Testing

/// Every command is read with the generated command table (`TableParser`); help, usage errors,
/// completions, unknown commands and rare forms go to the full parser. Each case here runs in two sandboxes that go through the same steps:
/// once as a user runs it, once with `PREFS_FULL_PARSE=1` (a debug build parses from the root
/// only), and stdout, stderr and the exit status must be identical (sandbox paths read as
/// ROOT). Cases that must take the table run with `PREFS_REQUIRE_TABLE=1`, which makes a debug
/// build exit 97 when the table declined the command line; `dispatched: false` cases (the
/// parser's own answers) run without it.
/// The commands run in process (``PrefsCommandLine``'s entry reads both switches from the run's
/// environment), but for the binary's words (``Sandbox/binaryOnly``: completion, watch, serve,
/// sync), all in ``helpUsageErrorsAndUnknownCommandsKeepTheParsersText()``. A plain `get` on
/// the binary is answered before the table (the start-up path: `QuickGetTests`).
@Suite("start-up dispatch", .timeLimit(.minutes(5)), .ownThreads)
struct DispatchTests {
    let fast: Sandbox
    let full: Sandbox

    init() throws {
        fast = try Sandbox(inProcess: true)
        full = try Sandbox(inProcess: true)
    }

    /// Runs `prefs ARGS` in both sandboxes (`@ROOT@` in an argument or in stdin is each
    /// sandbox's directory) and expects the same result, exit `status`; returns the fast one.
    @discardableResult
    func both(
        _ arguments: [String], stdin: String? = nil, dispatched: Bool = true, environment: [String: String] = [:], status: Int32 = 0,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> RunResult {
        func run(_ box: Sandbox, _ extra: [String: String]) throws -> RunResult {
            let arguments = arguments.map { $0.replacingOccurrences(of: "@ROOT@", with: box.root) }
            let input = stdin?.replacingOccurrences(of: "@ROOT@", with: box.root)
            var result = try box.run(
                arguments, expecting: status, stdin: input, environment: environment.merging(extra) { $1 }, sourceLocation: sourceLocation)
            result.stdout = result.stdout.replacingOccurrences(of: box.root, with: "ROOT")
            result.stderr = result.stderr.replacingOccurrences(of: box.root, with: "ROOT")
            // The evaluation's `$flagd.timestamp` is each run's own second.
            result.stdout = result.stdout.replacingOccurrences(
                of: #""timestamp":[0-9]+"#, with: #""timestamp":T"#, options: .regularExpression)
            return result
        }
        let quick = try run(fast, dispatched ? ["PREFS_REQUIRE_TABLE": "1"] : [:])
        let slow = try run(full, ["PREFS_FULL_PARSE": "1"])
        let shown = "prefs \(arguments.joined(separator: " ")): fast \(quick) vs full \(slow)"
        #expect(quick.stdout == slow.stdout, "\(shown)", sourceLocation: sourceLocation)
        #expect(quick.stderr == slow.stderr, "\(shown)", sourceLocation: sourceLocation)
        #expect(quick.status == slow.status, "\(shown)", sourceLocation: sourceLocation)
        return quick
    }

    /// Writes `text` to `name` in both sandboxes.
    func file(_ name: String, _ text: String) throws {
        for box in [fast, full] {
            try text.replacingOccurrences(of: "@ROOT@", with: box.root).write(
                toFile: box.root + "/" + name, atomically: true, encoding: .utf8)
        }
    }

    @Test func theSwitchesWork() throws {
        try fast.runFailing(["get", "user", "x"], status: 1, environment: ["PREFS_REQUIRE_TABLE": "1"])
        // A negative number before the positional values is the parser's to place (it refuses it).
        let declined = try fast.runFailing(["set", "-5", "user", "x"], status: 97, environment: ["PREFS_REQUIRE_TABLE": "1"])
        #expect(declined.status == 97, "\(declined)")
        #expect(declined.stderr.contains("PREFS_REQUIRE_TABLE"), "\(declined)")
        #expect(try both(["set", "-5", "user", "x"], dispatched: false, status: 2).status == 2)
    }

    /// `--` ends the options: what follows is positional, as the parser reads it.
    @Test func theTerminator() throws {
        #expect(try both(["set", "user", "y", "--", "-7"]).status == 0)
        #expect(try both(["set", "user", "z", "--", "--"]).status == 0)
        #expect(try both(["set", "user", "--", "-k", "x"], dispatched: false).status == 0)
        #expect(try both(["set", "--", "user", "w", "v"], dispatched: false).status == 0)
        #expect(try both(["set", "--", "user", "w", "-v"], dispatched: false, status: 2).status == 2)
        #expect(try both(["set", "user", "--", "k", "-x"], dispatched: false, status: 2).status == 2)
        #expect(try both(["get", "--", "user", "y"]).stdout == "-7\n")
        #expect(try both(["get", "user", "z"]).stdout == "--\n")
        #expect(try both(["get", "user", "--", "-k"]).stdout == "x\n")
        #expect(try both(["get", "--json", "--", "user", "w"]).stdout == "\"v\"\n")
        let two = try both(["get", "--", "user", "y", "extra"], status: 1)
        #expect(two.status == 1 && two.stdout == "-7\n", "\(two)")
        #expect(try both(["rm", "--", "user", "w"]).status == 0)
        #expect(try both(["get", "user", "w"], status: 1).status == 1)
        #expect(try both(["list", "--", "user"]).stdout.contains("y\t-7"))
    }

    @Test func valueCommands() throws {
        #expect(try both(["set", "user", "theme", "dark"]).status == 0)
        #expect(try both(["set", "user", "offset", "-5"]).status == 0)
        #expect(try both(["set", "user", "n", "1", "--type", "integer", "--ttl", "1h"]).status == 0)
        #expect(try both(["set", "user", "text", "-"], stdin: "from stdin\n").status == 0)
        #expect(try both(["set", "user", "help", "--string", "x"]).status == 0)
        #expect(try both(["set", "user", "theme", "light", "--if-value", "\"dark\""]).status == 0)
        #expect(try both(["set", "user", "theme", "x", "--if-absent"], status: 5).status == 5)
        #expect(try both(["set", "memory", "token", "t1"]).status == 0)
        #expect(try both(["get", "user", "theme"]).stdout == "light\n")
        #expect(try both(["get", "user", "offset", "--json"]).stdout == "-5\n")
        #expect(try both(["get", "user", "help"]).stdout == "x\n")
        #expect(try both(["get", "user", "missing", "--default", "d"]).stdout == "d\n")
        #expect(try both(["get", "user", "missing"], status: 1).status == 1)
        #expect(try both(["get", "memory", "token"]).stdout == "t1\n")
        #expect(try both(["get", "user", "theme", "offset"]).stdout == "light\n-5\n")
        #expect(try both(["get", "user", "--prefix", "t"]).status == 0)
        #expect(try both(["get", "user", "theme", "--show-origin"]).stdout == "store\tlight\n")
        #expect(try both(["get", "user", "theme", "--store", "@ROOT@/store/prefs.db"]).stdout == "light\n")
        #expect(try both(["--override", "user:theme=o", "get", "user", "theme", "--override", "user:offset=1", "offset"]).status == 0)
        #expect(try both(["--store=@ROOT@/other.db", "get", "user", "theme"], status: 1).status == 1)
        #expect(try both(["incr", "user", "offset", "--by", "2"]).stdout == "-3\n")
        #expect(try both(["incr", "user", "theme"], status: 6).status == 6)
        #expect(try both(["list", "user"]).status == 0)
        #expect(try both(["list", "user", "--json"]).status == 0)
        #expect(try both(["domains"]).status == 0)
        #expect(try both(["rm", "user", "nothing"]).status == 0)
        #expect(try both(["rm", "user", "text", "help"]).status == 0)
        #expect(try both(["describe", "user", "theme"]).status == 0)
        #expect(try both(["reset", "user", "n"]).status == 0)
        #expect(try both(["log", "user", "nothing"]).status == 0)
        #expect(try both(["log", "--retain", "100"]).status == 0)
        #expect(try both(["export", "user"]).status == 0)
        try file("in.json", #"{"user":{"a":1,"b":"two"}}"#)
        #expect(try both(["import", "@ROOT@/in.json"]).status == 0)
        try file("ops.json", #"[{"op":"set","domain":"user","key":"c","value":3}]"#)
        #expect(try both(["apply", "@ROOT@/ops.json"]).status == 0)
        #expect(try both(["batch"], stdin: "set user d 4\nrm user a\n").status == 0)
        #expect(try both(["edit", "user", "b"], environment: ["EDITOR": "true", "VISUAL": "true"]).status == 0)
        #expect(try both(["export"]).status == 0)
    }

    @Test func schemaFlagsAndMaintenance() throws {
        try file("schema.json", #"{"user":{"volume":{"type":"integer","default":7,"pattern":"^x"}}}"#)
        try file("s2.json", #"{"user":{"code":{"type":"string","pattern":"^[a-z]+$"}}}"#)
        try both(["schema", "load", "@ROOT@/schema.json"], status: 6)
        #expect(try both(["schema", "load", "@ROOT@/s2.json"]).status == 0)
        #expect(try both(["schema", "show"]).status == 0)
        #expect(try both(["set", "user", "code", "ABC"], status: 6).status == 6)
        #expect(try both(["set", "user", "code", "abc"]).status == 0)
        #expect(try both(["describe", "user", "code"]).status == 0)
        let examples = repositoryRoot + "/examples"
        let flags = try String(contentsOfFile: examples + "/flags.json", encoding: .utf8)
        try file("flags.json", flags)
        #expect(try both(["flag", "import", "@ROOT@/flags.json"]).status == 0)
        #expect(try both(["flag", "list"]).status == 0)
        #expect(try both(["flag", "show", "new-checkout"]).status == 0)
        #expect(try both(["flag", "eval", "new-checkout", "--type", "boolean", "--default", "false"]).status == 0)
        #expect(
            try both(["flag", "eval", "new-checkout", "--type", "boolean", "--default", "false", "--targeting-key=", "--json"]).status == 0)
        try both(["flag", "enabled", "new-checkout", "--context", #"{"email":"a@example.com"}"#], status: 1)
        #expect(try both(["flag", "explain", "new-checkout", "--targeting-key", "u1"]).status == 0)
        #expect(try both(["flag", "explain", "new-checkout", "--json", "--context", #"{"email":"a@example.com"}"#]).status == 0)
        #expect(try both(["flag", "stats", "new-checkout", "--synthetic", "200"]).status == 0)
        #expect(try both(["flag", "diff", "@store", "@ROOT@/flags.json", "--synthetic", "50"]).status == 0)
        #expect(try both(["flag", "lint", "@ROOT@/flags.json"]).status == 0)
        #expect(try both(["flag", "lint", "--format", "nope"], dispatched: false, status: 2).status == 2)
        #expect(try both(["flag", "disable", "new-checkout"]).status == 0)
        #expect(try both(["flag", "enabled", "new-checkout"], status: 1).status == 1)
        #expect(try both(["flag", "enable", "new-checkout"]).status == 0)
        #expect(try both(["flag", "config", "fractional-version", "2"]).status == 0)
        #expect(try both(["flag", "config", "fractional-version"]).stdout == "2\n")
        #expect(try both(["flag", "export"]).status == 0)
        #expect(try both(["refresh", "switch", "--from", "@ROOT@/flags.json"]).status == 0)
        expectFailure(try both(["remote", "show"], status: 1), 1, contains: "no remote set")
        #expect(try both(["remote", "set", "postgres://u@127.0.0.1:1/db"]).status == 0)
        #expect(try both(["remote", "unset"]).status == 0)
        #expect(try both(["doctor"]).status == 0)
        #expect(try both(["backup", "@ROOT@/backup.db"]).status == 0)
        #expect(try both(["restore", "@ROOT@/backup.db"], status: 4).status == 4)
        #expect(try both(["restore", "@ROOT@/backup.db", "--force"]).status == 0)
    }

    @Test func helpUsageErrorsAndUnknownCommandsKeepTheParsersText() throws {
        // Help, version and completion forms exit 0; usage errors 2.
        let answered: [[String]] = [
            ["--help"], ["-h"], ["help"], ["help", "set"], ["help", "flag", "eval"], ["--version"], ["set", "--help"],
            ["flag", "eval", "--help"], ["flag"], ["schema"], ["remote"], ["get", "user", "k", "-h"],
            ["--generate-completion-script", "bash"], ["set", "user", "k", "v", "--generate-completion-script", "bash"],
            ["--experimental-dump-help"],
        ]
        let refused: [[String]] = [
            ["---completion", "get", "--", "positional@0", "0", ""],
            ["flag", "nosuch"], ["gett", "user", "x"], ["help", "nosuch"], ["get"], ["get", "user"], ["set", "user", "k"],
            ["set", "user", "k", "a", "b"], ["set", "user", "k", "v", "--bogus"],
            ["set", "user", "k", "v", "--if-absent", "--if-version", "1"],
            ["get", "user", "k", "--show-meta", "--show-origin"], ["list", "user", "--limit", "x"], ["log", "--since", "yesterday"],
            ["set", "user", "k", "v", "--ttl", "soon"], ["--store"], ["--bogus", "get", "user", "k"],
            ["flag", "eval", "f", "--fractional-version", "9"], ["incr"], ["--", "get", "user", "k"], ["rm"], ["watch", "--bogus"],
            ["sync", "--timeout", "x"],
        ]
        for (arguments, status) in answered.map({ ($0, Int32(0)) }) + refused.map({ ($0, Int32(2)) }) {
            let result = try both(arguments, dispatched: false, status: status)
            #expect(!(result.stdout + result.stderr).isEmpty, "prefs \(arguments): \(result)")
        }
        #expect(try both(["set", "user", "k"], dispatched: false, status: 2).status == 2)
        #expect(try both(["set", "user", "k", "--", "--help"], dispatched: false).status == 0)
        #expect(try both(["get", "user", "k"], dispatched: false).stdout == "--help\n")
        #expect(try both(["flag", "nosuch"], dispatched: false, status: 2).status == 2)
        // The helpers' commands (the binary: their run replaces the process with the helper).
        #expect(try both(["serve", "--listen", "nowhere"], status: 2).status == 2)
        #expect(try both(["sync"], status: 2).status == 2)
    }
}
