import Foundation
import Testing

/// Small refresh failures named for what they are (issue 28).
@Suite("refresh papercuts", .timeLimit(.minutes(5)))
struct RefreshPapercutTests {
    @Test func aTwoMegabyteHeaderIsNamedNotOutOfMemory() throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["set", "dynamic", "banner", "good"])
        let server = try TestHTTPServer { _ in
            .respond(status: 200, headers: ["X-Padding": String(repeating: "a", count: 2 << 20)], body: "{\"banner\":\"evil\"}")
        }
        defer { server.stop() }
        let result = try box.runFailing(["refresh", "dynamic", "--from", server.url], status: 7)
        #expect(result.status == 7, "\(result)")
        #expect(result.stderr.contains("a response header is too large"), "\(result)")
        #expect(!result.stderr.contains("Out of memory"), "\(result)")
        #expect(try box.runOK(["get", "dynamic", "banner"]).stdout == "good\n", "local data kept")
    }
}
