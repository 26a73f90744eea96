import Foundation
import PrefsTestSupport
import Testing

/// Completion of domains and keys in a real bash (tmux types TAB and reads the screen), and
/// the callback the completion scripts use, for every shell.
@Suite("shell completion")
struct CompletionTests {
    /// Runs tmux on the test's own server socket, its output in a file (``spawnDetached(_:output:)``):
    /// the server outlives `new-session`, and Foundation's Process was seen never to reap that
    /// client.
    static func tmux(_ arguments: [String], socket: String = "prefs-test-\(getpid())") throws -> RunResult {
        let output = FileManager.default.temporaryDirectory.path + "/prefs-tmux-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer { unlink(output) }
        guard let pid = try? spawnDetached(["tmux", "-L", socket, "-f", "/dev/null"] + arguments, output: output) else {
            return RunResult(stdout: "", stderr: "cannot run tmux", status: 127)
        }
        let status = waitForExit(pid)
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        return RunResult(stdout: text, stderr: "", status: (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f))
    }

    @Test func theCallbackCompletesDomainsAndKeysByPrefix() throws {
        let box = try Sandbox()
        for key in ["theme", "tone", "window"] {
            #expect(try box.run(["set", "user", key, "1"]).status == 0)
        }
        #expect(try box.run(["set", "extra", "k", "1"]).status == 0)
        let domains = try box.run(
            ["---completion", "get", "--", "positional@0", "3", "0", "prefs", "--store", box.store, "get", ""], store: false)
        #expect(domains.status == 0 && domains.stdout == "default\ndynamic\nextra\nmemory\nswitch\nuser\n", "\(domains)")
        let keys = try box.run(
            ["---completion", "rm", "--", "positional@1", "5", "1", "prefs", "--store", box.store, "rm", "user", "t"], store: false)
        #expect(keys.stdout == "theme\ntone\n", "\(keys)")
        let none = try box.run(
            ["---completion", "get", "--", "positional@1", "5", "0", "prefs", "--store", box.root + "/none.db", "get", "user", ""],
            store: false)
        #expect(none.status == 0 && none.stdout.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "\(none)")
        #expect(!FileManager.default.fileExists(atPath: box.root + "/none.db"), "completion creates nothing")
    }

    @Test func bashCompletesKeysWhenTabIsPressed() throws {
        guard (try? Self.tmux(["-V"]))?.status == 0 else {
            print("skipped: tmux is not installed (apt-get install tmux)")
            return
        }
        let box = try Sandbox()
        for key in ["theme", "tone", "window"] {
            #expect(try box.run(["set", "user", key, "1"]).status == 0)
        }
        let script = box.root + "/prefs.bash"
        let generated = try box.run(["--generate-completion-script", "bash"], store: false)
        #expect(generated.status == 0)
        try Data(generated.stdout.utf8).write(to: URL(fileURLWithPath: script))
        let bin = (Sandbox.binary as NSString).deletingLastPathComponent
        let session = "prefs-completion-\(getpid())"
        let rc = box.root + "/bashrc"
        try Data("PS1='$ '\nexport PATH=\(bin):$PATH PREFS_STORE=\(box.store)\nsource \(script)\n".utf8).write(to: URL(fileURLWithPath: rc))
        #expect(try Self.tmux(["new-session", "-d", "-s", session, "-x", "200", "-y", "50", "bash --rcfile \(rc) -i"]).status == 0)
        defer { _ = try? Self.tmux(["kill-server"]) }
        func screen(after keys: [String], until expected: String) throws -> String {
            #expect(try Self.tmux(["send-keys", "-t", session] + keys).status == 0)
            var text = ""
            for _ in 0..<100 {
                usleep(100_000)
                text = try Self.tmux(["capture-pane", "-p", "-t", session]).stdout
                if text.contains(expected) { break }
            }
            return text
        }
        usleep(500_000)
        // One candidate: TAB completes the word in place.
        let single = try screen(after: ["prefs get user wi", "Tab"], until: "prefs get user window")
        #expect(single.contains("$ prefs get user window"), "\(single)")
        _ = try screen(after: ["C-u"], until: "$ ")
        // Several: TAB TAB lists them.
        let listed = try screen(after: ["prefs get user t", "Tab", "Tab"], until: "tone")
        #expect(listed.contains("theme") && listed.contains("tone") && !listed.contains("window "), "\(listed)")
        _ = try screen(after: ["C-u"], until: "$ ")
        let domains = try screen(after: ["prefs list sw", "Tab"], until: "prefs list switch")
        #expect(domains.contains("$ prefs list switch"), "\(domains)")
    }
}
