import Foundation
import Testing

@Suite("prefs refresh")
struct RefreshTests {
    @Test func twoHundredThenNotModified() throws {
        let box = try Sandbox()
        let server = try TestHTTPServer { request in
            if request.headers["if-none-match"] == "\"v1\"" { return .respond(status: 304, headers: [:], body: "") }
            return .respond(status: 200, headers: ["ETag": "\"v1\""], body: "{\"banner\":\"hello\",\"n\":1}")
        }
        let first = try box.run(["refresh", "dynamic", "--from", server.url + "/config.json"])
        #expect(first.status == 0 && first.stderr.isEmpty, "\(first)")
        #expect(try box.run(["list", "dynamic"]).stdout == "banner\t\"hello\"\nn\t1\n")
        let second = try box.run(["refresh", "dynamic"])
        #expect(second.status == 0, "the source is remembered; 304 is a success")
        #expect(server.received.count == 2 && server.received[1].headers["if-none-match"] == "\"v1\"")
        #expect(try box.run(["log", "dynamic"]).stdout.split(separator: "\n").count == 2, "304 changed nothing")
        #expect(try box.run(["log", "dynamic"]).stdout.contains("\trefresh\tdynamic\tbanner\t"))
        let status = try box.run(["refresh", "--status", "--json"]).stdout
        #expect(status.contains("\"domain\":\"dynamic\"") && status.contains("/config.json") && status.contains("\"lastFailure\":null"))
        let fresh = try box.run(["refresh", "dynamic", "--max-age", "10m"])
        #expect(fresh.status == 0 && server.received.count == 2, "a fresh copy is not fetched again")
    }

    @Test func replacesTheDomainExactly() throws {
        let box = try Sandbox()
        try box.run(["set", "dynamic", "stale", "1"])
        let server = try TestHTTPServer { _ in .respond(status: 200, headers: [:], body: "{\"a\":1}") }
        #expect(try box.run(["refresh", "dynamic", "--from", server.url]).status == 0)
        #expect(try box.run(["list", "dynamic"]).stdout == "a\t1\n")
    }

    func expectKeptCopy(_ box: Sandbox, _ result: RunResult, cause: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        expectFailure(result, 7, contains: cause, sourceLocation: sourceLocation)
        #expect(result.stderr.contains("using the copy from"), "\(result)", sourceLocation: sourceLocation)
        #expect(try box.run(["get", "dynamic", "banner"]).stdout == "good\n", sourceLocation: sourceLocation)
        #expect(try box.run(["list", "dynamic"]).stdout == "banner\t\"good\"\n", sourceLocation: sourceLocation)
    }

    func withGoodCopy() throws -> Sandbox {
        let box = try Sandbox()
        let server = try TestHTTPServer { _ in .respond(status: 200, headers: [:], body: "{\"banner\":\"good\"}") }
        #expect(try box.run(["refresh", "dynamic", "--from", server.url]).status == 0)
        server.stop()
        return box
    }

    @Test func serverErrorKeepsTheCopy() throws {
        let box = try withGoodCopy()
        let server = try TestHTTPServer { _ in .respond(status: 500, headers: [:], body: "oops") }
        try expectKeptCopy(box, try box.run(["refresh", "dynamic", "--from", server.url]), cause: "HTTP status 500")
        let status = try box.run(["refresh", "--status"]).stdout
        #expect(status.contains("HTTP status 500"))
    }

    @Test func aServerThatNeverAnswersTimesOut() throws {
        let box = try withGoodCopy()
        let server = try TestHTTPServer { _ in .hang }
        let started = Date()
        try expectKeptCopy(box, try box.run(["refresh", "dynamic", "--from", server.url, "--timeout", "1s"]), cause: "timed out")
        #expect(Date().timeIntervalSince(started) < 8)
        server.stop()
    }

    @Test func connectionRefusedKeepsTheCopy() throws {
        let box = try withGoodCopy()
        let server = try TestHTTPServer { _ in .respond(status: 200, headers: [:], body: "{}") }
        let url = server.url
        server.stop()
        try expectKeptCopy(box, try box.run(["refresh", "dynamic", "--from", url]), cause: "connection refused")
    }

