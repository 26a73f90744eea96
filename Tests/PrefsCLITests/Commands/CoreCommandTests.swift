import Foundation
import PrefsCore
import Testing

/// The version `get --show-meta` reports for a key of `user`.
func version(_ box: Sandbox, _ key: String) throws -> Int64 {
    let meta = try box.runOK(["get", "user", key, "--show-meta"]).stdout
    let object = try JSONSerialization.jsonObject(with: Data(meta.utf8)) as? [String: Any]
    return (object?["version"] as? NSNumber)?.int64Value ?? -1
}

@Suite("get, set, rm", .timeLimit(.minutes(5)))
struct GetSetRemoveTests {
    @Test func missingKeyExitsOneAndCreatesNothing() throws {
        let box = try Sandbox(inProcess: true)
        expectFailure(try box.runFailing(["get", "user", "theme"], status: 1), 1, contains: "user/theme not found")
        #expect(!FileManager.default.fileExists(atPath: box.store))
    }

    @Test func setThenGetPrintsStringsRawAndJSONQuoted() throws {
        let box = try Sandbox(inProcess: true)
        let set = try box.runOK(["set", "user", "theme", "dark"])
        #expect(set.status == 0 && set.stdout.isEmpty && set.stderr.isEmpty, "\(set)")
        #expect(try box.runOK(["get", "user", "theme"]).stdout == "dark\n")
        #expect(try box.runOK(["get", "user", "theme", "--json"]).stdout == "\"dark\"\n")
    }

