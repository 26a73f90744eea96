import Foundation
import PrefsCore
import Testing

/// `get --path` and `set --path`: one member of a JSON value, by JSON Pointer (issue 43 item 4).
@Suite("paths into JSON values", .timeLimit(.minutes(5)))
struct JSONPointerPathTests {
    func windowBox() throws -> Sandbox {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["set", "user", "window", #"{"w":800,"h":600,"a/b":{"m~n":"x"},"tags":["one","two"]}"#])
        return box
    }

    @Test func getReadsOneMember() throws {
        let box = try windowBox()
        #expect(try box.runOK(["get", "user", "window", "--path", "/w"]).stdout == "800\n")
        #expect(try box.runOK(["get", "user", "window", "--path", "/tags/1"]).stdout == "two\n")
        #expect(try box.runOK(["get", "user", "window", "--path", "/tags/1", "--json"]).stdout == "\"two\"\n")
        #expect(try box.runOK(["get", "user", "window", "--path", "/a~1b/m~0n"]).stdout == "x\n")
        #expect(try box.runOK(["get", "user", "window", "--path", "/tags"]).stdout == #"["one","two"]"# + "\n")
        #expect(try box.runOK(["get", "user", "window", "--path", ""]).stdout.hasPrefix(#"{"w":800,"#))
        expectFailure(
            try box.runFailing(["get", "user", "window", "--path", "/x"], status: 1), 1,
            contains: "user/window: path /x: /x does not exist")
        expectFailure(
            try box.runFailing(["get", "user", "window", "--path", "/tags/2"], status: 1), 1, contains: "/tags/2 does not exist")
        expectFailure(
            try box.runFailing(["get", "user", "window", "--path", "/w/x"], status: 1), 1,
            contains: "path /w/x: /w is a number, not an object or array")
        expectFailure(try box.runFailing(["get", "user", "nothing", "--path", "/w"], status: 1), 1, contains: "user/nothing not found")
        #expect(try box.runOK(["get", "user", "window", "--path", "/x", "--default", "7"]).stdout == "7\n")
        expectFailure(try box.runFailing(["get", "user", "window", "--path", "w"], status: 2), 2, contains: "not a JSON Pointer")
        expectFailure(try box.runFailing(["get", "user", "window", "--path", "/a~2"], status: 2), 2, contains: "~0 (~) or ~1 (/)")
    }

    @Test func setWritesOneMemberAsOneLoggedWriteOfTheKey() throws {
        let box = try windowBox()
        try box.runOK(["set", "user", "window", "--path", "/w", "1024"], environment: ["PREFS_ACTOR": "jq-user"])
        try box.runOK(["set", "user", "window", "--path", "/tags/-", "three"])
        try box.runOK(["set", "user", "window", "--path", "/tags/0", "--string", "1"])
        try box.runOK(["set", "user", "window", "--path", "/new", "true"])
        #expect(
            try box.runOK(["get", "user", "window"]).stdout
                == #"{"w":1024,"h":600,"a/b":{"m~n":"x"},"tags":["1","two","three"],"new":true}"# + "\n")
        let log = try box.runOK(["log", "user", "window", "--json"]).stdout.split(separator: "\n")
        #expect(log.count == 5, "\(log)")
        #expect(log.last?.contains(#""op":"set""#) == true)
        #expect(
            log.dropFirst(3).first?.contains(#""old":{"w":800,"#) == true && log.dropFirst(3).first?.contains(#""new":{"w":1024,"#) == true
                && log.dropFirst(3).first?.contains(#""actor":"jq-user""#) == true, "\(log)")

        // A missing key or intermediate container: exit 1, nothing written.
        let before = try box.runOK(["get", "user", "window", "--show-meta"]).stdout
        expectFailure(
            try box.runFailing(["set", "user", "window", "--path", "/size/w", "1"], status: 1), 1,
            contains: "user/window: path /size/w: /size does not exist")
        expectFailure(
            try box.runFailing(["set", "user", "window", "--path", "/tags/7", "1"], status: 1), 1, contains: "/tags/7 does not exist")
        expectFailure(
            try box.runFailing(["set", "user", "window", "--path", "/w/x", "1"], status: 1), 1, contains: "/w is a number")
        expectFailure(try box.runFailing(["set", "user", "nothing", "--path", "/w", "1"], status: 1), 1, contains: "user/nothing")
        #expect(try box.runOK(["get", "user", "window", "--show-meta"]).stdout == before)
        expectFailure(try box.runFailing(["get", "user", "nothing"], status: 1), 1)
        expectFailure(
            try box.runFailing(["set", "user", "window", "--path", "/w", "1", "--ttl", "1h"], status: 2), 2, contains: "--path keeps")
    }

    /// A member set deep inside cannot take the whole value past the nesting every reader
    /// accepts (512): refused as a plain `set` of that value is (exit 6), the key unchanged.
    @Test func setWithPathCannotNestPastWhatReadersAccept() throws {
        let box = try Sandbox(inProcess: true)
        let deep = String(repeating: "{\"a\":", count: 500) + "1" + String(repeating: "}", count: 500)
        try box.runOK(["set", "user", "deep", deep])
        let pointer = String(repeating: "/a", count: 500)
        let refused = try box.runFailing(
            ["set", "user", "deep", String(repeating: "[", count: 20) + String(repeating: "]", count: 20), "--path", pointer], status: 6)
        #expect(refused.stderr.hasPrefix("prefs: ") && refused.stdout.isEmpty, "\(refused)")
        #expect(try box.runOK(["get", "user", "deep", "--json"]).stdout == deep + "\n")
        #expect(try box.runOK(["doctor"]).status == 0)
    }

    @Test func setWithPathIsCompareAndSetAndSchemaChecked() throws {
        let box = try windowBox()
        let meta = try box.runOK(["get", "user", "window", "--show-meta"]).stdout
        let object = try JSONSerialization.jsonObject(with: Data(meta.utf8)) as? [String: Any]
        let version = try #require((object?["version"] as? NSNumber)?.int64Value, "\(meta)")
        expectFailure(
            try box.runFailing(["set", "user", "window", "--path", "/w", "1", "--if-version", String(version - 1)], status: 5), 5,
            contains: "is at version \(version)")
        expectFailure(
            try box.runFailing(["set", "user", "window", "--path", "/w", "1", "--if-value", #"{"w":1}"#], status: 5), 5,
            contains: "does not hold the expected value")
        try box.runOK(["set", "user", "window", "--path", "/w", "2", "--if-version", String(version)])
        #expect(try box.runOK(["get", "user", "window", "--path", "/w"]).stdout == "2\n")

        try box.runOK(["schema", "load", "-"], stdin: #"{"user": {"size": {"type": "object", "enum": [{"w": 800}, {"w": 1024}]}}}"#)
        try box.runOK(["set", "user", "size", #"{"w":800}"#])
        try box.runOK(["set", "user", "size", "--path", "/w", "1024"])
        expectFailure(try box.runFailing(["set", "user", "size", "--path", "/w", "1000"], status: 6), 6)
        expectFailure(try box.runFailing(["set", "user", "size", "--path", "", "5"], status: 6), 6)
        #expect(try box.runOK(["get", "user", "size"]).stdout == #"{"w":1024}"# + "\n")
    }
}
