import Foundation
import PrefsCore
import PrefsTestSupport
import Testing

/// Completion of domains, keys and flags in real bash, zsh and fish: what each offers for keys
/// full of shell syntax (`$(touch MARKER)`, backticks, quotes, `;`, `|`, `&`, …), that the
/// completed command line reads exactly the stored key, and that nothing runs and nothing is
/// written. Interactive shells run in tmux (which types TAB and reads the screen).
@Suite("shell completion", .timeLimit(.minutes(5)), .ownThreads)
struct CompletionTests {
    /// Whether `tool` is on PATH, where ``run(_:timeout:)`` and `env` look for it.
    static func installed(_ tool: String) -> Bool { toolInstalled(tool) }

    /// Runs `command` (looked up on PATH) with standard output and error in a file
    /// (``spawnDetached(_:output:)``), killed when it takes longer than `timeout` seconds.
    static func run(_ command: [String], timeout: Double = 30) throws -> RunResult {
        let output = FileManager.default.temporaryDirectory.path + "/prefs-completion-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer { unlink(output) }
        let pid: pid_t
        do {
            pid = try spawnDetached(command, output: output)
        } catch {
            return RunResult(stdout: "", stderr: "\(error)", status: 127)
        }
        var status: Int32 = 0
        let deadline = Date().addingTimeInterval(timeout)
        var timedOut = false
        while true {
            let done = waitpid(pid, &status, WNOHANG)
            if done == pid || (done < 0 && errno != EINTR) { break }
            if Date() > deadline {
                kill(-pid, SIGKILL)  // its process group: tmux, the shell and what they started
                status = waitForExit(pid)
                timedOut = true
                break
            }
            usleep(10_000)
        }
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        let code = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return RunResult(stdout: text, stderr: timedOut ? "timed out after \(timeout) s" : "", status: code)
    }

    /// Runs tmux on the test's own server socket (``run(_:timeout:)``): the server outlives
    /// `new-session`, and Foundation's Process was seen never to reap that client.
    static func tmux(_ arguments: [String], socket: String) throws -> RunResult {
        try run(["tmux", "-L", socket, "-f", "/dev/null"] + arguments, timeout: 15)
    }

    /// A store whose keys are shell syntax; each key's value is its position (100 + index), so
    /// reading it shows which key a command line named. Markers are files the keys would create
    /// if any shell ran them.
    struct Fixture {
        let box: Sandbox
        let keys: [String]
        let flags: [String]
        let markers: [String]
        let snapshot: String
        let bin: String

        init() throws {
            box = try Sandbox()
            let root = box.root
            markers = ["subst", "backtick", "semi", "pipe", "amp", "flag"].map { "\(root)/marker-\($0)" }
            keys = [
                "$(touch \(root)/marker-subst)", "`touch \(root)/marker-backtick`", "it's", "say \"hi\"", #"back\slash"#,
                "two words", "star*", "semi;touch \(root)/marker-semi", "pipe|touch \(root)/marker-pipe",
                "amp&touch \(root)/marker-amp", "$x", "a/b", "c:d", "$evaluators", "$metadata", "bang!!",
            ]
            for (index, key) in keys.enumerated() {
                let set = try box.runOK(["set", "user", key, "\(100 + index)"])
                #expect(set.status == 0, "set \(key): \(set)")
            }
            let flagKeys = ["new-checkout", "$(touch \(root)/marker-flag)", "it's on"]
            var document = #"{"$evaluators":{"shared":{"==":[1,1]}},"metadata":{"team":"web"},"flags":{"#
            for (index, flag) in flagKeys.enumerated() {
                let name = flag.replacingOccurrences(of: "\"", with: "\\\"")
                document +=
                    (index > 0 ? "," : "") + #""\#(name)":{"state":"ENABLED","variants":{"on":true,"off":false},"defaultVariant":"on"}"#
            }
            document += "}}"
            let imported = try box.runOK(["flag", "import"], stdin: document)
            #expect(imported.status == 0, "flag import: \(imported)")
            let switchKeys = try box.runOK(["list", "switch", "--keys-only"])
            #expect(
                switchKeys.status == 0 && switchKeys.stdout.contains("$evaluators") && switchKeys.stdout.contains("$metadata"),
                "\(switchKeys)")
            flags = flagKeys.sorted()
            snapshot = try box.storeSnapshot()
            bin = (Sandbox.binary as NSString).deletingLastPathComponent
        }

