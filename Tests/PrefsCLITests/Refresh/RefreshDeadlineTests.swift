import Foundation
import PrefsCore
import Testing

/// `refresh --timeout` covers the whole run: the fetch, checking the document and replacing
/// the domain.
@Suite("prefs refresh deadline", .timeLimit(.minutes(5)))
struct RefreshDeadlineTests {
    /// Every value passes an expensive pattern (well within its step budget), but checking
    /// them all takes far longer than the timeout: the refresh ends at the deadline with
    /// exit 7, and the domain keeps its copy.
    @Test func slowChecksEndAtTheTimeout() throws {
        let box = try Sandbox(inProcess: true)
        let schema = #"{"dynamic": {"v*": {"type": "string", "pattern": "^(?:.{0,1000})*$"}, "banner": {"type": "string"}}}"#
        let loaded = try box.runOK(["schema", "load", "-"], stdin: schema)
        #expect(loaded.status == 0, "\(loaded)")
        let good = try TestHTTPServer { _ in .respond(status: 200, headers: [:], body: #"{"banner":"good"}"#) }
        try box.runOK(["refresh", "dynamic", "--from", good.url])
        good.stop()
        let value = String(repeating: "x", count: 2_000)
        let document = JSONValue.object((0..<100).map { JSONValue.Member("v\($0)", .string(value)) }).compactText
        let server = try TestHTTPServer { _ in .respond(status: 200, headers: [:], body: document) }
        defer { server.stop() }
        let started = Date()
        let result = try box.runFailing(["refresh", "dynamic", "--from", server.url, "--timeout", "2s"], status: 7)
        let elapsed = Date().timeIntervalSince(started)
        expectFailure(result, 7, contains: "failed: timed out after 2s while checking the document; using the copy from")
        #expect(elapsed < 8, "ended after \(elapsed) s; the deadline was 2 s")
        #expect(try box.runOK(["list", "dynamic"]).stdout == "banner\t\"good\"\n", "the copy is kept")
        #expect(try box.runOK(["refresh", "--status"]).stdout.contains("timed out after 2s while checking the document"))
        // One value of the same document is checked well within the budget: the time was the
        // document's size, not a refused value.
        try box.runOK(["set", "dynamic", "v0", value])
    }
}
