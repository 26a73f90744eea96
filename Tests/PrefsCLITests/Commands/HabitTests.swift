import Foundation
import PrefsCore
import Testing

/// The habits users bring from git config, defaults, gsettings, etcdctl, flagd and jq
/// (issue 43): verbs of other tools, `DOMAIN.KEY` shapes, typos, GitHub Actions' env files.
@Suite("habits from other tools", .timeLimit(.minutes(5)))
struct HabitTests {
    @Test(arguments: [
        (["remove", "user", "zip"], "unknown command 'remove'; prefs calls it 'rm' (see 'prefs rm --help')"),
        (["delete", "user", "zip"], "unknown command 'delete'; prefs calls it 'rm'"),
        (["unset", "user", "zip"], "unknown command 'unset'; prefs calls it 'rm'"),
        (["ls", "user"], "unknown command 'ls'; prefs calls it 'list'"),
        (["read", "user", "theme"], "unknown command 'read'; prefs calls it 'get'"),
        (["write", "user", "theme", "dark"], "unknown command 'write'; prefs calls it 'set'"),
        (["--actor", "me", "put", "user", "theme", "dark"], "unknown command 'put'; prefs calls it 'set'"),
        (["flag", "on", "x"], "unknown command 'flag on'; prefs calls it 'flag enable' (see 'prefs flag enable --help')"),
        (["flag", "off", "x"], "unknown command 'flag off'; prefs calls it 'flag disable'"),
    ])
    func aVerbFromAnotherToolNamesPrefsOwn(arguments: [String], message: String) throws {
        let box = try Sandbox(inProcess: true)
        expectFailure(try box.runFailing(arguments, status: 2), 2, contains: message)
        #expect(!FileManager.default.fileExists(atPath: box.store), "nothing was created")
    }

    @Test func setSaysWhatToWriteForTheShapesPeopleType() throws {
        let box = try Sandbox(inProcess: true)
        expectFailure(
            try box.runFailing(["set", "user.theme", "dark"], status: 2), 2,
            contains: "set takes DOMAIN KEY VALUE as three words: prefs set user theme dark")
        expectFailure(
            try box.runFailing(["set", "user/window.w", "a b"], status: 2), 2,
            contains: "prefs set user window.w 'a b'")
        expectFailure(
            try box.runFailing(["set", "user", "theme", "--json", "\"dark\""], status: 2), 2,
            contains: "Unknown option '--json'; VALUE is read as JSON when it is valid JSON (--type json requires it)")
        expectFailure(
            try box.runFailing(["set", "user", "theme", "dark", "--jsn"], status: 2), 2, contains: "Unknown option '--jsn'")
        expectFailure(
            try box.runFailing(["set", "user", "theme"], status: 2), 2,
            contains: "Missing expected argument '<value>' (prefs set DOMAIN KEY VALUE)")
        // The forms that were right before still are.
        try box.runOK(["set", "user", "theme", "--", "--json"])
        #expect(try box.runOK(["get", "user", "theme"]).stdout == "--json\n")
        try box.runOK(["set", "user", "n", "-5"])
    }

