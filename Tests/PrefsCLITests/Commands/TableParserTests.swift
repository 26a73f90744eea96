import Foundation
import PrefsTestSupport
import Testing

/// The generated command table (`TableParser`) must read every command line exactly as
/// ArgumentParser does, or decline it. A debug build compares both on command lines from
/// standard input (`PREFS_COMPARE_PARSERS=1`): for each one the table reads, the command it
/// builds (every property, dumped) must equal the parser's, and the parser must not refuse
/// it. The command lines are made at random (seeded) from the parser's own description of
/// every command: their options, flags and positional arguments with awkward values, in
/// any order, with global options before the command, `=` forms, repeats, `--`, dashes,
/// unknown options. Everything runs in process (the comparison reads the run's standard input).
@Suite("command table", .timeLimit(.minutes(5)))
struct TableParserTests {
    struct Command {
        var path: [String]
        var options: [String] = []
        var flags: [String] = []
        var positionals = 0
    }

    /// Every command with its arguments, from `prefs --experimental-dump-help`.
    static func commands() throws -> [Command] {
        let sandbox = try Sandbox(inProcess: true)
        let result = try sandbox.runOK(["--experimental-dump-help"], store: false)
        #expect(result.status == 0, "\(result)")
        let root = try #require(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        var found: [Command] = []
        func visit(_ command: [String: Any], _ path: [String]) {
            let subcommands = command["subcommands"] as? [[String: Any]] ?? []
            if subcommands.isEmpty && !path.isEmpty {
                var entry = Command(path: path)
                for argument in command["arguments"] as? [[String: Any]] ?? [] {
                    let names = (argument["names"] as? [[String: Any]] ?? []).map { name in
                        (name["kind"] as? String == "long" ? "--" : "-") + (name["name"] as? String ?? "")
                    }
                    switch argument["kind"] as? String {
                    // --since and --until read a duration as a time ago: two parses a
                    // millisecond apart differ.
                    case "option": entry.options += names.filter { $0 != "--since" && $0 != "--until" }
                    case "flag": entry.flags += names.filter { $0 != "-h" && $0 != "--help" }
                    default: entry.positionals += 1
                    }
                }
                found.append(entry)
            }
            for subcommand in subcommands where subcommand["commandName"] as? String != "help" {
                visit(subcommand, path + [subcommand["commandName"] as? String ?? ""])
            }
        }
        visit(root["command"] as? [String: Any] ?? [:], [])
        return found
    }

    /// A small seeded generator (the same command lines on every run).
    struct Generator {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        mutating func pick<T>(_ items: [T]) -> T { items[next(items.count)] }
    }

    static let values = [
        "user", "theme", "x", "1", "-1", "-5", "0.5", "", "-", "--", "a b", "2026-11-22", "integer", "json", "text",
        "{\"a\":1}", "[1]", "true", "help", "user:a=1", "--json", "-z", "/tmp/p.db", "new-checkout", "2",
    ]

    static func commandLine(_ command: Command, _ random: inout Generator) -> [String] {
        var line: [String] = []
        for _ in 0..<random.next(3) {
            switch random.next(4) {
            case 0: line += ["--store", random.pick(["/tmp/a.db", "-x", ""])]
            case 1: line += ["--store=/tmp/b.db"]
            case 2: line += ["--actor", random.pick(["me", "--json"])]
            default: line += ["--override", random.pick(["user:a=1", "bad"])]
            }
        }
        line += command.path
        for _ in 0..<random.next(7) {
            switch random.next(10) {
            case 0, 1, 2, 3:
                line.append(random.pick(values))
            case 4, 5:
                if let option = command.options.isEmpty ? nil : random.pick(command.options) {
                    line += random.next(4) == 0 ? [option + "=" + random.pick(values)] : [option, random.pick(values)]
                }
            case 6, 7:
                if let flag = command.flags.isEmpty ? nil : random.pick(command.flags) { line.append(flag) }
            case 8:
                line.append(random.pick(["--bogus", "-q", "--json=1", "-h", "--version", "--override"]))
            default:
                // The same argument again (repeats).
                if let last = line.last { line.append(last) }
            }
        }
        return line
    }

    @Test func theTableReadsEveryCommandLineAsTheParserDoes() throws {
        let commands = try Self.commands()
        #expect(commands.count >= 39, "\(commands.map(\.path))")
        var random = Generator(state: 19)
        var lines: [[String]] = []
        for command in commands {
            // The plain form first: every positional argument, no option.
            lines.append(command.path + Array(repeating: "x", count: min(command.positionals, 2)))
            for _ in 0..<150 { lines.append(Self.commandLine(command, &random)) }
        }
        let input = lines.map { $0.joined(separator: "\u{1F}") }.joined(separator: "\n") + "\n"
        let sandbox = try Sandbox(inProcess: true)
        let result = try sandbox.runOK([], stdin: input, store: false, environment: ["PREFS_COMPARE_PARSERS": "1"], timeout: 900)
        #expect(result.status == 0, "\(result)")
        let mismatches = result.stdout.components(separatedBy: "\n").filter { $0.hasPrefix("mismatch") }
        #expect(mismatches.isEmpty, "\(mismatches.count) command lines read differently:\n\(result.stdout.prefix(6000))")
        // The summary proves the comparison ran, on enough command lines the table read.
        let summary = try #require(result.stdout.components(separatedBy: "\n").last { $0.hasPrefix("compared") }, "\(result)")
        let counts = summary.split(separator: " ").compactMap { Int($0) }
        #expect(counts.count == 2 && counts[0] == lines.count, "\(summary)")
        #expect(counts.count == 2 && counts[1] >= lines.count / 10, "the table read too few: \(summary)")
    }