    @Test func globalOptionWorksBeforeAndAfterTheCommand() throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["set", "user", "a", "1"])
        #expect(try box.runOK(["get", "user", "a", "--store", box.store], store: false).stdout == "1\n")
        #expect(try box.runOK(["--store", box.store, "get", "user", "a"], store: false).stdout == "1\n")
        let viaEnv = try box.runOK(["get", "user", "a"], store: false, environment: ["PREFS_STORE": box.store])
        #expect(viaEnv.stdout == "1\n")
    }

    @Test func defaultLocationFollowsXDGThenHome() throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["set", "user", "k", "v"], store: false)
        #expect(FileManager.default.fileExists(atPath: box.root + "/data/prefs/prefs.db"))
        var env = box.environment()
        env.removeValue(forKey: "XDG_DATA_HOME")
        let viaHome =
            box.inProcess
            ? Sandbox.runInProcess(["set", "user", "k", "v"], stdin: nil, environment: env)
            : try Sandbox.exec(Sandbox.binary, ["set", "user", "k", "v"], stdin: nil, environment: env)
        #expect(viaHome.status == 0, "\(viaHome)")
        #expect(FileManager.default.fileExists(atPath: box.root + "/home/.local/share/prefs/prefs.db"))
    }

    @Test func getDefaultAnswersWithExitZero() throws {
        let box = try Sandbox(inProcess: true)
        let result = try box.runOK(["get", "user", "missing", "--default", "light"])
        #expect(result.status == 0 && result.stdout == "light\n", "\(result)")
        #expect(try box.runOK(["get", "user", "missing", "--default", "3", "--json"]).stdout == "3\n")
        try box.runOK(["set", "user", "present", "x"])
        #expect(try box.runOK(["get", "user", "present", "--default", "y"]).stdout == "x\n")
    }

    @Test(arguments: [
        // input, expected --json output
        ("3", "3"), ("true", "true"), ("null", "null"), ("\"x\"", "\"x\""), ("[1]", "[1]"),
        ("{\"a\":1}", "{\"a\":1}"), ("hello world", "\"hello world\""), ("0.1", "0.1"),
        ("12345678901234567890123456789", "12345678901234567890123456789"), ("1e400", "1e400"),
        ("-0", "-0"), ("", "\"\""), ("héllo ✓ 日本", "\"héllo ✓ 日本\""), ("{ \"b\" : [ 1 , 2 ] }", "{\"b\":[1,2]}"),
        ("line1\nline2", "\"line1\\nline2\""), ("-5", "-5"), ("007", "\"007\""),
    ])
    func autoTyping(input: String, expected: String) throws {
        let box = try Sandbox(inProcess: true)
        let set = try box.runOK(["set", "user", "k", input])
        #expect(set.status == 0, "\(set)")
        #expect(try box.runOK(["get", "--json", "user", "k"]).stdout == expected + "\n")
    }

    @Test(arguments: ["{x", "[1,", "{\"a\":}", "[1]]", " {"])
    func braceOrBracketMustBeValidJSON(input: String) throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["set", "user", "k", "before"])
        expectFailure(try box.runFailing(["set", "user", "k", input], status: 6), 6, contains: "invalid JSON")
        #expect(try box.runOK(["get", "user", "k"]).stdout == "before\n")
    }

    @Test func explicitTypes() throws {
        let box = try Sandbox(inProcess: true)
        let cases: [([String], String)] = [
            (["--string", "{x"], "\"{x\""), (["--string", "3"], "\"3\""), (["--type", "string", "dark"], "\"dark\""),
            (["--type", "string", "\"3\""], "\"3\""),
            (["--type", "boolean", "yes"], "true"), (["--type", "boolean", "OFF"], "false"), (["--type", "number", "2.5"], "2.5"),
            (["--type", "integer", "-42"], "-42"), (["--type", "object", "{}"], "{}"), (["--type", "array", "[]"], "[]"),
            (["--type", "json", "\"q\""], "\"q\""),
        ]
        for (arguments, expected) in cases {
            let set = try box.runOK(["set", "user", "k"] + arguments)
            #expect(set.status == 0, "\(arguments): \(set)")
            #expect(try box.runOK(["get", "--json", "user", "k"]).stdout == expected + "\n", "\(arguments)")
        }
        let mismatches: [[String]] = [
            ["--type", "integer", "3.5"], ["--type", "number", "abc"], ["--type", "boolean", "maybe"],
            ["--type", "object", "[1]"], ["--type", "array", "{}"], ["--type", "json", "bare"], ["--type", "string", "3"],
        ]
        for arguments in mismatches {
            expectFailure(try box.runFailing(["set", "user", "k"] + arguments, status: 6), 6)
        }
        #expect(try box.runOK(["get", "--json", "user", "k"]).stdout == "\"q\"\n")
        expectFailure(try box.runFailing(["set", "user", "k", "--type", "float", "1"], status: 2), 2)
        expectFailure(try box.runFailing(["set", "user", "k", "--string", "--type", "json", "1"], status: 2), 2)
    }

    @Test func valueFromStandardInput() throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["set", "user", "motd", "-"], stdin: "hello\nworld\n")
        #expect(try box.runOK(["get", "user", "motd"]).stdout == "hello\nworld\n")
        try box.runOK(["set", "user", "obj", "-"], stdin: "{\"a\": [1, 2]}\n")
        #expect(try box.runOK(["get", "user", "obj"]).stdout == "{\"a\":[1,2]}\n")
        expectFailure(try box.runFailing(["set", "user", "bad", "-"], status: 6, stdinBytes: [0x61, 0xFF, 0x62]), 6, contains: "UTF-8")
    }

    @Test func jsonRoundTripIsIdentity() throws {
        let box = try Sandbox(inProcess: true)
        let values = [
            "12345678901234567890", "0.1", "\"ünïcödé 🎉\"", "{\"n\":{\"d\":[null,true,{\"x\":\"\"}]}}", "\"\"", "null",
            "\"tab\\tquote\\\"\"",
        ]
        for value in values {
            try box.runOK(["set", "--type", "json", "user", "src", value])
            let json = try box.runOK(["get", "--json", "user", "src"]).stdout.trimmingCharacters(in: .newlines)
            #expect(json == value)
            try box.runOK(["set", "--type", "json", "user", "copy", json])
            #expect(try box.runOK(["get", "--json", "user", "copy"]).stdout == value + "\n")
        }
    }

    @Test func versionsAndCompareAndSet() throws {
        let box = try Sandbox(inProcess: true)
        expectFailure(try box.runFailing(["set", "user", "k", "1", "--if-version", "1"], status: 5), 5, contains: "does not exist")
        try box.runOK(["set", "user", "k", "1", "--if-absent"])
        expectFailure(try box.runFailing(["set", "user", "k", "2", "--if-absent"], status: 5), 5, contains: "already exists")
        let first = try version(box, "k")
        try box.runOK(["set", "user", "k", "2", "--if-version", "\(first)"])
        let second = try version(box, "k")
        #expect(second > first)
        expectFailure(
            try box.runFailing(["set", "user", "k", "3", "--if-version", "\(first)"], status: 5), 5, contains: "version \(second)")
        expectFailure(try box.runFailing(["set", "user", "k", "3", "--if-value", "1"], status: 5), 5)
        try box.runOK(["set", "user", "k", "3", "--if-value", "2"])
        #expect(try box.runOK(["get", "user", "k"]).stdout == "3\n")
    }

    @Test func removeSeveralKeysPrefixAndMustExist() throws {
        let box = try Sandbox(inProcess: true)
        for key in ["a", "b", "c", "on.x", "on.y", "onz"] { try box.runOK(["set", "user", key, "1"]) }
        try box.runOK(["rm", "user", "a", "b", "never"])
        #expect(try box.runOK(["list", "user", "--keys-only"]).stdout == "c\non.x\non.y\nonz\n")
        expectFailure(try box.runFailing(["rm", "user", "c", "never", "--must-exist"], status: 1), 1, contains: "user/never not found")
        #expect(try box.runOK(["get", "user", "c"]).status == 0, "a failed --must-exist removes nothing")
        try box.runOK(["rm", "user", "--prefix", "on."])
        #expect(try box.runOK(["list", "user", "--keys-only"]).stdout == "c\nonz\n")
        expectFailure(try box.runFailing(["rm", "user", "--prefix", "zzz", "--must-exist"], status: 1), 1)
        try box.runOK(["rm", "user", "missing"])
        expectFailure(try box.runFailing(["rm", "user"], status: 2), 2)
    }

    @Test func keysAreOrdinaryTextIncludingSQL() throws {
        let box = try Sandbox(inProcess: true)
        let keys = ["ui/theme", "onboarding.shown", "'; DROP TABLE \"kv_user\"; --", "Théme", "théme", String(repeating: "k", count: 1024)]
        for (i, key) in keys.enumerated() {
            try box.runOK(["set", "user", key, "\(i)"])
        }
        for (i, key) in keys.enumerated() {
            #expect(try box.runOK(["get", "user", key]).stdout == "\(i)\n")
        }
    }
}