    @Test func getOfAMissingKeyNamesTheNearestKeyOrDomain() throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["set", "switch", "deploy-frozen", "true"])
        try box.runOK(["set", "user", "theme", "dark"])
        expectFailure(
            try box.runFailing(["get", "swtich", "deploy-frozen"], status: 1), 1,
            contains: "swtich/deploy-frozen not found; there is no domain 'swtich'; did you mean 'switch'?")
        expectFailure(
            try box.runFailing(["get", "switch", "deploy-frozn"], status: 1), 1,
            contains: "switch/deploy-frozn not found; did you mean 'deploy-frozen'?")
        expectFailure(try box.runFailing(["get", "user", "unrelated"], status: 1), 1, contains: "user/unrelated not found")
        let far = try box.runFailing(["get", "user", "unrelated"], status: 1)
        #expect(!far.stderr.contains("did you mean"), "\(far)")
        // --default still answers quietly.
        let fallback = try box.runOK(["get", "switch", "deploy-frozn", "--default", "false"])
        #expect(fallback.stdout == "false\n" && fallback.stderr.isEmpty, "\(fallback)")
    }

    @Test func aNewDomainCloseToAnExistingOneIsNamedOrRefused() throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["set", "build", "sha", "abc"])
        let typo = try box.runOK(["set", "biuld", "sha", "def"])
        #expect(typo.stderr == "prefs: warning: creating domain 'biuld'; did you mean 'build'?\n", "\(typo)")
        #expect(try box.runOK(["get", "biuld", "sha"]).stdout == "def\n", "exit 0 unchanged: the value is written")
        let again = try box.runOK(["set", "biuld", "sha", "ghi"])
        #expect(again.stderr.isEmpty, "an existing domain is not warned about again: \(again)")
        let strict = try box.runFailing(["incr", "buidl", "n"], status: 2, environment: ["PREFS_STRICT_DOMAINS": "1"])
        expectFailure(strict, 2, contains: "domain 'buidl' does not exist and is close to ")
        expectFailure(try box.runFailing(["get", "buidl", "n"], status: 1), 1)
        let unrelated = try box.runOK(["set", "weather", "city", "Oslo"], environment: ["PREFS_STRICT_DOMAINS": "1"])
        #expect(unrelated.stderr.isEmpty, "\(unrelated)")
    }

    /// What the GitHub Actions runner does with a `$GITHUB_ENV` file (its documented rules):
    /// `NAME=value` lines, and `NAME<<DELIMITER` blocks whose lines up to a line equal to the
    /// delimiter are the value, joined with `\n`.
    static func readGitHubEnv(_ text: String) -> [String: String] {
        var result: [String: String] = [:]
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)[...]
        if lines.last == "" { lines.removeLast() }
        while let line = lines.popFirst() {
            if let heredoc = line.range(of: "<<"), !line[..<heredoc.lowerBound].contains("=") {
                let delimiter = line[heredoc.upperBound...]
                var value: [Substring] = []
                while let next = lines.popFirst(), next != delimiter { value.append(next) }
                result[String(line[..<heredoc.lowerBound])] = value.joined(separator: "\n")
            } else if let equals = line.firstIndex(of: "=") {
                result[String(line[..<equals])] = String(line[line.index(after: equals)...])
            }
        }
        return result
    }

    @Test func exportForGitHubActionsKeepsEveryValueVerbatim() throws {
        let box = try Sandbox(inProcess: true)
        let values = [
            "plain": "dark", "quoted": "it's \"fine\"", "lines": "one\ntwo\n", "forged": "x\nPREFS_EOF\nEVIL=1",
            "dollar": "${HOME} $(id)",
        ]
        for (key, value) in values { try box.runOK(["set", "app", key, "--string", value]) }
        let exported = try box.runOK(["export", "app", "--format", "github"])
        #expect(exported.stdout.hasPrefix("DOLLAR<<PREFS_EOF\n${HOME} $(id)\nPREFS_EOF\nFORGED<<PREFS_EOF_1\n"), "\(exported)")
        let read = Self.readGitHubEnv(exported.stdout)
        #expect(read == Dictionary(uniqueKeysWithValues: values.map { ($0.key.uppercased(), $0.value) }), "\(exported)")
        let prefixed = try box.runOK(["export", "app", "--format", "github", "--name-prefix", "APP_"])
        #expect(Self.readGitHubEnv(prefixed.stdout)["APP_PLAIN"] == "dark", "\(prefixed)")

        try box.runOK(["set", "ci", "github_token", "x"])
        expectFailure(
            try box.runFailing(["export", "ci", "--format", "github"], status: 6), 6,
            contains: "ci/github_token would set GITHUB_TOKEN, which changes how the shell or programs run")
        try box.runOK(["set", "cr", "k", "--string", "a\rb"])
        expectFailure(
            try box.runFailing(["export", "cr", "--format", "github"], status: 6), 6,
            contains: "cr/k: the value has a carriage return, which GitHub Actions reads as a line break")
    }
}
