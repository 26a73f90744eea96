import Foundation
import PrefsTestSupport
import Testing

/// A misspelled flag is never silent; `flag eval` infers the type and needs no default (issue 30).
@Suite("flag typos and inferred types")
struct FlagTypoTests {
    static func store() throws -> Sandbox {
        let box = try Sandbox()
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

    @Test func enabledOfAMissingFlagIsNoAndNamesTheNearest() throws {
        let box = try Self.store()
        let result = try box.runFailing(["flag", "enabled", "new-chekout"], status: 1)
        #expect(result.status == 1 && result.stdout.isEmpty, "\(result)")
        #expect(result.stderr == "prefs: warning: flag 'new-chekout' not found; did you mean 'new-checkout'?\n", "\(result)")
    }
}