@Suite("list and domains", .timeLimit(.minutes(5)))
struct ListTests {
    func populated() throws -> Sandbox {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["set", "user", "theme", "dark"])
        try box.runOK(["set", "user", "size", "12"])
        try box.runOK(["set", "switch", "beta", "true"])
        try box.runOK(["set", "ci-cache", "warm", "{\"at\":1}"])
        return box
    }

    @Test func plainListing() throws {
        let box = try populated()
        #expect(
            try box.runOK(["list"]).stdout
                == "ci-cache\twarm\t{\"at\":1}\nswitch\tbeta\ttrue\nuser\tsize\t12\nuser\ttheme\t\"dark\"\n")
        #expect(try box.runOK(["list", "user"]).stdout == "size\t12\ntheme\t\"dark\"\n")
        #expect(try box.runOK(["list", "user", "--prefix", "th"]).stdout == "theme\t\"dark\"\n")
        #expect(try box.runOK(["list", "--keys-only"]).stdout == "ci-cache\twarm\nswitch\tbeta\nuser\tsize\nuser\ttheme\n")
        #expect(try box.runOK(["list", "user", "-z", "--keys-only"]).stdout == "size\0theme\0")
        // A domain that does not exist is not found (issue 30); --allow-missing lists it as empty.
        expectFailure(try box.runFailing(["list", "nosuch"], status: 1), 1, contains: "domain 'nosuch' not found")
        #expect(try box.runOK(["list", "nosuch", "--allow-missing"]).stdout == "")
    }

    @Test func jsonListing() throws {
        let box = try populated()
        #expect(
            try box.runOK(["list", "--json"]).stdout
                == "{\"ci-cache\":{\"warm\":{\"at\":1}},\"switch\":{\"beta\":true},\"user\":{\"size\":12,\"theme\":\"dark\"}}\n")
        #expect(try box.runOK(["list", "user", "--json"]).stdout == "{\"size\":12,\"theme\":\"dark\"}\n")
        #expect(try box.runOK(["list", "user", "--json", "--keys-only"]).stdout == "[\"size\",\"theme\"]\n")
        #expect(try box.runOK(["list", "empty", "--json", "--allow-missing"]).stdout == "{}\n")
        expectFailure(try box.runFailing(["list", "--json", "-z"], status: 2), 2)
    }

    @Test func prefixListingHandlesUnicodeBoundaries() throws {
        let box = try Sandbox(inProcess: true)
        for key in ["a", "a\u{10FFFF}", "a\u{10FFFF}x", "aé", "b", "é", "éa"] { try box.runOK(["set", "user", key, "1"]) }
        #expect(try box.runOK(["list", "user", "--keys-only", "--prefix", "a"]).stdout == "a\naé\na\u{10FFFF}\na\u{10FFFF}x\n")
        #expect(try box.runOK(["list", "user", "--keys-only", "--prefix", "é"]).stdout == "é\néa\n")
    }

    @Test func domainsListsBuiltInsAndCustom() throws {
        let box = try Sandbox(inProcess: true)
        #expect(try box.runOK(["domains"]).stdout == "default\ndynamic\nmemory\nswitch\nuser\n")
        try box.runOK(["set", "ci-cache", "k", "v"])
        #expect(try box.runOK(["domains"]).stdout == "ci-cache\ndefault\ndynamic\nmemory\nswitch\nuser\n")
        #expect(try box.runOK(["domains", "--json"]).stdout == "[\"ci-cache\",\"default\",\"dynamic\",\"memory\",\"switch\",\"user\"]\n")
    }
}