        /// The variables every shell gets: the binary first on PATH, the store, a private runtime directory.
        var environment: [String] {
            [
                "PATH=\(bin):/usr/local/bin:/usr/bin:/bin", "PREFS_STORE=\(box.store)", "XDG_RUNTIME_DIR=\(box.runtime)",
                "HOME=\(box.root)/home", "XDG_DATA_HOME=\(box.root)/data", "XDG_CONFIG_HOME=\(box.root)/config", "TERM=xterm",
            ]
        }

        /// The completion script for `shell`, written to the sandbox (zsh's as `_prefs`).
        func script(_ shell: String) throws -> String {
            let generated = try box.runOK(["--generate-completion-script", shell], store: false)
            #expect(generated.status == 0 && !generated.stdout.isEmpty, "\(generated)")
            let directory = box.root + "/completions-\(shell)"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let path = directory + "/" + ["bash": "prefs.bash", "zsh": "_prefs", "fish": "prefs.fish"][shell]!
            try Data(generated.stdout.utf8).write(to: URL(fileURLWithPath: path))
            return path
        }

        /// Nothing ran and nothing was written.
        func expectUntouched(sourceLocation: SourceLocation = #_sourceLocation) throws {
            for marker in markers {
                #expect(
                    !FileManager.default.fileExists(atPath: marker), "a shell ran a key: \(marker) exists", sourceLocation: sourceLocation)
            }
            #expect(try box.storeSnapshot() == snapshot, "completion changed the store", sourceLocation: sourceLocation)
        }

        /// The value `prefs get user KEY` prints for `key`.
        func value(of key: String) -> String { "\(100 + keys.firstIndex(of: key)!)\n" }

        /// The shortest start of `key` that no other key shares.
        func uniquePrefix(of key: String, among all: [String]) -> String {
            for length in 1...key.count {
                let prefix = String(key.prefix(length))
                if all.filter({ $0.hasPrefix(prefix) }).count == 1 { return prefix }
            }
            return key
        }
    }

    /// How the user typed the start of a word: bare with backslashes, or after an opening `'` or `"`.
    enum Typing: CaseIterable {
        case bare, single, double

        /// `prefix` typed this way, or nil when it cannot be (a `'` inside single quotes).
        func typed(_ prefix: String) -> String? {
            switch self {
            case .bare:
                return prefix.map { $0.isLetter || $0.isNumber ? String($0) : "\\" + String($0) }.joined()
            case .single:
                return prefix.contains("'") ? nil : "'" + prefix
            case .double:
                return "\"" + prefix.map { "$`\"\\".contains($0) ? "\\" + String($0) : String($0) }.joined()
            }
        }
    }

    // MARK: - The callback

    @Test func theCallbackCompletesDomainsAndKeysByPrefix() throws {
        let box = try Sandbox()
        for key in ["theme", "tone", "window"] {
            try box.runOK(["set", "user", key, "1"])
        }
        try box.runOK(["set", "extra", "k", "1"])
        let domains = try box.runOK(
            ["---completion", "get", "--", "positional@0", "3", "0", "prefs", "--store", box.store, "get", ""], store: false)
        #expect(domains.status == 0 && domains.stdout == "default\ndynamic\nextra\nmemory\nswitch\nuser\n", "\(domains)")
        let keys = try box.runOK(
            ["---completion", "rm", "--", "positional@1", "5", "1", "prefs", "--store", box.store, "rm", "user", "t"], store: false)
        #expect(keys.stdout == "theme\ntone\n", "\(keys)")
        // A word as typed in bash (quoted, escaped) is compared as the program would receive it.
        let quoted = try box.runOK(
            ["---completion", "rm", "--", "positional@1", "5", "3", "prefs", "--store", box.store, "rm", "'user'", "'th"], store: false,
            environment: ["SAP_SHELL": "bash"])
        #expect(quoted.stdout == "theme\n", "\(quoted)")
        let none = try box.runOK(
            ["---completion", "get", "--", "positional@1", "5", "0", "prefs", "--store", box.root + "/none.db", "get", "user", ""],
            store: false)
        #expect(none.status == 0 && none.stdout.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "\(none)")
        #expect(!FileManager.default.fileExists(atPath: box.root + "/none.db"), "completion creates nothing")
    }

    @Test func theCallbackCompletesFlagNamesWithoutEvaluatorsOrMetadata() throws {
        let fixture = try Fixture()
        let box = fixture.box
        for command in ["eval", "explain", "enable", "disable", "stats", "show", "enabled"] {
            let flags = try box.runOK(
                ["---completion", "flag", command, "--", "positional@0", "3", "0", "prefs", "flag", command, ""], store: false,
                environment: ["PREFS_STORE": box.store])
            #expect(flags.status == 0 && flags.stdout == fixture.flags.joined(separator: "\n") + "\n", "flag \(command): \(flags)")
        }
        let narrowed = try box.runOK(
            ["---completion", "flag", "eval", "--", "positional@0", "3", "1", "prefs", "flag", "eval", "n"], store: false,
            environment: ["PREFS_STORE": box.store])
        #expect(narrowed.stdout == "new-checkout\n", "\(narrowed)")
        try fixture.expectUntouched()
    }

    // MARK: - bash

    /// The committed script is what the binary prints, and it hands no candidate to
    /// `compgen -W` (which expands words) or `eval`.
    @Test func theBashScriptNeverExpandsCandidates() throws {
        let box = try Sandbox()
        let generated = try box.runOK(["--generate-completion-script", "bash"], store: false)
        #expect(generated.status == 0, "\(generated)")
        let committed = try String(contentsOfFile: repositoryRoot + "/completions/prefs.bash", encoding: .utf8)
        #expect(generated.stdout == committed, "completions/prefs.bash is not what the binary prints: run scripts/generate")
        let script = generated.stdout
        #expect(script.contains("__prefs_add_custom_completions() {"), "the safe candidate function is missing")
        #expect(!script.contains(#"-W "$("#), "a callback's output goes to compgen -W")
        #expect(!runsEval(script))
        let callbacks = script.components(separatedBy: "__prefs_custom_complete ---completion ").count - 1
        let safe = script.components(separatedBy: #"__prefs_add_custom_completions "$(__prefs_custom_complete ---completion "#).count - 1
        #expect(callbacks > 0 && callbacks == safe, "\(callbacks) callbacks, \(safe) through the safe function")
        #expect(script.contains("---completion flag eval -- positional@0"), "flag names are not completed")
        for shell in ["zsh", "fish"] {
            let other = try box.runOK(["--generate-completion-script", shell], store: false)
            let committed = try String(
                contentsOfFile: repositoryRoot + "/completions/" + (shell == "zsh" ? "_prefs" : "prefs.fish"), encoding: .utf8)
            #expect(other.status == 0 && other.stdout == committed, "completions for \(shell) are out of date")
            #expect(!runsEval(other.stdout) && !other.stdout.contains("compgen"), "\(shell) expands candidates")
            #expect(!other.stdout.contains("banghist"), "\(shell) turns history expansion off while it quotes: ! goes in unquoted")
        }
    }

    /// Calls `_prefs` in a non-interactive bash as readline would for `LINE WORD` (`WORD` as
    /// typed, an opening quote included: readline leaves it out of the word it passes) and
    /// returns COMPREPLY.
    static func bashReplies(_ fixture: Fixture, script: String, line: String, word: String) throws -> [String] {
        let program = #"""
            source "$SCRIPT" || exit 90
            COMP_WORDS=($BEFORE "$WORD")
            COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
            COMP_LINE="$BEFORE $WORD"
            COMP_POINT=${#COMP_LINE}
            cur="$WORD"
            case "$WORD" in [\'\"]*) cur="${WORD:1}" ;; esac
            COMPREPLY=()
            _prefs prefs "$cur" "${COMP_WORDS[COMP_CWORD - 1]}" 2>/dev/null
            printf 'reply:%s\n' "${COMPREPLY[@]}"
            """#
        let result = try run(
            ["env"] + fixture.environment + [
                "SCRIPT=\(script)", "BEFORE=\(line)", "WORD=\(word)", "bash", "--norc", "--noprofile", "-c", program,
            ])
        #expect(result.status == 0, "\(result)")
        return result.stdout.split(separator: "\n", omittingEmptySubsequences: false).compactMap {
            $0.hasPrefix("reply:") && $0.count > 6 ? String($0.dropFirst(6)) : nil
        }
    }

    /// `COMMAND` run by `shell -c` with the fixture's environment.
    static func evaluate(_ fixture: Fixture, _ shell: [String], _ command: String) throws -> RunResult {
        try run(["env"] + fixture.environment + shell + ["-c", command])
    }

    @Test(.tags(.shells), .enabled(if: installed("bash"), "needs bash"))
    func bashOffersStoredKeysQuotedAndRunsNone() throws {
        let fixture = try Fixture()
        let script = try fixture.script("bash")
        // Everything, for an empty word: each key once, quoted for a bare word.
        let all = try Self.bashReplies(fixture, script: script, line: "prefs get user", word: "")
        var read: [String] = []
        for reply in all {
            let word = try Self.evaluate(fixture, ["bash", "--norc", "--noprofile"], "printf '%s\\n' \(reply)")
            read.append(String(word.stdout.dropLast()))
        }
        #expect(read.sorted() == fixture.keys.sorted(), "\(all)")
        // Each key from its shortest unique start, typed bare, after ' and after ": one reply that,
        // completed as readline does (the opening quote closed), reads exactly that key.
        for key in fixture.keys {
            for typing in Typing.allCases {
                guard let typed = typing.typed(fixture.uniquePrefix(of: key, among: fixture.keys)) else { continue }
                let replies = try Self.bashReplies(fixture, script: script, line: "prefs get user", word: typed)
                #expect(replies.count == 1, "\(key) typed as \(typed): \(replies)")
                guard let reply = replies.first else { continue }
                // readline closes the quote unless the match ends with it.
                let quote = typing == .bare ? "" : String(typed.prefix(1))
                let completed = quote + reply + (reply.hasSuffix(quote) ? "" : quote)
                let read = try Self.evaluate(fixture, ["bash", "--norc", "--noprofile"], "prefs get user \(completed)")
                #expect(
                    read.status == 0 && read.stdout == fixture.value(of: key), "\(key) typed as \(typed), completed \(completed): \(read)")
            }
        }
        // Domains and flags go through the same function.
        #expect(try Self.bashReplies(fixture, script: script, line: "prefs list", word: "sw") == ["switch"])
        let flags = try Self.bashReplies(fixture, script: script, line: "prefs flag eval", word: "")
        var words: [String] = []
        for reply in flags {
            let word = try Self.evaluate(fixture, ["bash", "--norc", "--noprofile"], "printf '%s\\n' \(reply)")
            words.append(String(word.stdout.dropLast()))
        }
        #expect(words == fixture.flags, "\(flags)")
        for command in ["explain", "enable", "disable", "stats"] {
            #expect(
                try Self.bashReplies(fixture, script: script, line: "prefs flag \(command)", word: "n") == ["new-checkout"],
                "flag \(command)")
        }
        try fixture.expectUntouched()
    }

    /// `set DOMAIN KEY TAB` offers the values the schema's `enum` allows (quoted for the shell,
    /// run by none), and `--type TAB` the types (issue 43).
    @Test(.tags(.shells), .enabled(if: installed("bash"), "needs bash"))
    func bashOffersASchemasValuesAndTheTypes() throws {
        let fixture = try Fixture()
        let hostile = "$(touch \(fixture.box.root)/marker-subst)"
        let schema = JSONValue.object([
            .init(
                "user",
                .object([
                    .init("mode", .object([.init("type", "string"), .init("enum", .array(["light", "dark mode", .string(hostile)]))])),
                    .init("level", .object([.init("type", "integer"), .init("enum", [1, 2, 3])])),
                ]))
        ])
        let file = fixture.box.root + "/schema.json"
        try Data(schema.compactText.utf8).write(to: URL(fileURLWithPath: file))
        try fixture.box.runOK(["schema", "load", file])
        let script = try fixture.script("bash")
        var read: [String] = []
        for reply in try Self.bashReplies(fixture, script: script, line: "prefs set user mode", word: "") {
            let word = try Self.evaluate(fixture, ["bash", "--norc", "--noprofile"], "printf '%s\\n' \(reply)")
            read.append(String(word.stdout.dropLast()))
        }
        #expect(read.sorted() == [hostile, "dark mode", "light"].sorted(), "\(read)")
        #expect(try Self.bashReplies(fixture, script: script, line: "prefs set user level", word: "") == ["1", "2", "3"])
        #expect(try Self.bashReplies(fixture, script: script, line: "prefs set user mode", word: "li") == ["light"])
        #expect(try Self.bashReplies(fixture, script: script, line: "prefs set user other", word: "").isEmpty)
        #expect(try Self.bashReplies(fixture, script: script, line: "prefs set user other --type", word: "in") == ["integer"])
        for marker in fixture.markers {
            #expect(!FileManager.default.fileExists(atPath: marker), "a shell ran a value: \(marker) exists")
        }
    }

    /// An interactive shell in tmux: ``complete(_:into:)`` types a command line, TAB, and
    /// `>FILE` Enter, so FILE holds what the completed line printed.
    struct InteractiveShell {
        let socket: String
        let session = "completion"
        let directory: String

        init(_ command: String, fixture: Fixture, ready: String) throws {
            socket = "prefs-completion-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            directory = fixture.box.root
            let started = try CompletionTests.tmux(
                [
                    "new-session", "-d", "-s", session, "-x", "250", "-y", "50", "-c", directory,
                    "env " + fixture.environment.joined(separator: " ") + " " + command,
                ],
                socket: socket)
            #expect(started.status == 0, "\(started)")
            _ = try wait(for: ready)
        }

        /// Ends the server and its shell; false when the server is still there after 5 s.
        @discardableResult
        func stop() -> Bool {
            _ = try? CompletionTests.tmux(["kill-server"], socket: socket)
            for _ in 0..<50 {
                if (try? CompletionTests.tmux(["list-sessions"], socket: socket))?.status != 0 { return true }
                usleep(100_000)
            }
            return false
        }

        func send(_ keys: [String]) throws {
            let sent = try CompletionTests.tmux(["send-keys", "-t", session] + keys, socket: socket)
            #expect(sent.status == 0, "\(sent)")
        }

        func screen() -> String {
            (try? CompletionTests.tmux(["capture-pane", "-p", "-t", session], socket: socket))?.stdout ?? ""
        }

        /// Polls the screen until it contains `text` (10 s at most) and returns it.
        func wait(for text: String) throws -> String {
            var shown = ""
            for _ in 0..<100 {
                shown = screen()
                if shown.contains(text) { break }
                usleep(100_000)
            }
            return shown
        }

        /// Clears the line and the screen, types `line`, TAB, then ` >FILE` and Enter; returns
        /// what FILE got (nil: nothing within 20 s).
        func complete(_ line: String, into name: String) throws -> String? {
            let file = directory + "/" + name
            try send(["C-e", "C-u", "C-l"])
            usleep(200_000)
            try send(["-l", line])
            try send(["Tab"])
            // Typing on while a shell completes can cancel it (fish): wait until the word grew.
            for _ in 0..<50 {
                usleep(100_000)
                let shown = screen()
                guard let typed = shown.range(of: line, options: .backwards) else { continue }
                if !shown[typed.upperBound...].prefix(while: { $0 != "\n" }).allSatisfy(\.isWhitespace) { break }
            }
            try send(["-l", " >\(name)"])
            try send(["Enter"])
            for _ in 0..<200 {
                if let text = try? String(contentsOfFile: file, encoding: .utf8), !text.isEmpty { return text }
                usleep(100_000)
            }
            return nil
        }
    }

    @Test(.tags(.shells), .enabled(if: installed("tmux") && installed("bash"), "needs tmux and bash"))
    func bashCompletesKeysWhenTabIsPressed() throws {
        let fixture = try Fixture()
        let script = try fixture.script("bash")
        let rc = fixture.box.root + "/bashrc"
        try Data("PS1='$ '\nsource \(script)\n".utf8).write(to: URL(fileURLWithPath: rc))
        let shell = try InteractiveShell("bash --rcfile \(rc) --noprofile -i", fixture: fixture, ready: "$ ")
        defer { #expect(shell.stop(), "the tmux server outlived kill-server") }
        var count = 0
        for key in fixture.keys {
            for typing in Typing.allCases {
                // Every key bare; the quoted forms for the keys made of shell syntax.
                guard
                    typing == .bare || key.hasPrefix("$(") || key.hasPrefix("`") || key.contains("'") || key.contains("\"")
                        || key.contains("!")
                else {
                    continue
                }
                guard let typed = typing.typed(fixture.uniquePrefix(of: key, among: fixture.keys)) else { continue }
                count += 1
                let printed = try shell.complete("prefs get user \(typed)", into: "out-\(count)")
                #expect(printed == fixture.value(of: key), "\(key) typed as \(typed): \(printed ?? "nothing")\n\(shell.screen())")
            }
        }
        // Several candidates: TAB TAB lists them, quoted (on a cleared screen).
        try shell.send(["C-e", "C-u", "C-l"])
        try shell.send(["-l", "prefs get user s"])
        try shell.send(["Tab", "Tab"])
        let listed = try shell.wait(for: #"star\*"#)
        #expect(listed.contains(#"say\ \"hi\""#) && listed.contains(#"star\*"#) && listed.contains(#"semi\;touch"#), "\(listed)")
        let domain = try shell.complete("prefs list sw", into: "out-domain")
        #expect(domain?.contains("new-checkout") == true, "\(domain ?? "nothing")\n\(shell.screen())")
        let flag = try shell.complete("prefs flag show new-", into: "out-flag")
        #expect(flag?.contains("ENABLED") == true, "\(flag ?? "nothing")\n\(shell.screen())")
        try fixture.expectUntouched()
    }

    // MARK: - zsh

    @Test(.tags(.shells), .enabled(if: installed("tmux") && installed("zsh"), "needs tmux and zsh"))
    func zshCompletesKeysWhenTabIsPressed() throws {
        let fixture = try Fixture()
        let script = try fixture.script("zsh")
        let directory = (script as NSString).deletingLastPathComponent
        let rc = fixture.box.root + "/zshrc"
        try Data("fpath=(\(directory) $fpath)\nautoload -U compinit\ncompinit -u -D\n".utf8).write(to: URL(fileURLWithPath: rc))
        let shell = try InteractiveShell("PS1='%% ' zsh -f -i", fixture: fixture, ready: "% ")
        defer { #expect(shell.stop(), "the tmux server outlived kill-server") }
        try shell.send(["-l", "source \(rc); echo RE''ADY"])
        try shell.send(["Enter"])
        #expect(try shell.wait(for: "READY").contains("READY"))
        var count = 0
        for key in fixture.keys {
            for typing in Typing.allCases {
                guard
                    typing == .bare || key.hasPrefix("$(") || key.hasPrefix("`") || key.contains("'") || key.contains("\"")
                        || key.contains("!")
                else {
                    continue
                }
                guard let typed = typing.typed(fixture.uniquePrefix(of: key, among: fixture.keys)) else { continue }
                count += 1
                let printed = try shell.complete("prefs get user \(typed)", into: "out-\(count)")
                #expect(printed == fixture.value(of: key), "\(key) typed as \(typed): \(printed ?? "nothing")\n\(shell.screen())")
            }
        }
        let flag = try shell.complete("prefs flag show new-", into: "out-flag")
        #expect(flag?.contains("ENABLED") == true, "\(flag ?? "nothing")\n\(shell.screen())")
        try fixture.expectUntouched()
    }

    // MARK: - fish

    /// fish 3 hands the callback its words unescaped (`commandline -o`), fish 4 as typed
    /// (`--tokens-raw`); fish's `complete -C` cannot run SAP's script outside an interactive
    /// shell (its `commandline -C`), so the callback is asked as the script asks it.
    @Test func theCallbackTakesFishWordsAsFishPassesThem() throws {
        let fixture = try Fixture()
        func keys(_ word: String, version: String) throws -> String {
            let result = try fixture.box.runOK(
                ["---completion", "get", "--", "positional@1", "3", "\(word.count)", "prefs", "get", "user", word], store: false,
                environment: ["PREFS_STORE": fixture.box.store, "SAP_SHELL": "fish", "SAP_SHELL_VERSION": version])
            #expect(result.status == 0, "\(result)")
            return result.stdout
        }
        #expect(try keys("it'", version: "3.6.0") == "it's\n")
        #expect(try keys(#"back\"#, version: "3.6.0") == "back\\slash\n")
        #expect(try keys("say \"", version: "3.6.0") == "say \"hi\"\n")
        #expect(try keys(#"it\'"#, version: "4.0.2") == "it's\n")
        #expect(try keys(#"'back\"#, version: "4.0.2") == "back\\slash\n")
        #expect(try keys("", version: "3.6.0").split(separator: "\n").map(String.init) == fixture.keys.sorted())
        try fixture.expectUntouched()
    }

    @Test(.tags(.shells), .enabled(if: installed("tmux") && installed("fish"), "needs tmux and fish"))
    func fishCompletesKeysWhenTabIsPressed() throws {
        let fixture = try Fixture()
        let script = try fixture.script("fish")
        let shell = try InteractiveShell(
            "fish --no-config -i -C 'function fish_prompt; echo \"> \"; end' -C 'source \(script)'", fixture: fixture, ready: "> ")
        defer { #expect(shell.stop(), "the tmux server outlived kill-server") }
        for (count, key) in fixture.keys.enumerated() {
            let typed = Typing.bare.typed(fixture.uniquePrefix(of: key, among: fixture.keys))!
            let printed = try shell.complete("prefs get user \(typed)", into: "out-\(count)")
            #expect(printed == fixture.value(of: key), "\(key) typed as \(typed): \(printed ?? "nothing")\n\(shell.screen())")
        }
        // Several candidates: TAB lists them as stored (on a cleared screen).
        try shell.send(["C-e", "C-u", "C-l"])
        try shell.send(["-l", "prefs get user s"])
        try shell.send(["Tab"])
        let listed = try shell.wait(for: "star*")
        #expect(listed.contains(#"say "hi""#) && listed.contains("star*") && listed.contains("semi;touch"), "\(listed)")
        let flag = try shell.complete("prefs flag show new-", into: "out-flag")
        #expect(flag?.contains("ENABLED") == true, "\(flag ?? "nothing")\n\(shell.screen())")
        try fixture.expectUntouched()
    }
}

/// Whether a line of `script` runs `eval` (as a command, not as a word such as `flag eval`).
func runsEval(_ script: String) -> Bool {
    script.split(separator: "\n").contains { line in
        let command = line.drop { $0 == " " || $0 == "\t" }
        return command.hasPrefix("eval ") || ["; eval ", "&& eval ", "|| eval ", "$(eval ", "(eval "].contains { line.contains($0) }
    }
}
