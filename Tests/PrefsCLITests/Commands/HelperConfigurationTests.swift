import Foundation
import PrefsTestSupport
import Testing

/// `prefs serve` and `prefs sync` hand their helper every option they parse, as one encoded
/// configuration (`PrefsHelperConfiguration`): the options are read from the parser's own
/// description (`--experimental-dump-help`), each is given a value that is not its default,
/// and the helper prints what it decoded (`PREFS_HELPER_DUMP_CONFIGURATION`). An option added
/// to the CLI but not to the configuration fails here.
@Suite("helper configuration", .timeLimit(.minutes(5)))
struct HelperConfigurationTests {
    /// The long names of a command's options and flags, and the value names of its
    /// positional arguments, from `prefs --experimental-dump-help`.
    static func arguments(of command: String) throws -> Set<String> {
        let box = try Sandbox()
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

    /// Runs `prefs ARGS` with the helper asked to print its configuration; the members it
    /// decoded.
    static func dump(_ box: Sandbox, _ arguments: [String]) throws -> [String: Any] {
        let result = try box.runOK(arguments, store: false, environment: ["PREFS_HELPER_DUMP_CONFIGURATION": "1"])
        #expect(result.stderr.isEmpty, "\(result)")
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
        let box = try Sandbox()
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
        let box = try Sandbox()
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

    @Test(arguments: ["prefs-serve", "prefs-sync"])
    func aHelperRunWithoutPrefsSaysSoWithExit2(_ name: String) throws {
        let box = try Sandbox()
        let helper = URL(fileURLWithPath: Sandbox.binary).deletingLastPathComponent().appendingPathComponent(name).path
        let result = try Sandbox.exec(helper, ["--listen", "127.0.0.1:0"], stdin: nil, environment: box.environment())
        #expect(result.status == 2, "\(result)")
        #expect(result.stdout.isEmpty, "\(result)")
        #expect(result.stderr.contains("is run by 'prefs "), "\(result)")
    }
}