@Suite("memory domain", .timeLimit(.minutes(5)))
struct MemoryTests {
    @Test func sharedBetweenProcessesAndNeverInTheStoreFile() throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["set", "memory", "token", "abc"])
        #expect(try box.runOK(["get", "memory", "token"]).stdout == "abc\n")
        #expect(!FileManager.default.fileExists(atPath: box.store), "memory writes must not create the store file")
        try box.runOK(["set", "user", "k", "v"])
        #expect(!(try box.storeSnapshot()).contains("token"))
        let files = try FileManager.default.contentsOfDirectory(atPath: box.runtime + "/prefs")
        #expect(files.contains { $0.hasPrefix("memory-") })
        #expect(try box.runOK(["list"]).stdout == "memory\ttoken\t\"abc\"\nuser\tk\t\"v\"\n")
        #expect(try box.runOK(["export"]).stdout == "{\"user\":{\"k\":\"v\"}}\n")
        #expect(try box.runOK(["export", "memory"]).stdout == "{\"memory\":{\"token\":\"abc\"}}\n")
    }

    @Test func eachStoreHasItsOwnMemory() throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["set", "memory", "k", "one"])
        let other = box.root + "/other.db"
        try box.runFailing(["--store", other, "get", "memory", "k"], status: 1, store: false)
    }
}