    /// The executable answers a plain `get` before the command table reads the command line
    /// (`QuickGet.plainGet`): every line it takes must be one the table reads as the same
    /// `get` (store, domain, one key, `--json`, nothing else), or the start-up answer could
    /// differ from the command's. Seeded `get` lines with the store and `--json` in every
    /// place, `=` forms, repeats, dashes, empty values and the options it leaves to the table.
    @Test func theStartUpGetReadsWhatTheTableReads() throws {
        var random = Generator(state: 41)
        let pieces: [[String]] = [
            ["--store", "/tmp/a.db"], ["--store=/tmp/b.db"], ["--store", ""], ["--store="], ["--store", "-x"], ["--store=-y"],
            ["--json"], ["--json"], ["--actor", "me"], ["--override", "user:a=1"], ["--prefix", "a"], ["--default", "d"],
            ["--show-meta"], ["--path", "/a"], ["--"], ["-"], [""], ["--json=1"], ["-h"],
        ]
        var lines: [[String]] = [["get", "user", "theme"], ["--store", "/tmp/s.db", "get", "user", "theme", "--json"]]
        let words = Self.values.filter { !$0.hasPrefix("-") }
        for index in 0..<1_500 {
            var line: [String] = []
            if random.next(3) == 0 { line += random.pick(pieces.prefix(6).map { $0 }) }
            line.append(random.next(12) == 0 ? random.pick(["set", "list", "--json", "rm"]) : "get")
            if index.isMultiple(of: 2) {
                // Near the plain form: two words, then the store and --json in any place.
                line += [random.pick(words), random.pick(words)]
                for _ in 0..<random.next(3) {
                    line.insert(contentsOf: random.pick(pieces.prefix(8).map { $0 }), at: line.count - random.next(3))
                }
            } else {
                for _ in 0..<random.next(6) {
                    line += random.next(2) == 0 ? [random.pick(Self.values)] : random.pick(pieces)
                }
            }
            lines.append(line)
        }
        let input = lines.map { $0.joined(separator: "\u{1F}") }.joined(separator: "\n") + "\n"
        let result = try Sandbox(inProcess: true).runOK(
            [], stdin: input, store: false, environment: ["PREFS_COMPARE_PARSERS": "1"], timeout: 900)
        let mismatches = result.stdout.components(separatedBy: "\n").filter { $0.hasPrefix("mismatch") }
        #expect(mismatches.isEmpty, "\(mismatches.count) command lines read differently:\n\(result.stdout.prefix(6000))")
        // The count proves the start-up path was compared, on enough of the lines.
        let summary = try #require(result.stdout.components(separatedBy: "\n").first { $0.hasPrefix("start-up get ") }, "\(result)")
        let taken = try #require(Int(summary.dropFirst("start-up get ".count)), "\(summary)")
        #expect(taken >= 150 && taken < lines.count / 2, "\(summary) of \(lines.count)")
    }

    /// The help texts the table keeps (80 columns) are the parser's, byte for byte, for every
    /// command and group; another width (COLUMNS) is the parser's own answer.
    @Test func keptHelpIsTheParsersHelp() throws {
        let sandbox = try Sandbox(inProcess: true)
        var paths = try Self.commands().map(\.path)
        paths += [[], ["flag"], ["schema"], ["remote"]]
        for path in paths {
            for columns in [nil, "100"] {
                let environment = columns.map { ["COLUMNS": $0] } ?? [:]
                // At 80 columns the table must answer (exit 97 otherwise), so this compares its
                // text; at 100 the parser answers both.
                let kept = sandbox.runHelpInProcess(
                    path + ["--help"], environment: environment.merging(columns == nil ? ["PREFS_REQUIRE_TABLE": "1"] : [:]) { $1 })
                let full = sandbox.runHelpInProcess(path + ["--help"], environment: environment.merging(["PREFS_FULL_PARSE": "1"]) { $1 })
                #expect(kept.status == 0 && full.status == 0, "prefs \(path) --help: \(kept) vs \(full)")
                #expect(kept.stdout == full.stdout && !kept.stdout.isEmpty, "prefs \(path) --help, COLUMNS \(columns ?? "unset")")
                #expect(kept.stderr == full.stderr, "prefs \(path) --help")
            }
        }
        // -h is the same text.
        #expect(sandbox.runHelpInProcess(["set", "-h"]).stdout == sandbox.runHelpInProcess(["set", "--help"]).stdout)
    }
}
