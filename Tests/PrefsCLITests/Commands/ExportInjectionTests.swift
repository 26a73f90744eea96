import Foundation
import PrefsCore
import PrefsTestSupport
import Testing

/// `export --format env|dotenv`, `export` and `list --json` treat stored text as data: a key
/// from a server or a sync peer cannot name a variable that runs code, a value cannot run
/// code when the output is evaluated or sourced, and a row edited behind prefs' back cannot
/// add members to a JSON document.
@Suite("export treats stored text as data", .timeLimit(.minutes(5)))
struct ExportInjectionTests {
    /// Keys a hostile `dynamic` document could hold, with values that run `touch MARKER` when
    /// their unprefixed names reach bash, git or less.
    static func hostileKeys(marker: String, script: String) -> [(String, String)] {
        [
            ("git_config_count", "1"), ("git_config_key_0", "core.fsmonitor"), ("git_config_value_0", "touch \(marker)"),
            ("ps0", "$(touch \(marker))"), ("ps1", "$(touch \(marker))"), ("lessopen", "|touch \(marker); cat %s"),
            ("prompt_command", "touch \(marker)"), ("bash_env", script), ("env", script),
        ]
    }

    /// A scratch directory with a git repository, a file to page, and a script that makes the
    /// marker; the marker's path.
    static func scratch(_ box: Sandbox) throws -> (dir: String, marker: String, script: String) {
        let dir = box.root + "/scratch"
        try FileManager.default.createDirectory(atPath: dir + "/repo", withIntermediateDirectories: true)
        let marker = dir + "/MARKER"
        let script = dir + "/evil.sh"
        try "touch \(marker)\n".write(toFile: script, atomically: true, encoding: .utf8)
        try "a page\n".write(toFile: dir + "/page.txt", atomically: true, encoding: .utf8)
        let git = try Sandbox.exec("/usr/bin/env", ["git", "init", "-q", dir + "/repo"], stdin: nil, environment: box.environment())
        #expect(git.status == 0, "\(git)")
        return (dir, marker, script)
    }

    /// Evaluates `assignments` in a plain `bash -c` and an interactive `bash -i`, runs `git
    /// status`, `less` and a child bash after it; returns the plain run's printout of the
    /// variables named in `show` (NUL-separated).
    static func evaluate(_ assignments: String, in dir: String, show: [String], box: Sandbox) throws -> RunResult {
        let file = dir + "/assignments.sh"
        try assignments.write(toFile: file, atomically: true, encoding: .utf8)
        let after = "cd \(dir)/repo && git status >/dev/null 2>&1; less \(dir)/page.txt </dev/null >/dev/null 2>&1; bash -c true"
        let printout = show.map { "printf '%s\\0' \"$\($0)\"" }.joined(separator: "; ")
        var environment = box.environment()
        environment["PAGER"] = "cat"
        let plain = try Sandbox.exec(
            "/bin/bash", ["--norc", "--noprofile", "-c", "eval \"$(cat \(file))\"; \(after); \(printout)"], stdin: nil,
            environment: environment)
        let interactive = try Sandbox.exec(
            "/bin/bash", ["--norc", "--noprofile", "-i"], stdin: Array("eval \"$(cat \(file))\"\ntrue\n\(after)\nexit\n".utf8),
            environment: environment)
        #expect(interactive.status == 0, "\(interactive)")
        return plain
    }

    @Test func aDomainOthersWriteNeedsANamePrefixAndThenRunsNothing() throws {
        let box = try Sandbox(inProcess: true)
        let (dir, marker, script) = try Self.scratch(box)
        let keys = Self.hostileKeys(marker: marker, script: script)
        for (key, value) in keys { try box.runOK(["set", "dynamic", key, "--", value]) }

        for format in ["env", "dotenv"] {
            let refused = try box.runFailing(["export", "dynamic", "--format", format], status: 6)
            expectFailure(refused, 6, contains: "give --name-prefix PREFIX")
        }
        let env = try box.runOK(["export", "dynamic", "--format", "env", "--name-prefix", "APP_"])
        #expect(env.stdout.split(separator: "\n").allSatisfy { $0.hasPrefix("export APP_") }, "\(env)")
        let names = keys.map { "APP_" + $0.0.uppercased() }
        let plain = try Self.evaluate(env.stdout, in: dir, show: names, box: box)
        #expect(plain.status == 0, "\(plain)")
        #expect(plain.stdout == keys.map { $0.1 + "\0" }.joined(), "the variables hold exactly the stored text: \(plain)")
        #expect(!FileManager.default.fileExists(atPath: marker), "a prefixed export ran stored text")

        // The harness can fail: the same assignments without the prefix make the marker.
        let unprefixed = env.stdout.replacingOccurrences(of: "export APP_", with: "export ")
        _ = try Self.evaluate(unprefixed, in: dir, show: [], box: box)
        #expect(FileManager.default.fileExists(atPath: marker), "control: unprefixed names should have run the marker")
    }

