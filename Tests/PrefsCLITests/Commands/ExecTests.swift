import Foundation
import PrefsCore
import PrefsTestSupport
import Testing

/// `prefs exec DOMAIN -- COMMAND` (envconsul's job; issue 43 item 8): a command that ends by
/// itself run in process (the command is a real process either way), the signals and the
/// restarts of a followed domain with the binary.
@Suite("exec", .timeLimit(.minutes(5)), .ownThreads)
struct ExecTests {
    @Test func theCommandGetsTheDomainAsVariablesAndPrefsEndsAsItDoes() throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["set", "app", "theme", "dark"])
        try box.runOK(["set", "app", "max.retries", "3"])
        try box.runOK(["set", "app", "quote", "--string", "it's $HOME"])
        let printed = try box.runOK(["exec", "app", "--", "sh", "-c", #"printf '%s|%s|%s\n' "$THEME" "$MAX_RETRIES" "$QUOTE""#])
        #expect(printed.stdout == "dark|3|it's $HOME\n" && printed.stderr.isEmpty, "\(printed)")
        let prefixed = try box.runOK(["exec", "app", "--name-prefix", "APP_", "--", "sh", "-c", #"echo "$APP_THEME${THEME:-unset}""#])
        #expect(prefixed.stdout == "darkunset\n", "\(prefixed)")
        // prefs's own environment is kept.
        let kept = try box.runOK(["exec", "app", "--", "sh", "-c", #"echo "$KEEP""#], environment: ["KEEP": "yes"])
        #expect(kept.stdout == "yes\n")

        // The command's status is prefs's: an exit status, 128+N for signal N, 127 and 126.
        #expect(try box.run(["exec", "app", "--", "sh", "-c", "exit 7"], expecting: 7).stderr.isEmpty)
        try box.run(["exec", "app", "--", "sh", "-c", "kill -TERM $$"], expecting: 143)
        try box.run(["exec", "app", "--", "sh", "-c", "kill -KILL $$"], expecting: 137)
        expectFailure(
            try box.runFailing(["exec", "app", "--", "no-such-command-here"], status: 127), 127, contains: "cannot run no-such-command-here"
        )
        let file = box.root + "/not-executable"
        try "echo hi\n".write(toFile: file, atomically: true, encoding: .utf8)
        expectFailure(try box.runFailing(["exec", "app", "--", file], status: 126), 126, contains: "cannot run")
        expectFailure(try box.runFailing(["exec", "app"], status: 2), 2, contains: "Missing the command")
    }

    @Test func theNameChecksOfExportEnvRefuseBeforeAnythingRuns() throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["set", "ci", "path", "/tmp/evil"])
        let marker = box.root + "/ran"
        let refused = try box.runFailing(["exec", "ci", "--", "sh", "-c", "touch " + marker], status: 6)
        expectFailure(refused, 6, contains: "ci/path would set PATH, which changes how the shell or programs run")
        #expect(!FileManager.default.fileExists(atPath: marker), "nothing ran")
        // Exactly export --format env's verdict.
        let export = try box.runFailing(["export", "ci", "--format", "env"], status: 6)
        #expect(export.stderr == refused.stderr, "\(export) \(refused)")
        try box.runOK(["set", "switch", "frozen", "true"])
        expectFailure(
            try box.runFailing(["exec", "switch", "--", "true"], status: 6), 6, contains: "switch is written by servers and sync peers")
        try box.runOK(["exec", "switch", "--name-prefix", "FLAG_", "--", "sh", "-c", #"test "$FLAG_FROZEN" = true"#])
        expectFailure(try box.runFailing(["exec", "nowhere", "--", "true"], status: 1), 1)
        expectFailure(try box.runFailing(["exec", "ci", "--name-prefix", "LD", "--", "true"], status: 2), 2, contains: "LD_")
    }

    @Test func signalSendsTheSignalWhenTheValuesChange() throws {
        let box = try Sandbox()
        try box.runOK(["set", "app", "theme", "dark"])
        let script = #"trap 'echo "hup $THEME"' HUP; echo "ready $THEME"; while :; do sleep 0.02; done"#
        let (running, _) = try Running.watch(["--store", box.store, "exec", "app", "--signal", "HUP", "--", "sh", "-c", script], box: box)
        #expect(running.waitForLines(1), "\(running.lines.snapshot())")
        try box.runOK(["set", "app", "theme", "light"])
        #expect(running.waitForLines(2), "\(running.lines.snapshot())")
        // A write that leaves the variables as they were sends nothing; another domain neither.
        try box.runOK(["set", "app", "theme", "light"])
        try box.runOK(["set", "other", "x", "1"])
        try box.runOK(["set", "app", "theme", "blue"])
        #expect(running.waitForLines(3), "\(running.lines.snapshot())")
        // A value export --format env refuses: a warning, the command goes on, nothing sent.
        try box.runOK(["set", "app", "path", "/tmp/evil"])
        try box.runOK(["rm", "app", "path"])
        try box.runOK(["set", "app", "theme", "green"])
        #expect(running.waitForLines(4), "\(running.lines.snapshot())")
        let result = running.finish(signal: SIGTERM)
        #expect(result.stdout == "ready dark\nhup dark\nhup dark\nhup dark\n", "\(result)")
        #expect(result.stderr.contains("prefs: warning: app/path would set PATH"), "\(result)")
        #expect(result.status == 143, "SIGTERM passed on; the shell's end is prefs's: \(result)")
    }

    @Test func restartStartsTheCommandAgainWithTheNewValues() throws {
        let box = try Sandbox()
        try box.runOK(["set", "app", "theme", "dark"])
        let (running, _) = try Running.watch(
            ["--store", box.store, "exec", "app", "--restart", "--", "sh", "-c", #"echo "theme $THEME"; exec sleep 30"#], box: box)
        #expect(running.waitForLines(1), "\(running.lines.snapshot())")
        try box.runOK(["set", "app", "theme", "light"])
        #expect(running.waitForLines(2), "\(running.lines.snapshot())")
        try box.runOK(["rm", "app", "theme"])
        #expect(running.waitForLines(3), "\(running.lines.snapshot())")
        let result = running.finish(signal: SIGTERM)
        #expect(result.stdout == "theme dark\ntheme light\ntheme \n", "\(result)")
        #expect(result.status == 143, "\(result)")
    }
}
