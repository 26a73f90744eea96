import Foundation
import PrefsTestSupport
import Testing

/// `prefs serve` and `prefs sync` hand their helper every option they parse, as one encoded
/// configuration (`PrefsHelperConfiguration`): the options are read from the parser's own
/// description (`--experimental-dump-help`), each is given a value that is not its default,
/// and the helper prints what it decoded (`PREFS_HELPER_DUMP_CONFIGURATION`). An option added
/// to the CLI but not to the configuration fails here. The options are checked in process (a
/// run there prints the configuration as the helper decodes it, never replacing the process);
/// the binary hands it to the real helpers in ``aHelperGetsItsConfigurationFromPrefsOnly(_:)``.
@Suite("helper configuration", .timeLimit(.minutes(5)), .ownThreads)
struct HelperConfigurationTests {
    /// The long names of a command's options and flags, and the value names of its
    /// positional arguments, from `prefs --experimental-dump-help`.
    static func arguments(of command: String) throws -> Set<String> {
        let box = try Sandbox(inProcess: true)
        let result = try box.runOK(["--experimental-dump-help"], store: false)
        let root = try #require(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let subcommands = (root["command"] as? [String: Any])?["subcommands"] as? [[String: Any]] ?? []
        let entry = try #require(subcommands.first { $0["commandName"] as? String == command })
        var names: Set<String> = []
        for argument in entry["arguments"] as? [[String: Any]] ?? [] {
            if argument["kind"] as? String == "positional" {
                names.insert(argument["valueName"] as? String ?? "")
                continue
            }
            for name in argument["names"] as? [[String: Any]] ?? [] where name["kind"] as? String == "long" {
                names.insert(name["name"] as? String ?? "")
            }
        }
        names.subtract(["help", "version"])
        #expect(names.count > 5, "\(names)")
        return names
    }

