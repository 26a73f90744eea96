import Foundation
import PrefsTestSupport
import Testing

/// A hostile refresh source (a real HTTP server on 127.0.0.1) serves keys and values made of
/// shell metacharacters and dangerous variable names; every way the text leaves prefs prints
/// it exactly or refuses with the documented exit code, and nothing runs (issue 28).
@Suite("injection: a server's text leaving prefs", .timeLimit(.minutes(5)))
struct InjectionSuiteTests {
    /// Each entry touches its own marker when a shell runs it; `MARK` is replaced by the path.
    static let corpus: [String] = [
        "$(touch MARK1)", "`touch MARK2`", "a'b", "a\"b", #"back\slash"#, "sp ace", "*", ";touch MARK3", "|touch MARK4",
        "&touch MARK5", "$x", "${HOME}", "a/b", "$evaluators", "$metadata", "'; touch MARK6; '", "\"; touch MARK7; \"",
        "ps0", "git_config_count", "git_config_key_0", "git_config_value_0", "lessopen", "prompt_command", "bash_env",
        "ld_preload", "https_proxy", "x!!", "$(touch MARK8)$(touch MARK9)",
    ]

    static func document(markers: String) -> (json: String, values: [String: String]) {
        var values: [String: String] = [:]
        for (index, text) in corpus.enumerated() {
            let key = text.replacingOccurrences(of: "MARK", with: markers + "/key")
            values[key] = corpus[(index + 1) % corpus.count].replacingOccurrences(of: "MARK", with: markers + "/value")
        }
        values["git_config_value_0"] = "touch \(markers)/fsmonitor"
        values["git_config_key_0"] = "core.fsmonitor"
        values["git_config_count"] = "1"
        values["lessopen"] = "|touch \(markers)/lessopen %s"
        values["ps0"] = "$(touch \(markers)/ps0)"
        values["prompt_command"] = "touch \(markers)/prompt"
        values["bash_env"] = markers + "/evil.sh"
        let members = values.keys.sorted().map { "\(Self.quoted($0)):\(Self.quoted(values[$0] ?? ""))" }
        return ("{" + members.joined(separator: ",") + "}", values)
    }

    /// A JSON string literal.
    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    static func markers(in directory: String) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: directory))?.filter { $0 != "evil.sh" } ?? []
    }

    @Test func everyOutputIsTheExactTextOrARefusalAndNothingRuns() throws {
        let box = try Sandbox(inProcess: true)
        let markers = box.root + "/markers"
        try FileManager.default.createDirectory(atPath: markers, withIntermediateDirectories: true)
        try Data("touch \(markers)/bash_env\n".utf8).write(to: URL(fileURLWithPath: markers + "/evil.sh"))
        let (json, values) = Self.document(markers: markers)
        let server = try TestHTTPServer { _ in .respond(status: 200, headers: [:], body: json) }
        defer { server.stop() }
        try box.runOK(["refresh", "dynamic", "--from", server.url + "/config.json"])

        // get: each value exactly (strings raw).
        for (key, value) in values {
            let got = try box.runOK(["get", "dynamic", key])
            #expect(got.stdout == value + "\n", "get \(key): \(got)")
        }
        // list --json and export: valid JSON holding exactly the served text.
        for arguments in [["list", "dynamic", "--json"], ["export", "dynamic"]] {
            let out = try box.runOK(arguments)
            let parsed = try JSONSerialization.jsonObject(with: Data(out.stdout.utf8)) as? [String: Any]
            let object = (arguments[0] == "export" ? parsed?["dynamic"] as? [String: Any] : parsed) ?? [:]
            #expect(object.count == values.count, "\(arguments): \(out)")
            for (key, value) in values { #expect(object[key] as? String == value, "\(arguments) \(key)") }
        }
        // list (text) and log print one line per key and exit 0.
        #expect(try box.runOK(["list", "dynamic"]).stdout.split(separator: "\n").count == values.count)
        #expect(try box.runOK(["log", "dynamic", "--limit", "1000"]).stdout.split(separator: "\n").count == values.count)

        // env/dotenv of a server-fed domain without a prefix: refused, nothing printed.
        for format in ["env", "dotenv"] {
            let refused = try box.runFailing(["export", "dynamic", "--format", format], status: 6)
            expectFailure(refused, 6, contains: "--name-prefix")
        }
        // With a prefix, the whole corpus is refused: several keys map to one NAME (exit 6,
        // nothing printed). A collision-free part of it is evaluated by bash (plain and
        // interactive) and sourced as dotenv, then git and less run: no marker appears.
        let colliding = try box.runFailing(["export", "dynamic", "--format", "env", "--name-prefix", "APP_"], status: 6)
        expectFailure(colliding, 6, contains: "would both be")
        let distinct = values.filter { key, _ in
            ["$(touch", "git_config", "lessopen", "ps0", "prompt_command", "bash_env", "ld_preload", "https_proxy"].contains {
                key.hasPrefix($0)
            } && !key.contains("$(touch " + markers + "/key8")
        }
        let subset =
            "{" + distinct.keys.sorted().map { "\(Self.quoted($0)):\(Self.quoted(distinct[$0] ?? ""))" }.joined(separator: ",") + "}"
        let second = try TestHTTPServer { _ in .respond(status: 200, headers: [:], body: subset) }
        defer { second.stop() }
        try box.runOK(["refresh", "dynamic", "--from", second.url + "/subset.json"])
        let env = try box.runOK(["export", "dynamic", "--format", "env", "--name-prefix", "APP_"])
        #expect(env.stdout.split(separator: "\n").count == distinct.count, "\(env)")
        let script = box.root + "/env.sh"
        try Data(env.stdout.utf8).write(to: URL(fileURLWithPath: script))
        let run = """
            set -e
            eval "$(cat "$1")"
            [ "$APP_GIT_CONFIG_VALUE_0" = "touch $3/fsmonitor" ]
            git init -q "$2" && cd "$2" && git status >/dev/null && echo hi > f && less -F f >/dev/null </dev/null
            """
        for flags in [["-c"], ["-i", "-c"]] {
            let shell = try Sandbox.exec(
                "/bin/bash", flags + [run, "bash", script, box.root + "/repo" + flags.count.description, markers], stdin: nil,
                environment: box.environment(["PS1": "$ ", "TERM": "dumb"]))
            #expect(shell.status == 0, "\(flags): \(shell)")
        }
        let dotenv = try box.runOK(["export", "dynamic", "--format", "dotenv", "--name-prefix", "APP_"])
        let file = box.root + "/app.env"
        try Data(dotenv.stdout.utf8).write(to: URL(fileURLWithPath: file))
        let sourced = try Sandbox.exec(
            "/bin/bash", ["-c", "set -a; . \"$1\"; [ \"$APP_PS0\" = \"$2\" ]", "bash", file, distinct["ps0"] ?? ""], stdin: nil,
            environment: box.environment())
        #expect(sourced.status == 0, "\(sourced)")

        // The flag commands read the domain as flags: the text is data there too.
        let flags = try box.runOK(["flag", "list"])
        #expect(flags.status == 0, "\(flags)")
        #expect(Self.markers(in: markers).isEmpty, "something ran: \(Self.markers(in: markers))")
    }
}
