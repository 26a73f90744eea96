import Foundation
import Testing

/// A value given as text is read by the key's schema type the same way in `set`, in `batch`'s
/// short lines and in `apply` (from the value's JSON text); `get --show-meta` answers from
/// the same lookup as `get`.
@Suite("schema typing", .timeLimit(.minutes(5)))
struct SchemaTypingTests {
    static let schema = #"{"user":{"beta":{"type":"boolean"},"zip":{"type":"string"},"n":{"type":"integer"}}}"#

    @Test func batchShortLinesAreTypedAsInSet() throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["schema", "load", "-"], stdin: Self.schema)
        let lines = """
            set user beta yes
            set user zip 12345
            set user count 12345
            {"op":"set","domain":"user","key":"n","value":7}

            """
        try box.runOK(["batch", "--window", "1ms"], stdin: lines)
        #expect(try box.runOK(["get", "user", "beta", "--json"]).stdout == "true\n")
        #expect(try box.runOK(["get", "user", "zip", "--json"]).stdout == "\"12345\"\n")
        // A key the schema does not name: JSON when it is valid JSON, as before.
        #expect(try box.runOK(["get", "user", "count", "--json"]).stdout == "12345\n")
        #expect(try box.runOK(["get", "user", "n", "--json"]).stdout == "7\n")
        // Text an integer key cannot read still fails the schema's check, naming the line.
        let wrong = try box.runFailing(["batch"], status: 6, stdin: "set user n many\n")
        #expect(wrong.stderr == "prefs: line 1: user/n: type: expected integer, got a string\n", "\(wrong)")
    }

    @Test func applyValuesAreTypedAsInSet() throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["schema", "load", "-"], stdin: Self.schema)
        let document = #"""
            [{"op":"set","domain":"user","key":"zip","value":12345},
             {"op":"set","domain":"user","key":"beta","value":true},
             {"op":"set","domain":"user","key":"count","value":12345}]
            """#
        try box.runOK(["apply"], stdin: document)
        #expect(try box.runOK(["get", "user", "zip", "--json"]).stdout == "\"12345\"\n")
        #expect(try box.runOK(["get", "user", "beta", "--json"]).stdout == "true\n")
        #expect(try box.runOK(["get", "user", "count", "--json"]).stdout == "12345\n")
        // As `prefs set user n '"5"'`: a JSON string stays a string, which an integer key refuses.
        let wrong = try box.runFailing(["apply"], status: 6, stdin: #"[{"op":"set","domain":"user","key":"n","value":"5"}]"#)
        expectFailure(wrong, 6, contains: "user/n")
        #expect(try box.runFailing(["get", "user", "n"], status: 1).status == 1)
    }

    @Test func showMetaAnswersFromTheSameLookupAsGet() throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["set", "user", "theme", "dark"])
        // A missing key: the same message (with its hint) either way.
        let plain = try box.runFailing(["get", "user", "them"], status: 1)
        let meta = try box.runFailing(["get", "user", "them", "--show-meta"], status: 1)
        #expect(plain.stderr.contains("theme"), "\(plain)")
        #expect(meta.stderr == plain.stderr, "\(meta) vs \(plain)")
        #expect(meta.stdout.isEmpty, "\(meta)")
        // A stored value carries its version; an override, a default and a fallback none.
        let stored = try box.runOK(["get", "user", "theme", "--show-meta"])
        #expect(stored.stdout.hasPrefix(#"{"value":"dark","version":"#), "\(stored)")
        let overridden = try box.runOK(["--override", "user:theme=light", "get", "user", "theme", "--show-meta"])
        #expect(overridden.stdout == #"{"value":"light","version":null,"updatedAt":null,"expiresAt":null}"# + "\n", "\(overridden)")
        let fallback = try box.runOK(["get", "user", "other", "--show-meta", "--default", "3"])
        #expect(fallback.stdout.hasPrefix(#"{"value":3"#), "\(fallback)")
    }
}