    @Test func invalidBodiesKeepTheCopy() throws {
        let box = try withGoodCopy()
        let notJSON = try TestHTTPServer { _ in .respond(status: 200, headers: [:], body: "<html>") }
        try expectKeptCopy(box, try box.run(["refresh", "dynamic", "--from", notJSON.url]), cause: "invalid JSON")
        let array = try TestHTTPServer { _ in .respond(status: 200, headers: [:], body: "[1,2]") }
        try expectKeptCopy(box, try box.run(["refresh", "dynamic", "--from", array.url]), cause: "expected an object")
        #expect(
            try box.run(["schema", "load", "-"], stdin: "{\"dynamic\":{\"banner\":{\"type\":\"string\",\"maxLength\":1}}}").status == 6)
        #expect(
            try box.run(["schema", "load", "-"], stdin: "{\"dynamic\":{\"banner\":{\"type\":\"string\",\"pattern\":\"^g\"}}}").status == 0)
        let breaksSchema = try TestHTTPServer { _ in .respond(status: 200, headers: [:], body: "{\"banner\":\"bad\"}") }
        try expectKeptCopy(box, try box.run(["refresh", "dynamic", "--from", breaksSchema.url]), cause: "pattern")
    }

    @Test func aFlagdDocumentForSwitch() throws {
        let box = try Sandbox()
        let document = "{\"flags\":{\"beta\":{\"state\":\"ENABLED\",\"variants\":{\"on\":true,\"off\":false},\"defaultVariant\":\"on\"}}}"
        let server = try TestHTTPServer { _ in .respond(status: 200, headers: [:], body: document) }
        #expect(try box.run(["refresh", "switch", "--from", server.url]).status == 0)
        #expect(try box.run(["flag", "enabled", "beta"]).status == 0)
        let bad = try TestHTTPServer { _ in
            .respond(status: 200, headers: [:], body: "{\"flags\":{\"x\":{\"state\":\"ON\",\"variants\":{\"a\":1}}}}")
        }
        expectFailure(try box.run(["refresh", "switch", "--from", bad.url]), 7, contains: "$.flags.x.state")
        #expect(try box.run(["flag", "enabled", "beta"]).status == 0, "the last good copy is still served")
    }

    @Test func aFileSourceAndHeaders() throws {
        let box = try Sandbox()
        let file = box.root + "/remote.json"
        try Data("{\"k\":\"from file\"}".utf8).write(to: URL(fileURLWithPath: file))
        #expect(try box.run(["refresh", "dynamic", "--from", file]).status == 0)
        #expect(try box.run(["get", "dynamic", "k"]).stdout == "from file\n")
        try FileManager.default.removeItem(atPath: file)
        expectFailure(try box.run(["refresh", "dynamic"]), 7, contains: "cannot read")
        #expect(try box.run(["get", "dynamic", "k"]).stdout == "from file\n")
        let server = try TestHTTPServer { request in
            .respond(status: request.headers["authorization"] == "Bearer t0k" ? 200 : 401, headers: [:], body: "{\"auth\":true}")
        }
        #expect(try box.run(["refresh", "user", "--from", server.url, "--header", "Authorization: Bearer t0k"]).status == 0)
        #expect(try box.run(["refresh", "user"]).status == 0, "headers are remembered with the source")
        expectFailure(try box.run(["refresh", "nosource"]), 2, contains: "no source")
        expectFailure(try box.run(["refresh", "memory", "--from", file]), 2)
    }
}

@Suite("prefs refresh review cases")
struct RefreshReviewTests {
    @Test func redirectsToAnotherOriginAreNotFollowed() throws {
        let box = try Sandbox()
        let other = try TestHTTPServer { _ in .respond(status: 200, headers: [:], body: "{\"stolen\":true}") }
        let first = try TestHTTPServer { _ in .respond(status: 302, headers: ["Location": "http://localhost:\(other.port)/x"], body: "") }
        let result = try box.run(["refresh", "dynamic", "--from", first.url, "--header", "Authorization: Bearer SECRET"])
        expectFailure(result, 7, contains: "HTTP status 302")
        #expect(other.received.isEmpty, "the credentials never reach another origin")
    }

    @Test func aDrippingServerHitsTheWholeRequestDeadline() throws {
        let box = try Sandbox()
        let server = try TestHTTPServer { _ in .drip }
        let started = Date()
        expectFailure(try box.run(["refresh", "dynamic", "--from", server.url, "--timeout", "1s"]), 7, contains: "timed out")
        #expect(Date().timeIntervalSince(started) < 6)
        server.stop()
    }

    @Test func aRefreshReplacesLocalExpiryToo() throws {
        let box = try Sandbox()
        try box.run(["set", "dynamic", "banner", "hello", "--ttl", "1s"])
        let server = try TestHTTPServer { _ in .respond(status: 200, headers: [:], body: "{\"banner\":\"hello\"}") }
        #expect(try box.run(["refresh", "dynamic", "--from", server.url]).status == 0)
        Thread.sleep(forTimeInterval: 1.2)
        #expect(try box.run(["get", "dynamic", "banner"]).stdout == "hello\n", "the server's copy has no expiry")
    }

    @Test func relativeFilesAreRememberedAbsolute() throws {
        let box = try Sandbox()
        try FileManager.default.createDirectory(atPath: box.root + "/d1", withIntermediateDirectories: true)
        try Data("{\"k\":\"one\"}".utf8).write(to: URL(fileURLWithPath: box.root + "/d1/cfg.json"))
        let first = try Sandbox.exec(
            "/bin/sh",
            ["-c", "cd \"$2\" && exec \"$0\" --store \"$1\" refresh dynamic --from cfg.json", Sandbox.binary, box.store, box.root + "/d1"],
            stdin: nil, environment: box.environment())
        #expect(first.status == 0, "\(first)")
        #expect(try box.run(["refresh", "--status"]).stdout.contains(box.root + "/d1/cfg.json"))
    }

    @Test func notModifiedWithoutACopyIsAFailureAndMaxAgeCountsFromTheLastSuccess() throws {
        let box = try Sandbox()
        let always304 = try TestHTTPServer { _ in .respond(status: 304, headers: [:], body: "") }
        expectFailure(try box.run(["refresh", "dynamic", "--from", always304.url]), 7, contains: "without a copy")
        let server = try TestHTTPServer { request in
            request.headers["if-none-match"] == "\"e\""
                ? .respond(status: 304, headers: [:], body: "") : .respond(status: 200, headers: ["ETag": "\"e\""], body: "{\"a\":1}")
        }
        #expect(try box.run(["refresh", "user", "--from", server.url]).status == 0)
        Thread.sleep(forTimeInterval: 1.2)
        #expect(try box.run(["refresh", "user", "--max-age", "1s"]).status == 0)
        #expect(server.received.count == 2, "older than max-age: fetched (304)")
        #expect(try box.run(["refresh", "user", "--max-age", "1s"]).status == 0)
        #expect(server.received.count == 2, "the 304 confirmed the copy: fresh again")
    }
}
