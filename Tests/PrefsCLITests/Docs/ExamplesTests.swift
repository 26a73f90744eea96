import Foundation
import PrefsTestSupport
import Testing

/// The files in `examples/` work with the commands the README shows them with.
@Suite("examples")
struct ExamplesTests {
    static let examples = repositoryRoot + "/examples"

    static func read(_ name: String) throws -> String {
        try String(contentsOfFile: examples + "/" + name, encoding: .utf8)
    }

    @Test func everyExampleFileRunsAsDocumented() throws {
        let box = try Sandbox()
        let motd = try box.run(["set", "user", "motd", "-"], stdin: try Self.read("motd.txt"))
        #expect(motd.status == 0, "\(motd)")
        #expect(try box.run(["get", "user", "motd"]).stdout == (try Self.read("motd.txt")))
        let apply = try box.run(["apply", examples("ops.json")])
        #expect(apply.status == 0, "\(apply)")
        let batch = try box.run(["batch"], stdin: try Self.read("changes.txt"))
        #expect(batch.status == 0, "\(batch)")
        #expect(try box.run(["get", "user", "greeting"]).stdout == "hello world\n")
        #expect(try box.run(["get", "user", "launches"]).stdout == "6\n")
        let schema = try box.run(["schema", "load", examples("schema.json")])
        #expect(schema.status == 0, "\(schema)")
        let flags = try box.run(["flag", "import", examples("flags.json")])
        #expect(flags.status == 0, "\(flags)")
        let flag = try box.run([
            "flag", "eval", "new-checkout", "--type", "boolean", "--default", "false", "--targeting-key", "user-1", "--json",
        ])
        #expect(flag.status == 0 && flag.stdout.contains("\"reason\":\"TARGETING_MATCH\""), "\(flag)")
        let watch = try Running.watch(["--store", box.store, "watch", "user", "--once", "--", examples("notify.sh")], box: box)
        #expect(try box.run(["rm", "user", "theme"]).status == 0)
        let watched = watch.0.finish()
        #expect(watched.status == 0 && watched.stdout.hasSuffix(" rm user/theme = (removed)\n"), "\(watched)")
    }

    func examples(_ name: String) -> String { Self.examples + "/" + name }
}
