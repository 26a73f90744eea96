import Foundation
import Testing

/// `--opt=` is an empty value in both parsers, then checked like any value (issue 28).
@Suite("empty option values", .timeLimit(.minutes(5)))
struct EmptyOptionValueTests {
    @Test(arguments: [false, true]) func anEmptyStoreIsAUsageErrorAndRemovesNothing(fullParse: Bool) throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["set", "user", "k1", "1"])
        let before = try box.storeSnapshot()
        let env = fullParse ? ["PREFS_FULL_PARSE": "1", "PREFS_STORE": box.store] : ["PREFS_STORE": box.store]
        for arguments in [["--store=", "rm", "user", "k1", "k2"], ["--store", "", "rm", "user", "k1"], ["rm", "--store=", "user", "k1"]] {
            let result = try box.runFailing(arguments, status: 2, store: false, environment: env)
            #expect(
                result.status == 2 && result.stdout.isEmpty && result.stderr == "prefs: --store: the path is empty\n",
                "\(arguments): \(result)")
        }
        #expect(try box.storeSnapshot() == before)
    }

    @Test(arguments: [false, true]) func anEmptyActorIsAUsageErrorAndWritesNothing(fullParse: Bool) throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["set", "user", "k1", "1"])
        let before = try box.storeSnapshot()
        let result = try box.runFailing(
            ["set", "--actor=", "user", "a", "b"], status: 2, environment: fullParse ? ["PREFS_FULL_PARSE": "1"] : [:])
        #expect(result.status == 2 && result.stderr == "prefs: --actor: the name is empty\n", "\(result)")
        #expect(try box.storeSnapshot() == before)
        #expect(try box.runOK(["domains"]).stdout == "default\ndynamic\nmemory\nswitch\nuser\n")
    }

    @Test(arguments: [false, true]) func anEmptyAttachedValueIsTheEmptyString(fullParse: Bool) throws {
        let box = try Sandbox(inProcess: true)
        let env = fullParse ? ["PREFS_FULL_PARSE": "1"] : [:]
        let answer = try box.runOK(["get", "user", "missing", "--default="], environment: env)
        #expect(answer.status == 0 && answer.stdout == "\n", "\(answer)")
        // After `--`, `--x=` is a value like any other.
        try box.runOK(["set", "user", "note", "--string", "--", "--x="], environment: env)
        #expect(try box.runOK(["get", "user", "note"]).stdout == "--x=\n")
    }
}
