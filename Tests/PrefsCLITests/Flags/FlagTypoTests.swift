import Foundation
import PrefsTestSupport
import Testing

/// A misspelled flag is never silent; `flag eval` infers the type and needs no default (issue 30).
@Suite("flag typos and inferred types", .timeLimit(.minutes(5)), .ownThreads)
struct FlagTypoTests {
    static func store() throws -> Sandbox {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["flag", "import", repositoryRoot + "/examples/flags.json"])
        return box
    }

    @Test func aMissingFlagWithADefaultAnswersItAndSaysSoOnStderr() throws {
        let box = try Self.store()
        let result = try box.runOK(["flag", "eval", "new-chekout", "--type", "boolean", "--default", "false"])
        #expect(result.status == 0 && result.stdout == "false\n", "\(result)")
        #expect(
            result.stderr == "prefs: warning: flag 'new-chekout' not found, answered the default; did you mean 'new-checkout'?\n",
            "\(result)")
        let far = try box.runOK(["flag", "eval", "completely-else", "--default", "10"])
        #expect(
            far.status == 0 && far.stdout == "10\n"
                && far.stderr == "prefs: warning: flag 'completely-else' not found, answered the default\n", "\(far)")
    }

    @Test func strictModeAndNoDefaultMakeAMissingFlagExitOne() throws {
        let box = try Self.store()
        for (arguments, environment) in [
            (["flag", "eval", "new-chekout", "--default", "false", "--strict"], [String: String]()),
            (["flag", "eval", "new-chekout", "--default", "false"], ["PREFS_STRICT_FLAGS": "1"]),
            (["flag", "eval", "new-chekout"], [:]),
        ] {
            let result = try box.runFailing(arguments, status: 1, environment: environment)
            #expect(result.status == 1 && result.stdout.isEmpty, "\(arguments): \(result)")
            #expect(result.stderr == "prefs: flag 'new-chekout' not found; did you mean 'new-checkout'?\n", "\(arguments): \(result)")
        }
    }

    @Test func theTypeIsTheFlagsOwnAndTheDefaultIsOptional() throws {
        let box = try Self.store()
        let inferred = try box.runOK(["flag", "eval", "new-checkout", "--json"])
        #expect(inferred.status == 0 && inferred.stdout.hasPrefix(#"{"value":false,"variant":"off","reason":"#), "\(inferred)")
        let banner = try box.runOK(["flag", "eval", "banner"])
        #expect(banner.status == 0 && banner.stdout == "hi\n", "\(banner)")
        // An error resolution without a default is an exit code, not a silent null.
        let mismatch = try box.runFailing(["flag", "eval", "banner", "--type", "boolean"], status: 6)
        #expect(mismatch.status == 6 && mismatch.stdout.isEmpty, "\(mismatch)")
        #expect(mismatch.stderr.hasPrefix("prefs: flag 'banner': TYPE_MISMATCH"), "\(mismatch)")
        // With a default it stays a result (OpenFeature: the default is an answer).
        let answered = try box.runOK(["flag", "eval", "banner", "--type", "boolean", "--default", "true"])
        #expect(answered.status == 0 && answered.stdout == "true\n", "\(answered)")
    }

    /// Issue 38: `flag enabled` of a flag that does not exist is exit 2, never the 1 of a flag
    /// that is off, in strict mode or not (docs/decisions.md), and names the nearest flag.
    @Test func enabledOfAMissingFlagIsExitTwoAndNamesTheNearest() throws {
        let box = try Self.store()
        for environment in [[:], ["PREFS_STRICT_FLAGS": "1"], ["PREFS_STRICT_FLAGS": "0"]] {
            let result = try box.runFailing(["flag", "enabled", "new-chekout"], status: 2, environment: environment)
            #expect(result.status == 2 && result.stdout.isEmpty, "\(environment): \(result)")
            #expect(result.stderr == "prefs: flag 'new-chekout' not found; did you mean 'new-checkout'?\n", "\(environment): \(result)")
        }
        // Every answer a real flag gives is 0 or 1: off, disabled, a string flag, an error.
        try box.runFailing(["flag", "enabled", "deploy-frozen"], status: 1)
        try box.runOK([
            "set", "switch", "broken", #"{"state":"ENABLED","variants":{"a":true},"defaultVariant":"a","targeting":{"nope":[]}}"#,
        ])
        for flag in ["banner", "broken"] {
            let real = try box.runFailing(["flag", "enabled", flag], status: 1, environment: ["PREFS_STRICT_FLAGS": "1"])
            #expect(real.status == 1 && real.stderr.isEmpty, "\(flag): \(real)")
        }
        try box.runOK(["flag", "disable", "deploy-frozen"])
        try box.runFailing(["flag", "enabled", "deploy-frozen"], status: 1, environment: ["PREFS_STRICT_FLAGS": "1"])
        // No store at all: no flag either (the same status, and why).
        let empty = try Sandbox(inProcess: true)
        let none = try empty.runFailing(["flag", "enabled", "deploy-frozen"], status: 2)
        #expect(
            none.stderr.hasPrefix("prefs: no store at ") && none.stderr.hasSuffix(": import flags first (prefs flag import FILE)\n"),
            "\(none)")
    }

    /// Issue 38: a CI script gating a deploy on a kill switch. `if prefs flag enabled KEY` reads a
    /// typo as "not frozen" (any non-zero status is the else branch), so the guide's idiom tells
    /// 1 (the flag is off) from everything else and stops the deploy on a missing flag.
    @Test func aCIScriptStopsTheDeployOnAMissingFlag() throws {
        let box = try Self.store()
        let naive = box.root + "/naive.sh"
        try """
        #!/bin/bash
        set -eu
        if prefs flag enabled "$1"; then
          echo "deploys are frozen"; exit 0
        fi
        echo "deploying"
        """.write(toFile: naive, atomically: true, encoding: .utf8)
        // The idiom of docs/guide.md's CI section, under `set -e` as CI runners use it.
        let guide = box.root + "/guide.sh"
        try """
        #!/bin/bash
        set -eu
        if prefs flag enabled "$1"; then
          echo "deploys are frozen"; exit 0
        elif [ $? -ne 1 ]; then
          echo "cannot tell whether deploys are frozen: not deploying" >&2; exit 1
        fi
        echo "deploying"
        """.write(toFile: guide, atomically: true, encoding: .utf8)
        // The same with the status kept (docs/flags.md).
        let gated = box.root + "/gated.sh"
        try """
        #!/bin/bash
        set -eu
        frozen=0; prefs flag enabled "$1" || frozen=$?
        case $frozen in
          0) echo "deploys are frozen"; exit 0 ;;
          1) ;;
          *) echo "no answer for $1 (exit $frozen): not deploying" >&2; exit "$frozen" ;;
        esac
        echo "deploying"
        """.write(toFile: gated, atomically: true, encoding: .utf8)
        let binDirectory = URL(fileURLWithPath: Sandbox.binary).deletingLastPathComponent().path
        let environment = box.environment([
            "PREFS_STORE": box.store, "PATH": binDirectory + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"),
        ])
        func script(_ path: String, _ flag: String, strict: String = "1") throws -> RunResult {
            try Sandbox.exec(
                "/bin/bash", [path, flag], stdin: nil, environment: environment.merging(["PREFS_STRICT_FLAGS": strict]) { $1 })
        }
        // The flag is off: every script deploys.
        for path in [naive, guide, gated] {
            let off = try script(path, "deploy-frozen")
            #expect(off.status == 0 && off.stdout == "deploying\n" && off.stderr.isEmpty, "\(path): \(off)")
        }
        // A typo: the naive script deploys anyway (only stderr says why it should not have)…
        let naiveTypo = try script(naive, "deploy-frozn")
        #expect(naiveTypo.status == 0 && naiveTypo.stdout == "deploying\n", "\(naiveTypo)")
        #expect(naiveTypo.stderr == "prefs: flag 'deploy-frozn' not found; did you mean 'deploy-frozen'?\n", "\(naiveTypo)")
        // …the idioms stop, whatever PREFS_STRICT_FLAGS says.
        for strict in ["1", "0"] {
            let stopped = try script(guide, "deploy-frozn", strict: strict)
            #expect(stopped.status == 1 && stopped.stdout.isEmpty, "\(stopped)")
            #expect(
                stopped.stderr
                    == "prefs: flag 'deploy-frozn' not found; did you mean 'deploy-frozen'?\ncannot tell whether deploys are frozen: not deploying\n",
                "\(stopped)")
        }
        for strict in ["1", "0"] {
            let stopped = try script(gated, "deploy-frozn", strict: strict)
            #expect(stopped.status == 2 && stopped.stdout.isEmpty, "\(stopped)")
            #expect(
                stopped.stderr
                    == "prefs: flag 'deploy-frozn' not found; did you mean 'deploy-frozen'?\nno answer for deploy-frozn (exit 2): not deploying\n",
                "\(stopped)")
        }
        // Frozen: every script stops before deploying, exit 0.
        try box.runOK(["set", "switch", "deploy-frozen", "true"])
        for path in [naive, guide, gated] {
            let frozen = try script(path, "deploy-frozen")
            #expect(frozen.status == 0 && frozen.stdout == "deploys are frozen\n" && frozen.stderr.isEmpty, "\(path): \(frozen)")
        }
        // An unreadable store is no answer either: the idiom stops with its status (3).
        try FileManager.default.removeItem(atPath: box.store)
        try "not a database, just text".write(toFile: box.store, atomically: true, encoding: .utf8)
        let unreadable = try script(gated, "deploy-frozen")
        #expect(unreadable.status == 3 && unreadable.stdout.isEmpty, "\(unreadable)")
        let unreadableGuide = try script(guide, "deploy-frozen")
        #expect(unreadableGuide.status == 1 && unreadableGuide.stdout.isEmpty, "\(unreadableGuide)")
    }
}
