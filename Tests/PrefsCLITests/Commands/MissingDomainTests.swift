import Foundation
import Testing

/// `export` and `list` of a domain that does not exist are exit 1 (not found) with the
/// nearest domain's name on stderr, never an empty answer a script takes for "no keys"
/// (issue 30, item 3); `--allow-missing` gives the empty answer.
@Suite("missing domains", .timeLimit(.minutes(5)))
struct MissingDomainTests {
    static func store() throws -> Sandbox {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["set", "build", "target", "release"])
        try box.runOK(["set", "user", "theme", "dark"])
        return box
    }

    @Test func exportOfAMissingDomainIsNotFoundWithTheNearestName() throws {
        let box = try Self.store()
        for arguments in [
            ["export", "buidl", "--format", "env"], ["export", "buidl"], ["export", "user", "buidl"], ["export", "--effective", "buidl"],
        ] {
            let result = try box.run(arguments, expecting: 1)
            #expect(result.status == 1 && result.stdout.isEmpty, "\(arguments): \(result)")
            #expect(result.stderr == "prefs: domain 'buidl' not found; did you mean 'build'?\n", "\(arguments): \(result)")
        }
        let far = try box.run(["export", "nothing-like-it", "--format", "dotenv"], expecting: 1)
        #expect(far.status == 1 && far.stdout.isEmpty && far.stderr == "prefs: domain 'nothing-like-it' not found\n", "\(far)")
        // -o FILE: nothing is written either.
        let file = box.root + "/out.env"
        #expect(try box.run(["export", "buidl", "--format", "env", "-o", file], expecting: 1).status == 1)
        #expect(!FileManager.default.fileExists(atPath: file))
    }

    @Test func allowMissingAnswersAsBefore() throws {
        let box = try Self.store()
        let env = try box.run(["export", "buidl", "--format", "env", "--allow-missing"], expecting: 0)
        #expect(env.status == 0 && env.stdout.isEmpty && env.stderr.isEmpty, "\(env)")
        let json = try box.run(["export", "user", "buidl", "--allow-missing"], expecting: 0)
        #expect(json.status == 0 && json.stdout == #"{"buidl":{},"user":{"theme":"dark"}}"# + "\n" && json.stderr.isEmpty, "\(json)")
        let list = try box.run(["list", "buidl", "--allow-missing"], expecting: 0)
        #expect(list.status == 0 && list.stdout.isEmpty && list.stderr.isEmpty, "\(list)")
        let listJSON = try box.run(["list", "buidl", "--json", "--allow-missing"], expecting: 0)
        #expect(listJSON.status == 0 && listJSON.stdout == "{}\n", "\(listJSON)")
    }

    @Test func listOfAMissingDomainIsNotFound() throws {
        let box = try Self.store()
        for arguments in [["list", "buidl"], ["list", "buidl", "--json"], ["list", "buidl", "--keys-only"]] {
            let result = try box.run(arguments, expecting: 1)
            #expect(result.status == 1 && result.stdout.isEmpty, "\(arguments): \(result)")
            #expect(result.stderr == "prefs: domain 'buidl' not found; did you mean 'build'?\n", "\(arguments): \(result)")
        }
    }

    /// Built-in domains always exist; a custom domain exists once written to (also after its
    /// last key is removed), or when an override or the schema names it.
    @Test func domainsThatExistAnswerEvenWhenEmpty() throws {
        let box = try Self.store()
        for domain in ["default", "dynamic", "switch", "memory"] {
            let list = try box.run(["list", domain], expecting: 0)
            #expect(list.status == 0 && list.stdout.isEmpty && list.stderr.isEmpty, "\(domain): \(list)")
        }
        let empty = try box.run(["export", "dynamic"], expecting: 0)
        #expect(empty.status == 0 && empty.stdout == #"{"dynamic":{}}"# + "\n", "\(empty)")
        try box.runOK(["rm", "build", "target"])
        let emptied = try box.run(["export", "build", "--format", "env"], expecting: 0)
        #expect(emptied.status == 0 && emptied.stdout.isEmpty && emptied.stderr.isEmpty, "\(emptied)")
        let overridden = try box.run(["--override", "ci:mode=fast", "export", "ci", "--effective"], expecting: 0)
        #expect(overridden.status == 0 && overridden.stdout == #"{"ci":{"mode":"fast"}}"# + "\n", "\(overridden)")
        let schema = box.root + "/schema.json"
        try #"{"deploy": {"region": {"type": "string", "default": "eu"}}}"#.write(toFile: schema, atomically: true, encoding: .utf8)
        try box.runOK(["schema", "load", schema])
        let declared = try box.run(["list", "deploy"], expecting: 0)
        #expect(declared.status == 0 && declared.stdout == "region\t\"eu\"\n", "\(declared)")
    }
}