@Suite("export and import", .timeLimit(.minutes(5)))
struct TransferTests {
    @Test func roundTripIsByteIdentical() throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["set", "user", "theme", "dark"])
        try box.runOK(["set", "user", "big", "123456789012345678901234567890"])
        try box.runOK(["set", "switch", "f", "{\"state\":\"ENABLED\",\"v\":[0.1,1e-7]}"])
        try box.runOK(["set", "zz-custom", "ü", "\"\\u0001\""])
        let first = try box.runOK(["export"])
        #expect(first.status == 0)
        let other = try Sandbox(inProcess: true)
        try other.runOK(["import", "-"], stdin: first.stdout)
        #expect(try other.runOK(["export"]).stdout == first.stdout)
        let file = box.root + "/export.json"
        try box.runOK(["export", "-o", file])
        #expect(try String(contentsOfFile: file, encoding: .utf8) == first.stdout)
        let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let third = try Sandbox(inProcess: true)
        try third.runOK(["import", file])
        #expect(try third.runOK(["export"]).stdout == first.stdout)
    }

    @Test func replaceAndDryRun() throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["set", "user", "keep", "1"])
        try box.runOK(["set", "user", "old", "1"])
        try box.runOK(["set", "switch", "s", "1"])
        let document = "{\"user\":{\"keep\":1,\"new\":2,\"old\":5}}"
        let before = try box.storeSnapshot()
        let dry = try box.runOK(["import", "--dry-run", "--replace"], stdin: document)
        #expect(dry.status == 0)
        #expect(dry.stdout == "add\tuser\tnew\t2\nchange\tuser\told\t5\n")
        #expect(dry.stderr.contains("would add 1, change 1, remove 0; 1 unchanged"))
        #expect(try box.storeSnapshot() == before)
        let replacing = "{\"user\":{\"new\":2}}"
        #expect(
            try box.runOK(["import", "--replace", "--dry-run"], stdin: replacing).stdout
                == "remove\tuser\tkeep\nadd\tuser\tnew\t2\nremove\tuser\told\n")
        try box.runOK(["import", "--replace"], stdin: replacing)
        #expect(try box.runOK(["export"]).stdout == "{\"switch\":{\"s\":1},\"user\":{\"new\":2}}\n")
        try box.runOK(["import"], stdin: "{\"user\":{\"x\":true}}")
        #expect(try box.runOK(["export", "user"]).stdout == "{\"user\":{\"new\":2,\"x\":true}}\n")
    }

    @Test(arguments: [
        ("not json", "invalid JSON"), ("[1]", "must be a JSON object"), ("{\"user\":1}", "$.user"),
        ("{\"Bad Domain\":{}}", "$[\"Bad Domain\"]: invalid domain name"), ("{\"user\":{\"\":1}}", "may not be empty"),
        ("{\"user\":{\"a\":1},\"switch\":{\"x\\u0000y\":1}}", "control characters"), ("{\"user\":{\"a\":[1,}}", "invalid JSON"),
    ])
    func invalidDocumentsChangeNothing(document: String, message: String) throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["set", "user", "a", "orig"])
        let before = try box.storeSnapshot()
        expectFailure(try box.runFailing(["import"], status: 6, stdin: document), 6, contains: message)
        #expect(try box.storeSnapshot() == before)
    }

    @Test func missingImportFileIsUsageError() throws {
        let box = try Sandbox(inProcess: true)
        expectFailure(try box.runFailing(["import", box.root + "/nope.json"], status: 2), 2, contains: "no such file")
    }

    @Test func importReadsWholeFilesAndStandardInput() throws {
        let box = try Sandbox(inProcess: true)
        expectFailure(try box.runFailing(["import", box.root], status: 2), 2, contains: "cannot read \(box.root): is a directory")
        // Larger than one read from standard input (64 KiB).
        let keys = (0..<3_000).map { String(format: "k%05d", $0) }
        let document = "{\"user\":{" + keys.map { "\"\($0)\": \"\(String(repeating: "v", count: 30))\"" }.joined(separator: ", ") + "}}"
        let file = box.root + "/big.json"
        try document.write(toFile: file, atomically: true, encoding: .utf8)
        let fromFile = try box.runOK(["import", file])
        #expect(fromFile.status == 0, "\(fromFile)")
        let exported = try box.runOK(["export"]).stdout
        try box.runOK(["reset", "user", "--all"])
        #expect(try box.runOK(["list", "user"]).stdout.isEmpty, "standard input imports into an empty domain")
        let fromStandardInput = try box.runOK(["import", "-"], stdin: document)
        #expect(fromStandardInput.status == 0, "\(fromStandardInput)")
        #expect(try box.runOK(["export"]).stdout == exported)
        #expect(exported.hasPrefix("{\"user\":{\"k00000\":\"vvv"), "\(exported.prefix(40))")
        #expect(try box.runOK(["list", "user"]).stdout.split(separator: "\n").count == 3_000)
    }
}

@Suite("memory directory safety", .timeLimit(.minutes(5)))
struct MemoryDirectoryTests {
    @Test func refusesADirectoryOthersCanRead() throws {
        let box = try Sandbox(inProcess: true)
        let directory = box.runtime + "/prefs"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        chmod(directory, 0o777)
        expectFailure(try box.runFailing(["set", "memory", "k", "v"], status: 4), 4, contains: "mode 0700")
        chmod(directory, 0o700)
        try box.runOK(["set", "memory", "k", "v"])
    }
}
