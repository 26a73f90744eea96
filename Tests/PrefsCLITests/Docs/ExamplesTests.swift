import Foundation
import PrefsTestSupport
import Testing

/// The files in `examples/` work with the commands the README shows them with.
@Suite("examples", .timeLimit(.minutes(5)), .ownThreads)
struct ExamplesTests {
    static let examples = repositoryRoot + "/examples"

    static func read(_ name: String) throws -> String {
        try String(contentsOfFile: examples + "/" + name, encoding: .utf8)
    }

    @Test func everyExampleFileRunsAsDocumented() throws {
        let box = try Sandbox()
        let motd = try box.runOK(["set", "user", "motd", "-"], stdin: try Self.read("motd.txt"))
        #expect(motd.status == 0, "\(motd)")
        #expect(try box.runOK(["get", "user", "motd"]).stdout == (try Self.read("motd.txt")))
        let apply = try box.runOK(["apply", examples("ops.json")])
        #expect(apply.status == 0, "\(apply)")
        let batch = try box.runOK(["batch"], stdin: try Self.read("changes.txt"))
        #expect(batch.status == 0, "\(batch)")
        #expect(try box.runOK(["get", "user", "greeting"]).stdout == "hello world\n")
        #expect(try box.runOK(["get", "user", "launches"]).stdout == "6\n")
        let schema = try box.runOK(["schema", "load", examples("schema.json")])
        #expect(schema.status == 0, "\(schema)")
        let flags = try box.runOK(["flag", "import", examples("flags.json")])
        #expect(flags.status == 0, "\(flags)")
        let flag = try box.runOK([
            "flag", "eval", "new-checkout", "--type", "boolean", "--default", "false", "--targeting-key", "user-1", "--json",
        ])
        #expect(flag.status == 0 && flag.stdout.contains("\"reason\":\"TARGETING_MATCH\""), "\(flag)")
        let watch = try Running.watch(["--store", box.store, "watch", "user", "--once", "--", examples("notify.sh")], box: box)
        try box.runOK(["rm", "user", "theme"])
        let watched = watch.0.finish()
        #expect(watched.status == 0 && watched.stdout.hasSuffix(" rm user/theme = (removed)\n"), "\(watched)")
    }

    func examples(_ name: String) -> String { Self.examples + "/" + name }
}
