import Foundation
import PrefsCore
import Testing

/// `list` and `export` write the bytes the store holds, escaped byte by byte: keys that JSON
/// must escape, non-ASCII text, C1 controls (raw in JSON, escaped on a terminal line), escaped
/// C0 controls, long values, and rows edited behind prefs' back (raw control bytes, invalid
/// UTF-8) print exactly as they always have.
@Suite("list and export bytes", .timeLimit(.minutes(5)))
struct ListExportBytesTests {
    /// A value of 100,000 bytes and then some, so a row spans the output's 64 KiB flushes.
    static let long = String(repeating: "0123456789", count: 10_000) + "\u{E9}"

    /// The document imported: each member's value is shown with what `list` and `export` print.
    static let document = """
        {"user":{
          "q\\"uote\\\\back": "v",
          "caf\u{E9}": "na\u{EF}ve \u{2603}",
          "c1": "a\u{85}b\u{9B}c",
          "ctl": "line1\\nline2\\u001b[2J\\u007f\\t",
          "long": "\(long)",
          "obj": {"b": [1, 2.50, null], "a": {"x": true}}
        }}
        """

    @Test func listAndExportPrintTheStoredBytesEscaped() throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["import"], stdin: Self.document)
        let lines = [
            "c1\t\"a\\x85b\\x9bc\"",
            "caf\u{E9}\t\"na\u{EF}ve \u{2603}\"",
            "ctl\t\"line1\\nline2\\u001b[2J\\u007f\\t\"",
            "long\t\"\(Self.long)\"",
            "obj\t{\"b\":[1,2.50,null],\"a\":{\"x\":true}}",
            "q\"uote\\back\t\"v\"",
        ]
        #expect(try box.runOK(["list", "user"]).stdout == lines.map { $0 + "\n" }.joined())
        #expect(try box.runOK(["list"]).stdout.contains(lines.map { "user\t" + $0 + "\n" }.joined()))
        #expect(try box.runOK(["list", "user", "--keys-only", "-z"]).stdout == "c1\0caf\u{E9}\0ctl\0long\0obj\0q\"uote\\back\0")
        #expect(try box.runOK(["list", "user", "--prefix", "c"]).stdout == lines[0..<3].map { $0 + "\n" }.joined())
        let exported = try box.runOK(["export", "user"]).stdout
        #expect(
            exported == "{\"user\":{\"c1\":\"a\u{85}b\u{9B}c\",\"caf\u{E9}\":\"na\u{EF}ve \u{2603}\","
                + "\"ctl\":\"line1\\nline2\\u001b[2J\\u007f\\t\",\"long\":\"\(Self.long)\","
                + "\"obj\":{\"b\":[1,2.50,null],\"a\":{\"x\":true}},\"q\\\"uote\\\\back\":\"v\"}}\n")
        // `list --json` prints the same object of keys as the export.
        #expect(try box.runOK(["list", "user", "--json"]).stdout == String(exported.dropFirst(#"{"user":"#.count).dropLast(2)) + "\n")
        #expect(
            try box.runOK(["list", "user", "--json", "--keys-only"]).stdout
                == "[\"c1\",\"caf\u{E9}\",\"ctl\",\"long\",\"obj\",\"q\\\"uote\\\\back\"]\n")
        // The document reads back as the same store: export, import into a new one, export.
        let copy = try Sandbox(inProcess: true)
        try copy.runOK(["import"], stdin: exported)
        #expect(try copy.runOK(["export", "user"]).stdout == exported)
        #expect(try box.runOK(["export"]).stdout == exported)
    }

    @Test func rowsEditedByHandPrintAsTheyAlwaysHave() throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["set", "user", "a", "1"])
        // A key with an escape sequence, a value with a raw one, invalid UTF-8 in a key and a
        // value (read as U+FFFD), spaces in a value: not how prefs writes them.
        try DatabaseQueue(path: box.store).writeWithoutTransaction { db in
            try db.execute(
                sql: """
                    INSERT INTO kv_user VALUES (CAST(X'6B1B5B32' AS TEXT), '"x"', 1, 1, NULL);
                    INSERT INTO kv_user VALUES ('raw', CAST(X'22611B5B324A6222' AS TEXT), 1, 1, NULL);
                    INSERT INTO kv_user VALUES (CAST(X'62FF' AS TEXT), CAST(X'22FE22' AS TEXT), 1, 1, NULL);
                    INSERT INTO kv_user VALUES ('spaced', '{ "b" : [ 1 , 2 ] , "a" : 1 }', 1, 1, NULL);
                    """)
        }
        #expect(
            try box.runOK(["list", "user"]).stdout
                == "a\t1\nb\u{FFFD}\t\"\u{FFFD}\"\nk\\x1b[2\t\"x\"\nraw\t\"a\\x1b[2Jb\"\nspaced\t{ \"b\" : [ 1 , 2 ] , \"a\" : 1 }\n")
        // A raw control character is not JSON: the export stops (exit 3) and prints nothing.
        for command in [["export", "user"], ["list", "user", "--json"]] {
            let failed = try box.runFailing(command, status: 3)
            #expect(failed.stdout == "" && failed.stderr.contains("stored value of user/raw is corrupt: not valid JSON"), "\(failed)")
        }
        try DatabaseQueue(path: box.store).writeWithoutTransaction { db in try db.execute(sql: "DELETE FROM kv_user WHERE key = 'raw'") }
        let object = "{\"a\":1,\"b\u{FFFD}\":\"\u{FFFD}\",\"k\\u001b[2\":\"x\",\"spaced\":{\"b\":[1,2],\"a\":1}}"
        #expect(try box.runOK(["export", "user"]).stdout == "{\"user\":\(object)}\n")
        #expect(try box.runOK(["list", "user", "--json"]).stdout == object + "\n")
    }

    /// A damaged value in the memory tier, found after `list --json` of every domain began
    /// printing it, is the store unreadable (exit 3), not half an object and exit 0 (a memory
    /// tier that cannot be opened at all still does not hide the store file: that error comes
    /// before any of its entries).
    @Test func aDamagedMemoryValueInAListOfEveryDomainIsExitThree() throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["set", "user", "u", "1"])
        try box.runOK(["set", "memory", "a", "1"])
        let memory = StoreLocation.memoryFile(forStore: box.store, environment: box.environment())
        try DatabaseQueue(path: memory).writeWithoutTransaction { db in try db.execute(sql: "UPDATE kv_memory SET value = '{'") }
        let failed = try box.runFailing(["list", "--json"], status: 3)
        #expect(failed.stderr.contains("memory/a"), "\(failed)")
        #expect(failed.stdout == "", "\(failed)")
    }
}