    /// Runs `prefs ARGS` with the helper's configuration asked for (in process, even `serve`
    /// and `sync`, unless `PREFS_TEST_IN_PROCESS=0`); the members the helper decodes.
    static func dump(_ box: Sandbox, _ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
        let environment = ["PREFS_HELPER_DUMP_CONFIGURATION": "1"]
        let result =
            box.inProcess
            ? Sandbox.runInProcess(arguments, stdin: nil, environment: box.environment(environment))
            : try box.runOK(arguments, store: false, environment: environment, sourceLocation: sourceLocation)
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result)", sourceLocation: sourceLocation)
        return try #require(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result)")
    }

    /// Checks that every option in `names` arrived with the value given (durations: as given,
    /// in attoseconds; flags: true).
    static func check(_ names: Set<String>, given: [String: Any], in members: [String: Any]) {
        for name in names.sorted() {
            let member = name.replacingOccurrences(of: "-", with: "_")
            let expected = given[name]
            #expect(expected != nil, "--\(name): give it a value in this test (and forward it to the helper)")
            guard let expected else { continue }
            let got = members[member]
            #expect(got != nil, "--\(name) did not reach the helper: \(members)")
            guard let got else { continue }
            #expect(
                (try? JSONSerialization.data(withJSONObject: [got], options: .sortedKeys))
                    == (try? JSONSerialization.data(withJSONObject: [expected], options: .sortedKeys)),
                "--\(name): the helper got \(got), expected \(expected)")
        }
    }

    /// A Duration of `seconds` as Swift's Codable writes it (high and low attoseconds), read back.
    static func duration(seconds: Int64) -> Any {
        let data = (try? JSONEncoder().encode(Duration.seconds(seconds))) ?? Data()
        return (try? JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed)) ?? "unencodable"
    }

    @Test func everyServeOptionReachesTheHelper() throws {
        let names = try Self.arguments(of: "serve")
        let box = try Sandbox(inProcess: true)
        let store = box.root + "/other.db"
        let members = try Self.dump(
            box,
            [
                "--store", store, "--actor", "ci", "--override", "switch:beta=true", "serve", "--listen", "unix:/tmp/x.sock",
                "--token-file", "/tmp/token", "--max-body", "100", "--read-timeout", "3s", "--head-timeout", "2s",
                "--max-connections-per-address", "7", "--max-event-streams", "5", "--max-steps", "9", "--no-access-log",
            ])
        let given: [String: Any] = [
            "store": store, "actor": "ci", "override": #"{"switch":{"beta":true}}"#, "listen": "unix:/tmp/x.sock",
            "token-file": "/tmp/token", "max-body": 100, "read-timeout": Self.duration(seconds: 3),
            "head-timeout": Self.duration(seconds: 2), "max-connections-per-address": 7, "max-event-streams": 5, "max-steps": 9,
            "no-access-log": true,
        ]
        Self.check(names, given: given, in: members)
        #expect(Set(members.keys) == Set(names.map { $0.replacingOccurrences(of: "-", with: "_") }), "\(members)")
    }

    @Test func everySyncOptionReachesTheHelper() throws {
        // --status is answered by prefs itself, and sync reads no values (no --override).
        let names = try Self.arguments(of: "sync").subtracting(["status", "override"])
        let box = try Sandbox(inProcess: true)
        let store = box.root + "/other.db"
        let watching = try Self.dump(
            box, ["--store", store, "--actor", "ci", "sync", "user", "team", "--watch", "30", "--timeout", "4s", "--json"])
        let compacting = try Self.dump(box, ["--store", store, "sync", "--compact", "--horizon", "2d", "--json"])
        let given: [String: Any] = [
            "store": store, "actor": "ci", "domains": ["user", "team"], "watch": Self.duration(seconds: 30),
            "timeout": Self.duration(seconds: 4), "json": true, "compact": true, "horizon": Self.duration(seconds: 172_800),
        ]
        // Each run carries what it was given; the two together cover every option.
        Self.check(names.intersection(["store", "actor", "domains", "watch", "timeout", "json"]), given: given, in: watching)
        Self.check(names.intersection(["compact", "horizon"]), given: given, in: compacting)
        #expect(names.subtracting(["store", "actor", "domains", "watch", "timeout", "json", "compact", "horizon"]).isEmpty, "\(names)")
        #expect(watching["compact"] as? Bool == false && compacting["watch"] == nil, "\(watching) \(compacting)")
    }

    /// The binary hands the real helper its configuration in the environment (the helper
    /// prints what it decoded); a helper run without prefs says so with exit 2.
    @Test(arguments: ["prefs-serve", "prefs-sync"])
    func aHelperGetsItsConfigurationFromPrefsOnly(_ name: String) throws {
        let box = try Sandbox()
        let store = box.root + "/other.db"
        let arguments = name == "prefs-serve" ? ["serve", "--listen", "127.0.0.1:0"] : ["sync", "user", "--json"]
        let handed = try box.runOK(
            ["--store", store, "--actor", "ci"] + arguments, store: false, environment: ["PREFS_HELPER_DUMP_CONFIGURATION": "1"])
        #expect(handed.stderr.isEmpty, "\(handed)")
        let members = try #require(JSONSerialization.jsonObject(with: Data(handed.stdout.utf8)) as? [String: Any], "\(handed)")
        #expect(members["store"] as? String == store && members["actor"] as? String == "ci", "\(members)")
        if name == "prefs-serve" {
            #expect(members["listen"] as? String == "127.0.0.1:0", "\(members)")
        } else {
            #expect(members["domains"] as? [String] == ["user"] && members["json"] as? Bool == true, "\(members)")
        }
        let helper = URL(fileURLWithPath: Sandbox.binary).deletingLastPathComponent().appendingPathComponent(name).path
        let result = try Sandbox.exec(helper, ["--listen", "127.0.0.1:0"], stdin: nil, environment: box.environment())
        #expect(result.status == 2, "\(result)")
        #expect(result.stdout.isEmpty, "\(result)")
        #expect(result.stderr.contains("is run by 'prefs "), "\(result)")
    }
}
