import Foundation
import PrefsCore
import Testing

/// Installed, the helpers are one binary: `prefs-serve`, with `prefs-http-get` and
/// `prefs-sync` as symbolic links to it (scripts/install, scripts/package). Here a directory
/// laid out so, with a copy of `prefs` (which looks for its helpers next to itself).
@Suite("helpers as one binary", .timeLimit(.minutes(5)), .ownThreads)
struct HelperLinksTests {
    /// `prefs` (a copy) and the built prefs-serve under the three helpers' names.
    static func installed(in box: Sandbox) throws -> String {
        let bin = box.root + "/bin"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Sandbox.binary, toPath: bin + "/prefs")
        try FileManager.default.createSymbolicLink(atPath: bin + "/prefs-serve", withDestinationPath: VersionTests.helper("prefs-serve"))
        for name in ["prefs-http-get", "prefs-sync"] {
            try FileManager.default.createSymbolicLink(atPath: bin + "/" + name, withDestinationPath: "prefs-serve")
        }
        return bin
    }

    @Test(arguments: ["prefs-http-get", "prefs-sync", "prefs-serve"])
    func eachNameIsItsOwnProgram(_ name: String) throws {
        let box = try Sandbox()
        let bin = try Self.installed(in: box)
        let version = try Sandbox.exec(bin + "/" + name, ["--version"], stdin: nil, environment: box.environment())
        #expect(version.status == 0 && version.stdout == "\(name) \(PrefsVersion.current)\n" && version.stderr.isEmpty, "\(version)")
    }

    @Test func refreshAndSyncRunThroughTheLinks() throws {
        let box = try Sandbox()
        let bin = try Self.installed(in: box)
        let server = try TestHTTPServer { _ in .respond(status: 200, headers: [:], body: "{\"banner\":\"hello\"}") }
        let refresh = try Sandbox.exec(
            bin + "/prefs", ["--store", box.store, "refresh", "dynamic", "--from", server.url], stdin: nil, environment: box.environment())
        #expect(refresh.status == 0 && refresh.stderr.isEmpty, "\(refresh)")
        #expect(try box.runOK(["get", "dynamic", "banner"]).stdout == "hello\n")
        #expect(server.received.count == 1)
        // prefs-sync's own answer to an argument: the link ran the sync helper, not the server.
        let sync = try Sandbox.exec(bin + "/prefs-sync", ["--bogus"], stdin: nil, environment: box.environment())
        #expect(
            sync.status == 2
                && sync.stderr == "prefs: unknown argument --bogus (prefs-sync is run by 'prefs sync'; see 'prefs sync --help')\n",
            "\(sync)")
    }
}