    @Test func aRefreshedOrSyncedDomainNeedsANamePrefix() throws {
        let box = try Sandbox(inProcess: true)
        let source = box.root + "/feed.json"
        try #"{"host":"db"}"#.write(toFile: source, atomically: true, encoding: .utf8)
        try box.runOK(["refresh", "feed", "--from", source])
        expectFailure(try box.runFailing(["export", "feed", "--format", "env"], status: 6), 6, contains: "feed is refreshed from a source")
        let env = try box.runOK(["export", "feed", "--format", "env", "--name-prefix", "FEED_"])
        #expect(env.stdout == "export FEED_HOST='db'\n", "\(env)")
        try box.runOK(["set", "mine", "host", "db"])
        #expect(try box.runOK(["export", "mine", "--format", "dotenv"]).stdout == "HOST='db'\n")
    }

    @Test func theNamePrefixIsChecked() throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["set", "app", "host", "db"])
        for prefix in ["app_", "9X", "A-B", "", "LD_", "L", "GIT_", "PS", "P", "_", "BASH", "PREFS_", "XDG_", "HTTP"] {
            let result = try box.runFailing(["export", "app", "--format", "env", "--name-prefix", prefix], status: 2)
            expectFailure(result, 2, contains: "--name-prefix")
        }
        expectFailure(
            try box.runFailing(["export", "app", "--name-prefix", "APP_"], status: 2), 2,
            contains: "--name-prefix is for --format env, dotenv or github")
        let env = try box.runOK(["export", "app", "--format", "env", "--name-prefix", "APP_"])
        #expect(env.stdout == "export APP_HOST='db'\n", "\(env)")
        try box.runOK(["set", "app", "9lives", "x"])
        #expect(
            try box.runOK(["export", "app", "--format", "dotenv", "--name-prefix", "MY_APP_"]).stdout
                == "MY_APP_9LIVES='x'\nMY_APP_HOST='db'\n")
    }

    /// A domain the user writes keeps the deny list, now by family.
    @Test func unprefixedNamesAreRefusedByFamily() throws {
        let box = try Sandbox(inProcess: true)
        let keys = [
            "git_config_count", "ps0", "lessopen", "prompt_command", "bash_env", "http_proxy", "no_proxy", "ld_audit",
            "pythonwarnings", "node_options", "perl5db", "rubylib", "_java_options", "jdk_java_options", "openssl_conf",
            "ssl_cert_file", "gconv_path", "glibc_tunables", "locpath", "nlspath", "hostaliases", "res_options",
            "malloc_check_", "terminfo_dirs", "manpager", "pager", "editor", "visual", "browser", "zdotdir", "env", "shellopts",
            "ifs", "path", "home", "cdpath", "prefs_store", "ssh_auth_sock", "xdg_config_home", "tmpdir", "shell", "term",
            "lang", "lc_all", "tz",
        ]
        for (index, key) in keys.enumerated() {
            try box.runOK(["set", "d\(index)", key, "x"])
            let result = try box.runFailing(["export", "d\(index)", "--format", "env"], status: 6)
            expectFailure(result, 6, contains: "which changes how the shell or programs run")
        }
        try box.runOK(["set", "fine", "gitlab_url", "x"])
        try box.runOK(["set", "fine", "pass", "y"])
        #expect(try box.runOK(["export", "fine", "--format", "env"]).stdout == "export GITLAB_URL='x'\nexport PASS='y'\n")
    }

    // MARK: - dotenv

    /// Values every dotenv reader must read back exactly; marker commands included.
    static func dotenvCorpus(marker: String) -> [String] {
        [
            "$(touch \(marker))", "`touch \(marker)`", "it's", "say \"hi\"", "it's \"quoted\"", #"back\slash"#, #"two\\back"#,
            #"trail\"#, #"it's a\b"#, #"literal\n"#, "line one\nline two", "# not a comment", "  spaced  ", "$x", "a=b=c",
            "tab\there", "café ☕ 日本", "", "\"", "'", #"{"a":"$x"}"#, "x # y", "=",
        ]
    }

    /// The dotenv file of `corpus` (keys v0, v1, …) and the names it sets.
    static func dotenvFile(_ box: Sandbox, _ corpus: [String]) throws -> (file: String, names: [String]) {
        for (index, value) in corpus.enumerated() { try box.runOK(["set", "app", "v\(index)", "--", value]) }
        let file = box.root + "/app.env"
        try box.runOK(["export", "app", "--format", "dotenv", "-o", file])
        return (file, corpus.indices.map { "V\($0)" })
    }

    static func decode(_ text: String) -> [String: String]? {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: String]
    }

    @Test func dotenvReadsBackExactlyInBashWithoutRunningAnything() throws {
        let box = try Sandbox(inProcess: true)
        let marker = box.root + "/MARKER"
        let corpus = Self.dotenvCorpus(marker: marker)
        let (file, names) = try Self.dotenvFile(box, corpus)
        let sourced = try Sandbox.exec(
            "/bin/bash", ["--norc", "--noprofile", "-c", #"set -a; . "$0"; for n; do printf '%s\0' "${!n}"; done"#, file] + names,
            stdin: nil, environment: box.environment())
        #expect(sourced.status == 0, "\(sourced)")
        #expect(sourced.stdout == corpus.map { $0 + "\0" }.joined(), "\(sourced)")
        #expect(!FileManager.default.fileExists(atPath: marker), "sourcing the .env ran a value")
    }

    @Test(.tags(.network), .enabled("python-dotenv could not be installed with pip") { await DotenvPython.available() })
    func dotenvReadsBackExactlyInPythonDotenv() throws {
        let box = try Sandbox(inProcess: true)
        let marker = box.root + "/MARKER"
        let corpus = Self.dotenvCorpus(marker: marker)
        let (file, names) = try Self.dotenvFile(box, corpus)
        let python = try #require(DotenvPython.python)
        let read = try Sandbox.exec(
            python, ["-c", "import json, sys, dotenv; print(json.dumps(dotenv.dotenv_values(sys.argv[1])))", file], stdin: nil,
            environment: box.environment())
        #expect(read.status == 0, "\(read)")
        #expect(Self.decode(read.stdout) == Dictionary(uniqueKeysWithValues: zip(names, corpus)), "\(read)")
        #expect(!FileManager.default.fileExists(atPath: marker))
    }

    /// Values no dotenv quoting keeps in every reader are refused, and nothing is written.
    @Test func dotenvRefusesWhatNoFormKeeps() throws {
        let box = try Sandbox(inProcess: true)
        let marker = box.root + "/MARKER"
        let refused: [(String, String)] = [
            ("${x}", "python-dotenv expands"), ("it's $(touch \(marker))", "' or \\ together with $"),
            ("it's `touch \(marker)`", "' or \\ together with $"), ("it's $x", "' or \\ together with $"),
            ("it's `x`", "' or \\ together with $"),
            ("it's\nthere", "' or \\ together with $"), (#"a\\b $x"#, "' or \\ together with $"), ("a\rb", "carriage return"),
        ]
        for (index, (value, why)) in refused.enumerated() {
            try box.runOK(["set", "r\(index)", "k", "--", value])
            let file = box.root + "/r\(index).env"
            expectFailure(try box.runFailing(["export", "r\(index)", "--format", "dotenv", "-o", file], status: 6), 6, contains: why)
            #expect(!FileManager.default.fileExists(atPath: file))
            // The shell form keeps it.
            let env = try box.runOK(["export", "r\(index)", "--format", "env"])
            let printed = try Sandbox.exec("/bin/sh", ["-c", env.stdout + "printf '%s' \"$K\""], stdin: nil, environment: [:])
            #expect(printed.stdout == value, "\(printed)")
        }
        #expect(!FileManager.default.fileExists(atPath: marker))
    }

    // MARK: - Stored text is checked

    /// Writes `text` as the stored value of `domain`/`key`, behind prefs' back.
    static func tamper(_ box: Sandbox, _ domain: String, _ key: String, _ text: String) throws {
        try DatabaseQueue(path: box.store).writeWithoutTransaction { db in
            if ["default", "dynamic", "switch", "user"].contains(domain) {
                try db.execute(sql: "UPDATE \("kv_" + domain) SET value = ? WHERE key = ?", arguments: [text, key])
            } else {
                try db.execute(sql: "UPDATE kv__custom SET value = ? WHERE domain = ? AND key = ?", arguments: [text, domain, key])
            }
        }
    }

    @Test func aTamperedRowIsCorruptNotAnExtraKey() throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["set", "user", "admin", "false"])
        try box.runOK(["set", "user", "level", "1"])
        try box.runOK(["set", "user", "name", "ada"])
        try Self.tamper(box, "user", "level", #"1,"admin":true"#)
        expectFailure(try box.runFailing(["get", "user", "level"], status: 3), 3, contains: "user/level")
        for command in [
            ["list", "--json"], ["list", "user", "--json"], ["list", "user", "--json", "--meta"],
            ["list", "user", "--json", "--show-origin"],
            ["export"], ["export", "user"], ["export", "user", "--pretty"], ["export", "user", "--effective"],
            ["export", "user", "--format", "dotenv"],
        ] {
            expectFailure(try box.runFailing(command, status: 3), 3, contains: "stored value of user/level is corrupt")
        }
        let file = box.root + "/out.json"
        expectFailure(try box.runFailing(["export", "-o", file], status: 3), 3, contains: "user/level is corrupt")
        #expect(!FileManager.default.fileExists(atPath: file))
        // What an export would have carried must not reach import.
        try Self.tamper(box, "user", "level", "{")
        expectFailure(try box.runFailing(["list", "--json"], status: 3), 3, contains: "stored value of user/level is corrupt")
        try Self.tamper(box, "user", "level", " 2 ")
        #expect(try box.runOK(["list", "user", "--json"]).stdout == #"{"admin":false,"level":2,"name":"ada"}"# + "\n")
        #expect(try box.runOK(["export"]).stdout == #"{"user":{"admin":false,"level":2,"name":"ada"}}"# + "\n")
    }

    @Test func exportToDashWritesStandardOutput() throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["set", "user", "a", "1"])
        let json = try box.runOK(["export", "-o", "-"])
        #expect(json.stdout == #"{"user":{"a":1}}"# + "\n", "\(json)")
        let env = try box.runOK(["export", "user", "--format", "env", "-o", "-"])
        #expect(env.stdout == "export A='1'\n", "\(env)")
        #expect(!FileManager.default.fileExists(atPath: FileManager.default.currentDirectoryPath + "/-"))
        let imported = try box.runOK(["import", "-"], stdin: json.stdout)
        #expect(imported.stdout.isEmpty)
    }
}

/// python-dotenv in a venv under `.build/dotenv-venv`, made on first use from PyPI.
enum DotenvPython {
    /// Awaited by the condition trait of a test that needs it, made off the cooperative pool.
    static func available() async -> Bool { await provision.value() != nil }

    /// The venv's python, for a test whose condition awaited ``available()``.
    static var python: String? { provision.finished ?? nil }

    private static let provision = Provision<String?> {
        let venv = repositoryRoot + "/.build/dotenv-venv"
        let python = venv + "/bin/python"
        let environment = ProcessInfo.processInfo.environment
        func check() -> Bool {
            (try? Sandbox.exec(python, ["-c", "import dotenv"], stdin: nil, environment: environment))?.status == 0
        }
        if check() { return python }
        guard (try? Sandbox.exec("/usr/bin/env", ["python3", "-m", "venv", venv], stdin: nil, environment: environment))?.status == 0,
            (try? Sandbox.exec(venv + "/bin/pip", ["install", "-q", "python-dotenv==1.2.4"], stdin: nil, environment: environment))?
                .status == 0,
            check()
        else { return nil }
        return python
    }
}
