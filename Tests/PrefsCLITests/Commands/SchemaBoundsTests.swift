import Foundation
import PrefsCore
import Testing

/// The work one value check may do, integers as JSON Schema counts them, and the nesting
/// limit as the messages state it.
@Suite("schema bounds", .timeLimit(.minutes(5)))
struct SchemaBoundsTests {
    func loaded(_ schema: String) throws -> Sandbox {
        let box = try Sandbox(inProcess: true)
        let result = try box.runOK(["schema", "load", "-"], stdin: schema)
        #expect(result.status == 0 && result.stdout.isEmpty, "\(result)")
        return box
    }

    /// `^(?:.{0,4900})*$` keeps about 10,000 threads alive at every scalar: 100 KB took 9.5 s
    /// and 300 KB 31 s; now the check stops at its step budget with exit 6 and the reason.
    @Test func anExpensivePatternOnALargeValueIsRefusedWithTheReason() throws {
        let box = try loaded(#"{"user": {"k": {"type": "string", "pattern": "^(?:.{0,4900})*$"}}}"#)
        for size in [100_000, 300_000] {
            let started = Date()
            let result = try box.runFailing(["set", "user", "k", "-"], status: 6, stdin: String(repeating: "x", count: size))
            expectFailure(result, 6, contains: "user/k: pattern: \"^(?:.{0,4900})*$\" exceeded its step budget")
            #expect(result.stderr.contains("of a value of \(size) scalars"), "\(result)")
            #expect(Date().timeIntervalSince(started) < 20, "a generous bound; scripts/bench measures the time")
            expectFailure(try box.runFailing(["get", "user", "k"], status: 1), 1)
        }
        try box.runOK(["set", "user", "k", "-"], stdin: String(repeating: "x", count: 2_000))
    }

    @Test func ordinaryPatternsOnAMegabyteAreAccepted() throws {
        let box = try loaded(#"{"user": {"k": {"type": "string", "pattern": "^[a-z]+$"}}}"#)
        let megabyte = String(repeating: "abcdefghijklmnopqrstuvwxyz", count: 40_330)
        try box.runOK(["set", "user", "k", "-"], stdin: megabyte)
        #expect(try box.runOK(["get", "user", "k"]).stdout == megabyte + "\n")
    }

    /// A refresh whose document breaks the budget keeps the copy (refresh's exit 7).
    @Test func aRefreshedValueOverTheBudgetKeepsTheCopy() throws {
        let box = try loaded(#"{"dynamic": {"k": {"type": "string", "pattern": "^(?:.{0,4900})*$"}}}"#)
        let good = box.root + "/good.json"
        let bad = box.root + "/bad.json"
        try Data(#"{"k":"fine"}"#.utf8).write(to: URL(fileURLWithPath: good))
        try Data(JSONValue.object([.init("k", .string(String(repeating: "x", count: 300_000)))]).compactText.utf8).write(
            to: URL(fileURLWithPath: bad))
        try box.runOK(["refresh", "dynamic", "--from", good])
        let started = Date()
        let result = try box.runFailing(["refresh", "dynamic", "--from", bad, "--timeout", "60s"], status: 7)
        expectFailure(result, 7, contains: "invalid document: dynamic/k: pattern: \"^(?:.{0,4900})*$\" exceeded its step budget")
        #expect(Date().timeIntervalSince(started) < 20)
        #expect(try box.runOK(["get", "dynamic", "k"]).stdout == "fine\n")
    }

    /// JSON Schema (2020-12) counts a number with a zero fractional part as an integer.
    @Test func integersWithAZeroFractionAreIntegers() throws {
        let box = try loaded(#"{"user": {"n": {"type": "integer", "minimum": 0, "maximum": 100}}}"#)
        for (text, stored) in [("5.0", "5.0"), ("1e1", "1e1"), ("1.5e1", "1.5e1"), ("100.000", "100.000"), ("-0.0", "-0.0"), ("7", "7")] {
            try box.runOK(["set", "user", "n", text])
            #expect(try box.runOK(["get", "user", "n"]).stdout == stored + "\n", "stored as written")
        }
        for text in ["5.5", "1e-1", "0.000001", "1.05e1"] {
            expectFailure(
                try box.runFailing(["set", "user", "n", text], status: 6), 6,
                contains: "user/n: type: expected integer, got a non-integer number")
        }
        expectFailure(try box.runFailing(["set", "user", "n", "1e3"], status: 6), 6, contains: "user/n: maximum: 1e3 is greater than 100")
        try box.runOK(["set", "user", "n", "5.0"])
        expectFailure(
            try box.runFailing(["incr", "user", "n"], status: 6), 6,
            contains: "user/n holds 5.0, not an integer written in at most 19 plain digits")
        #expect(try box.runOK(["get", "user", "n"]).stdout == "5.0\n")
        let document = #"{"user": {"m": {"type": "integer", "default": 2.0, "enum": [1.0, 2e0, 3]}}}"#
        let other = try loaded(document)
        #expect(try other.runOK(["get", "user", "m"]).stdout == "2.0\n")
    }

    /// The depth limit is 512 levels of the value, whatever the command wraps it in: the
    /// messages said 516 for a refresh document or a schema.
    @Test func theDepthLimitIsStatedAs512Everywhere() throws {
        let box = try Sandbox(inProcess: true)
        func nested(_ levels: Int) -> String { String(repeating: "[", count: levels) + String(repeating: "]", count: levels) }
        expectFailure(
            try box.runFailing(["set", "user", "k", "-"], status: 6, stdin: nested(513)), 6, contains: "nested deeper than 512 levels")
        try box.runOK(["set", "user", "k", "-"], stdin: nested(512))
        let imported = try box.runFailing(["import"], status: 6, stdin: "{\"user\":{\"k\":\(nested(513))}}")
        expectFailure(imported, 6, contains: "a value nested deeper than 512 levels")
        let file = box.root + "/deep.json"
        try Data("{\"k\":\(nested(600))}".utf8).write(to: URL(fileURLWithPath: file))
        let refreshed = try box.runFailing(["refresh", "dynamic", "--from", file], status: 7)
        expectFailure(refreshed, 7, contains: "a value nested deeper than 512 levels")
        // 513 levels inside a refresh document passed the document's parser (which allows a
        // flagd document's levels too) and was stored where `get` could not read it.
        try Data("{\"k\":\(nested(513))}".utf8).write(to: URL(fileURLWithPath: file))
        expectFailure(
            try box.runFailing(["refresh", "dynamic", "--from", file], status: 7), 7,
            contains: "invalid document: $.k: a value nested deeper than 512 levels"
        )
        try Data("{\"k\":\(nested(512))}".utf8).write(to: URL(fileURLWithPath: file))
        try box.runOK(["refresh", "dynamic", "--from", file])
        #expect(try box.runOK(["get", "--json", "dynamic", "k"]).stdout == nested(512) + "\n")
        let schema = try box.runFailing(
            ["schema", "load", "-"], status: 6, stdin: "{\"user\":{\"k\":{\"type\":\"any\",\"default\":\(nested(600))}}}")
        expectFailure(schema, 6, contains: "a value nested deeper than 512 levels")
        for result in [imported, refreshed, schema] {
            #expect(!result.stderr.contains("516") && !result.stderr.contains("514"), "\(result)")
        }
    }
}
