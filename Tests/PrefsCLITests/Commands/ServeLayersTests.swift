import Foundation
import PrefsCore
import PrefsTestSupport
import Testing

/// `prefs serve` follows edits of the project and system layer files (issue 42): the next OFREP
/// answer after an edit reflects it, as it does for a commit to the store.
@Suite("ServeLayersTests", .serialized, .timeLimit(.minutes(5)), .ownThreads)
struct ServeLayersTests {
    /// A sandbox with a system directory (`PREFS_SYSTEM_DIR`, made and trusted) and a project
    /// file named by `PREFS_PROJECT_FILE`.
    struct Layout {
        let box: Sandbox
        let system: String
        let project: String
        var environment: [String: String] { ["PREFS_SYSTEM_DIR": system, "PREFS_PROJECT_FILE": project] }

        init(project text: String) throws {
            box = try Sandbox()
            system = box.root + "/system"
            project = box.root + "/repo/.prefs.json"
            try FileManager.default.createDirectory(atPath: system + "/locks", withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: box.root + "/repo", withIntermediateDirectories: true)
            #expect(chmod(system, 0o755) == 0 && chmod(system + "/locks", 0o755) == 0)
            try text.write(toFile: project, atomically: false, encoding: .utf8)
            // A store of its own (a flag that only the store has), so the server reads one.
            try box.runOK(["set", "switch", "stored-flag", "true"], environment: environment)
        }

        func writeSystem(_ name: String, _ text: String) throws {
            // Written aside and renamed in, as a configuration tool does: never half a file.
            let temporary = system + "/.incoming"  // a dot file: not read as a layer file
            try text.write(toFile: temporary, atomically: false, encoding: .utf8)
            #expect(chmod(temporary, 0o644) == 0)
            #expect(rename(temporary, system + "/" + name) == 0)
        }
    }

    /// The answer of `prefs serve` for `flag` (nil: not a 200 answer).
    static func answer(_ server: ServeProcess, _ flag: String) throws -> JSONValue? {
        let answer = try HTTPExchange.post(server.port, "/ofrep/v1/evaluate/flags/" + flag, "{}")
        guard answer.status == 200 else { return nil }
        return try JSONValue(parsing: answer.body)
    }

    /// The value `prefs serve` answers for `flag` (nil: not a 200 answer).
    static func served(_ server: ServeProcess, _ flag: String) throws -> JSONValue? {
        try answer(server, flag)?["value"]
    }

    /// Waits (up to 10 s, asking every 20 ms) until the answer for `flag` satisfies `done`.
    static func waitUntil(_ server: ServeProcess, _ flag: String, _ done: (JSONValue?) -> Bool) throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if done(try answer(server, flag)) { return true }
            var pause = timespec(tv_sec: 0, tv_nsec: 20_000_000)
            nanosleep(&pause, nil)
        }
        return done(try answer(server, flag))
    }

    /// Waits until the value served for `flag` is `expected` (nil: not served).
    static func waitUntilServed(_ server: ServeProcess, _ flag: String, _ expected: JSONValue?) throws -> Bool {
        try waitUntil(server, flag) { $0?["value"] == expected }
    }

    @Test func ofrepFollowsEditsOfTheProjectAndSystemFiles() throws {
        let layout = try Layout(project: #"{"switch":{"proj-flag":true}}"#)
        let server = try ServeProcess(layout.box, environment: layout.environment)
        #expect(try Self.served(server, "proj-flag") == .bool(true))
        #expect(try Self.served(server, "sys-flag") == nil, "not a flag yet")
        // The project file edited by the CLI (a temporary file renamed over it).
        try layout.box.runOK(["set", "--project", "switch", "proj-flag", "false"], environment: layout.environment)
        #expect(try Self.waitUntilServed(server, "proj-flag", .bool(false)), "the project edit is served")
        // A new system file, then a lock that pins a key the project file also sets.
        try layout.writeSystem("50-site.json", #"{"switch":{"sys-flag":"blue","proj-flag":true}}"#)
        #expect(try Self.waitUntilServed(server, "sys-flag", .string("blue")), "the new system file is served")
        #expect(try Self.served(server, "proj-flag") == .bool(false), "the project wins over the system layer")
        try layout.writeSystem("locks/site", "switch/proj-flag\n")
        #expect(try Self.waitUntilServed(server, "proj-flag", .bool(true)), "the lock answers the system value")
        // The file removed: the flag is gone.
        #expect(unlink(layout.system + "/50-site.json") == 0)
        #expect(try Self.waitUntilServed(server, "sys-flag", nil), "the removed file is no longer served")
        #expect(try Self.served(server, "stored-flag") == .bool(true), "the store is still served")
        #expect(server.stop().status == 0)
    }

    @Test(.tags(.network), .enabled(PythonClients.requirement) { await PythonClients.available() })
    func theOpenFeaturePythonProviderReadsAFlagOnlyInTheProjectFile() throws {
        let python = try PythonClients.python.get()
        let flag = #"{"state":"ENABLED","variants":{"on":true,"off":false},"defaultVariant":"on"}"#
        let layout = try Layout(project: #"{"switch":{"new-checkout":"# + flag + "}}")
        let server = try ServeProcess(layout.box, environment: layout.environment)
        let cases: [JSONValue] = [
            .object([
                .init("flag", .string("new-checkout")), .init("type", .string("boolean")), .init("default", .bool(false)),
                .init("context", .object([])),
            ])
        ]
        let first = try PythonClients.sdkAnswers(python, url: server.url, cases: cases, directory: layout.box.root)
        #expect(first.map(String.init) == [#"{"value": true, "variant": "on", "reason": "STATIC", "errorCode": null}"#])
        // Disabled in the repository's file: the provider's next evaluation says so.
        let disabled = flag.replacingOccurrences(of: "ENABLED", with: "DISABLED")
        try layout.box.runOK(["set", "--project", "switch", "new-checkout", disabled], environment: layout.environment)
        #expect(try Self.waitUntil(server, "new-checkout") { $0?["reason"] == .string("DISABLED") }, "served as disabled")
        let second = try PythonClients.sdkAnswers(python, url: server.url, cases: cases, directory: layout.box.root)
        #expect(second.first.map { $0.contains(#""value": false"#) && $0.contains(#""reason": "DISABLED""#) } == true, "\(second)")
        #expect(server.stop().status == 0)
    }
}
