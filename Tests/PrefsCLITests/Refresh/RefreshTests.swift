import Foundation
import PrefsCore
import PrefsTestSupport
import Testing

@Suite("prefs refresh", .timeLimit(.minutes(5)))
struct RefreshTests {
    @Test func twoHundredThenNotModified() throws {
        let box = try Sandbox(inProcess: true)
        let server = try TestHTTPServer { request in
            if request.headers["if-none-match"] == "\"v1\"" { return .respond(status: 304, headers: [:], body: "") }
            return .respond(status: 200, headers: ["ETag": "\"v1\""], body: "{\"banner\":\"hello\",\"n\":1}")
        }
        let first = try box.runOK(["refresh", "dynamic", "--from", server.url + "/config.json"])
        #expect(first.status == 0 && first.stderr.isEmpty, "\(first)")
        #expect(try box.runOK(["list", "dynamic"]).stdout == "banner\t\"hello\"\nn\t1\n")
        let second = try box.runOK(["refresh", "dynamic"])
        #expect(second.status == 0, "the source is remembered; 304 is a success")
        #expect(server.received.count == 2 && server.received[1].headers["if-none-match"] == "\"v1\"")
        #expect(try box.runOK(["log", "dynamic"]).stdout.split(separator: "\n").count == 2, "304 changed nothing")
        #expect(try box.runOK(["log", "dynamic"]).stdout.contains("\trefresh\tdynamic\tbanner\t"))
        let status = try box.runOK(["refresh", "--status", "--json"]).stdout
        #expect(status.contains("\"domain\":\"dynamic\"") && status.contains("/config.json") && status.contains("\"lastFailure\":null"))
        let fresh = try box.runOK(["refresh", "dynamic", "--max-age", "10m"])
        #expect(fresh.status == 0 && server.received.count == 2, "a fresh copy is not fetched again")
    }

    @Test func replacesTheDomainExactly() throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["set", "dynamic", "stale", "1"])
        let server = try TestHTTPServer { _ in .respond(status: 200, headers: [:], body: "{\"a\":1}") }
        try box.runOK(["refresh", "dynamic", "--from", server.url])
        #expect(try box.runOK(["list", "dynamic"]).stdout == "a\t1\n")
    }

    func expectKeptCopy(_ box: Sandbox, _ result: RunResult, cause: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        expectFailure(result, 7, contains: cause, sourceLocation: sourceLocation)
        #expect(result.stderr.contains("using the copy from"), "\(result)", sourceLocation: sourceLocation)
        #expect(try box.runOK(["get", "dynamic", "banner"]).stdout == "good\n", sourceLocation: sourceLocation)
        #expect(try box.runOK(["list", "dynamic"]).stdout == "banner\t\"good\"\n", sourceLocation: sourceLocation)
    }

    func withGoodCopy() throws -> Sandbox {
        let box = try Sandbox(inProcess: true)
        let server = try TestHTTPServer { _ in .respond(status: 200, headers: [:], body: "{\"banner\":\"good\"}") }
        try box.runOK(["refresh", "dynamic", "--from", server.url])
        server.stop()
        return box
    }

    @Test func serverErrorKeepsTheCopy() throws {
        let box = try withGoodCopy()
        let server = try TestHTTPServer { _ in .respond(status: 500, headers: [:], body: "oops") }
        try expectKeptCopy(box, try box.runFailing(["refresh", "dynamic", "--from", server.url], status: 7), cause: "HTTP status 500")
        let status = try box.runOK(["refresh", "--status"]).stdout
        #expect(status.contains("HTTP status 500"))
    }

    @Test func aServerThatNeverAnswersTimesOut() throws {
        let box = try withGoodCopy()
        let server = try TestHTTPServer { _ in .hang }
        let started = Date()
        try expectKeptCopy(
            box, try box.runFailing(["refresh", "dynamic", "--from", server.url, "--timeout", "1s"], status: 7), cause: "timed out")
        #expect(Date().timeIntervalSince(started) < 8)
        server.stop()
    }

    @Test func connectionRefusedKeepsTheCopy() throws {
        let box = try withGoodCopy()
        let server = try TestHTTPServer { _ in .respond(status: 200, headers: [:], body: "{}") }
        let url = server.url
        server.stop()
        try expectKeptCopy(box, try box.runFailing(["refresh", "dynamic", "--from", url], status: 7), cause: "connection refused")
    }

    @Test func invalidBodiesKeepTheCopy() throws {
        let box = try withGoodCopy()
        let notJSON = try TestHTTPServer { _ in .respond(status: 200, headers: [:], body: "<html>") }
        try expectKeptCopy(box, try box.runFailing(["refresh", "dynamic", "--from", notJSON.url], status: 7), cause: "invalid JSON")
        let array = try TestHTTPServer { _ in .respond(status: 200, headers: [:], body: "[1,2]") }
        try expectKeptCopy(box, try box.runFailing(["refresh", "dynamic", "--from", array.url], status: 7), cause: "expected an object")
        #expect(
            try box.runFailing(
                ["schema", "load", "-"], status: 6, stdin: "{\"dynamic\":{\"banner\":{\"type\":\"string\",\"maxLength\":1}}}"
            ).status == 6)
        #expect(
            try box.runOK(["schema", "load", "-"], stdin: "{\"dynamic\":{\"banner\":{\"type\":\"string\",\"pattern\":\"^g\"}}}").status == 0
        )
        let breaksSchema = try TestHTTPServer { _ in .respond(status: 200, headers: [:], body: "{\"banner\":\"bad\"}") }
        try expectKeptCopy(box, try box.runFailing(["refresh", "dynamic", "--from", breaksSchema.url], status: 7), cause: "pattern")
    }

    @Test func aFlagdDocumentForSwitch() throws {
        let box = try Sandbox(inProcess: true)
        let document = "{\"flags\":{\"beta\":{\"state\":\"ENABLED\",\"variants\":{\"on\":true,\"off\":false},\"defaultVariant\":\"on\"}}}"
        let server = try TestHTTPServer { _ in .respond(status: 200, headers: [:], body: document) }
        try box.runOK(["refresh", "switch", "--from", server.url])
        try box.runOK(["flag", "enabled", "beta"])
        let bad = try TestHTTPServer { _ in
            .respond(status: 200, headers: [:], body: "{\"flags\":{\"x\":{\"state\":\"ON\",\"variants\":{\"a\":1}}}}")
        }
        expectFailure(try box.runFailing(["refresh", "switch", "--from", bad.url], status: 7), 7, contains: "$.flags.x.state")
        #expect(try box.runOK(["flag", "enabled", "beta"]).status == 0, "the last good copy is still served")
    }

    @Test func aFileSourceAndHeaders() throws {
        let box = try Sandbox(inProcess: true)
        let file = box.root + "/remote.json"
        try Data("{\"k\":\"from file\"}".utf8).write(to: URL(fileURLWithPath: file))
        try box.runOK(["refresh", "dynamic", "--from", file])
        #expect(try box.runOK(["get", "dynamic", "k"]).stdout == "from file\n")
        try FileManager.default.removeItem(atPath: file)
        expectFailure(try box.runFailing(["refresh", "dynamic"], status: 7), 7, contains: "cannot read")
        #expect(try box.runOK(["get", "dynamic", "k"]).stdout == "from file\n")
        let server = try TestHTTPServer { request in
            .respond(status: request.headers["authorization"] == "Bearer t0k" ? 200 : 401, headers: [:], body: "{\"auth\":true}")
        }
        try box.runOK(["refresh", "user", "--from", server.url, "--header", "Authorization: Bearer t0k"])
        #expect(try box.runOK(["refresh", "user"]).status == 0, "headers are remembered with the source")
        expectFailure(try box.runFailing(["refresh", "nosource"], status: 2), 2, contains: "no source")
        expectFailure(try box.runFailing(["refresh", "memory", "--from", file], status: 2), 2)
    }
}

@Suite("prefs refresh review cases", .timeLimit(.minutes(5)), .ownThreads)
struct RefreshReviewTests {
    @Test func redirectsToAnotherOriginAreNotFollowed() throws {
        let box = try Sandbox(inProcess: true)
        let other = try TestHTTPServer { _ in .respond(status: 200, headers: [:], body: "{\"stolen\":true}") }
        let first = try TestHTTPServer { _ in .respond(status: 302, headers: ["Location": "http://localhost:\(other.port)/x"], body: "") }
        let result = try box.runFailing(["refresh", "dynamic", "--from", first.url, "--header", "Authorization: Bearer SECRET"], status: 7)
        expectFailure(result, 7, contains: "HTTP status 302")
        #expect(other.received.isEmpty, "the credentials never reach another origin")
    }

    @Test func aDrippingServerHitsTheWholeRequestDeadline() throws {
        let box = try Sandbox(inProcess: true)
        let server = try TestHTTPServer { _ in .drip }
        let started = Date()
        expectFailure(
            try box.runFailing(["refresh", "dynamic", "--from", server.url, "--timeout", "1s"], status: 7), 7, contains: "timed out")
        #expect(Date().timeIntervalSince(started) < 6)
        server.stop()
    }

    @Test func aRefreshReplacesLocalExpiryToo() throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["set", "dynamic", "banner", "hello", "--ttl", "1s"])
        let server = try TestHTTPServer { _ in .respond(status: 200, headers: [:], body: "{\"banner\":\"hello\"}") }
        try box.runOK(["refresh", "dynamic", "--from", server.url])
        Thread.sleep(forTimeInterval: 1.2)
        #expect(try box.runOK(["get", "dynamic", "banner"]).stdout == "hello\n", "the server's copy has no expiry")
    }

    @Test func relativeFilesAreRememberedAbsolute() throws {
        let box = try Sandbox(inProcess: true)
        try FileManager.default.createDirectory(atPath: box.root + "/d1", withIntermediateDirectories: true)
        try Data("{\"k\":\"one\"}".utf8).write(to: URL(fileURLWithPath: box.root + "/d1/cfg.json"))
        let first = try Sandbox.exec(
            "/bin/sh",
            ["-c", "cd \"$2\" && exec \"$0\" --store \"$1\" refresh dynamic --from cfg.json", Sandbox.binary, box.store, box.root + "/d1"],
            stdin: nil, environment: box.environment())
        #expect(first.status == 0, "\(first)")
        #expect(try box.runOK(["refresh", "--status"]).stdout.contains(box.root + "/d1/cfg.json"))
    }

    @Test func notModifiedWithoutACopyIsAFailureAndMaxAgeCountsFromTheLastSuccess() throws {
        let box = try Sandbox(inProcess: true)
        let always304 = try TestHTTPServer { _ in .respond(status: 304, headers: [:], body: "") }
        expectFailure(try box.runFailing(["refresh", "dynamic", "--from", always304.url], status: 7), 7, contains: "without a copy")
        let server = try TestHTTPServer { request in
            request.headers["if-none-match"] == "\"e\""
                ? .respond(status: 304, headers: [:], body: "") : .respond(status: 200, headers: ["ETag": "\"e\""], body: "{\"a\":1}")
        }
        try box.runOK(["refresh", "user", "--from", server.url])
        Thread.sleep(forTimeInterval: 1.2)
        try box.runOK(["refresh", "user", "--max-age", "1s"])
        #expect(server.received.count == 2, "older than max-age: fetched (304)")
        try box.runOK(["refresh", "user", "--max-age", "1s"])
        #expect(server.received.count == 2, "the 304 confirmed the copy: fresh again")
    }
}

/// Finding 5 of issue 16: a response is read with a running limit, so neither a gzip bomb
/// nor an endless body can take the machine's memory.
@Suite("prefs refresh bounded reading", .timeLimit(.minutes(5)), .ownThreads)
struct RefreshBoundedTests {
    @Test func aGzipBombIsCutAtTheLimit() throws {
        let box = try goodCopy()
        let bomb = gzipBomb(inflatedSize: 1 << 30)
        #expect(bomb.count < 1_200_000, "a small body: \(bomb.count) bytes")
        let server = try TestHTTPServer { _ in .bytes(headers: ["Content-Encoding": "gzip"], body: bomb) }
        let before = try box.runOK(["list", "dynamic"]).stdout
        let started = Date()
        let (result, peak) = try runMeasured(box, ["refresh", "dynamic", "--from", server.url, "--timeout", "60s"])
        print("gzip bomb (\(bomb.count) bytes, 1 GiB inflated): peak RSS \(peak / 1024) MiB, \(Date().timeIntervalSince(started)) s")
        expectFailure(result, 7, contains: "the document is larger than 64 MiB once decoded (Content-Encoding: gzip)")
        #expect(result.stderr.contains("using the copy from"))
        #expect(peak < 400 * 1024, "peak RSS of prefs and its helper: \(peak / 1024) MiB")
        #expect(try box.runOK(["list", "dynamic"]).stdout == before, "the copy is unchanged")
        #expect(try box.runOK(["log", "dynamic"]).stdout.split(separator: "\n").count == 1, "nothing was written")
        server.stop()
    }

    @Test func anEndlessBodyIsCutAtTheLimit() throws {
        let box = try goodCopy()
        let server = try TestHTTPServer { _ in .endless }
        let before = try box.runOK(["list", "dynamic"]).stdout
        let started = Date()
        let (result, peak) = try runMeasured(box, ["refresh", "dynamic", "--from", server.url, "--timeout", "60s"])
        let seconds = Date().timeIntervalSince(started)
        print("endless chunked body: peak RSS \(peak / 1024) MiB, \(seconds) s")
        expectFailure(result, 7, contains: "the document is larger than 64 MiB; stopped reading at the limit")
        #expect(seconds < 30, "stopped by the limit, not the 60 s timeout")
        #expect(peak < 400 * 1024, "peak RSS of prefs and its helper: \(peak / 1024) MiB")
        #expect(try box.runOK(["list", "dynamic"]).stdout == before, "the copy is unchanged")
        server.stop()
    }

    @Test func aContentLengthOverTheLimitIsRefusedBeforeReading() throws {
        let box = try goodCopy()
        let big = [UInt8](repeating: 0x20, count: 65 * 1_048_576)
        let server = try TestHTTPServer { _ in .bytes(headers: [:], body: big) }
        let result = try box.runFailing(["refresh", "dynamic", "--from", server.url], status: 7)
        expectFailure(result, 7, contains: "the document is larger than 64 MiB (Content-Length 68157440)")
        #expect(try box.runOK(["get", "dynamic", "banner"]).stdout == "good\n")
        server.stop()
    }

    func goodCopy() throws -> Sandbox {
        let box = try Sandbox(inProcess: true)
        let server = try TestHTTPServer { _ in .respond(status: 200, headers: [:], body: "{\"banner\":\"good\"}") }
        let first = try box.runOK(["refresh", "dynamic", "--from", server.url])
        #expect(first.status == 0, "\(first)")
        server.stop()
        return box
    }
}

/// Finding 6 of issue 16: secrets stay out of other users' view.
@Suite("prefs refresh secrets", .timeLimit(.minutes(5)), .ownThreads)
struct RefreshSecretTests {
    @Test func theHelperNeverHasTheURLOrHeadersOnItsCommandLine() throws {
        let box = try Sandbox(inProcess: true)
        let server = try TestHTTPServer { _ in .hang }
        let headerFile = box.root + "/token.headers"
        try Data("# the API token\n\nAuthorization: Bearer FILE-SECRET-1\r\nX-Trace: on\n".utf8).write(to: URL(fileURLWithPath: headerFile))
        let process = box.process(
            [
                "refresh", "dynamic", "--from", server.url + "/cfg.json?token=QUERY-SECRET-2", "--header-file", headerFile, "--timeout",
                "20s",
            ], environment: ["PREFS_REFRESH_HEADER_X_API_KEY": "ENV-SECRET-3"])
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // While the server holds the request, read the helper's command line.
        var helperCommandLine: String?
        var prefsCommandLine = ""
        let deadline = Date().addingTimeInterval(20)
        while helperCommandLine == nil && Date() < deadline {
            prefsCommandLine = commandLine(process.processIdentifier) ?? prefsCommandLine
            if !server.received.isEmpty, let helper = children(of: process.processIdentifier).first {
                helperCommandLine = commandLine(helper)
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
        server.stop()  // the held request fails at once
        process.waitUntilExit()
        let seen = try #require(
            helperCommandLine,
            "the helper was found while the request was held: \(server.received.count) requests, \(children(of: process.processIdentifier))"
        )
        #expect(seen.contains("prefs-http-get"), "\(seen)")
        for secret in ["FILE-SECRET-1", "QUERY-SECRET-2", "ENV-SECRET-3", "Bearer", "127.0.0.1"] {
            #expect(!seen.contains(secret), "helper's command line: \(seen)")
        }
        for secret in ["FILE-SECRET-1", "ENV-SECRET-3"] { #expect(!prefsCommandLine.contains(secret), "prefs' command line") }
        let request = try #require(server.received.first)
        #expect(request.headers["authorization"] == "Bearer FILE-SECRET-1" && request.headers["x-trace"] == "on")
        #expect(request.headers["x-api-key"] == "ENV-SECRET-3", "\(request.headers)")
        #expect(request.path == "/cfg.json?token=QUERY-SECRET-2")
        #expect(process.terminationStatus == 7)
    }

    @Test func environmentHeadersAreSentButNeverStored() throws {
        let box = try Sandbox(inProcess: true)
        let server = try TestHTTPServer { request in
            request.headers["authorization"] == "Bearer ENV-ONLY"
                ? .respond(status: 200, headers: [:], body: "{\"a\":1}") : .respond(status: 401, headers: [:], body: "")
        }
        let first = try box.runOK(
            ["refresh", "dynamic", "--from", server.url, "--header", "X-Plain: visible"],
            environment: ["PREFS_REFRESH_HEADER_AUTHORIZATION": "Bearer ENV-ONLY"])
        #expect(first.status == 0, "\(first)")
        let snapshot = try box.storeSnapshot()
        #expect(!snapshot.contains("ENV-ONLY") && snapshot.contains("visible"), "only --header/--header-file headers are remembered")
        expectFailure(try box.runFailing(["refresh", "dynamic"], status: 7), 7, contains: "HTTP status 401")
        #expect(server.received.last?.headers["x-plain"] == "visible", "remembered headers are sent again")
        try box.runOK(["refresh", "dynamic"], environment: ["PREFS_REFRESH_HEADER_AUTHORIZATION": "Bearer ENV-ONLY"])
        server.stop()
    }

    @Test func headerFilesAndAtFilesAreCheckedWithoutEchoingValues() throws {
        let box = try Sandbox(inProcess: true)
        let server = try TestHTTPServer { request in
            .respond(status: request.headers["authorization"] == "Basic QT-AT" ? 200 : 401, headers: [:], body: "{\"a\":1}")
        }
        let good = box.root + "/good"
        try Data("Authorization: Basic QT-AT\n".utf8).write(to: URL(fileURLWithPath: good))
        try box.runOK(["refresh", "dynamic", "--from", server.url, "--header", "@" + good])
        let bad = box.root + "/bad"
        try Data("Authorization Bearer NO-COLON-SECRET\n".utf8).write(to: URL(fileURLWithPath: bad))
        let noColon = try box.runFailing(["refresh", "dynamic", "--from", server.url, "--header-file", bad], status: 2)
        expectFailure(noColon, 2, contains: "\(bad) line 1: expected 'Name: value'")
        #expect(!noColon.stderr.contains("NO-COLON-SECRET"))
        try Data("X-Evil: a\u{1b}b\n".utf8).write(to: URL(fileURLWithPath: bad))
        expectFailure(
            try box.runFailing(["refresh", "dynamic", "--from", server.url, "--header-file", bad], status: 2), 2,
            contains: "control character")
        expectFailure(
            try box.runFailing(["refresh", "dynamic", "--from", server.url, "--header-file", box.root + "/missing"], status: 2), 2,
            contains: "cannot read header file")
        let badEnvironment = try box.runFailing(
            ["refresh", "dynamic", "--from", server.url], status: 2, environment: ["PREFS_REFRESH_HEADER_": "x"])
        expectFailure(badEnvironment, 2, contains: "PREFS_REFRESH_HEADER_: not a valid header name")
        server.stop()
    }

    @Test func aURLWithAPasswordIsRefusedAndNeverShown() throws {
        let box = try Sandbox(inProcess: true)
        let server = try TestHTTPServer { _ in .respond(status: 200, headers: [:], body: "{\"a\":1}") }
        let result = try box.runFailing(["refresh", "dynamic", "--from", "http://alice:PASS-WORD-9@127.0.0.1:\(server.port)/x"], status: 2)
        expectFailure(result, 2, contains: "must not contain a password")
        #expect(!result.stderr.contains("PASS-WORD-9"))
        #expect(server.received.isEmpty, "nothing was fetched")
        #expect(!(try box.storeSnapshot()).contains("PASS-WORD-9"))
        #expect(try box.runOK(["refresh", "--status"]).stdout.isEmpty)
        // A user name alone is fine.
        try box.runOK(["refresh", "dynamic", "--from", "http://alice@127.0.0.1:\(server.port)/x"])
        // A password remembered by an older version is never shown.
        let queue = try DatabaseQueue(path: box.store)
        try queue.write { db in
            try db.execute(sql: "UPDATE refresh_sources SET source = 'https://bob:OLD-SECRET@example.com/x' WHERE domain = 'dynamic'")
        }
        for arguments in [["refresh", "--status"], ["refresh", "--status", "--json"]] {
            let status = try box.runOK(arguments)
            #expect(
                status.status == 0 && !status.stdout.contains("OLD-SECRET") && status.stdout.contains("https://bob:***@example.com/x"),
                "\(status)")
        }
        let again = try box.runFailing(["refresh", "dynamic"], status: 2)
        expectFailure(again, 2, contains: "must not contain a password")
        #expect(!again.stderr.contains("OLD-SECRET"))
        server.stop()
    }
}

/// The pids of a process's children.
func children(of parent: pid_t) -> [pid_t] {
    guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
    return entries.compactMap { Int32($0) }.filter { pid in
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return false }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        return fields.count > 2 && Int32(fields[1]) == parent
    }
}

/// A process's command line, arguments separated by spaces.
func commandLine(_ pid: pid_t) -> String? {
    guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline"), !data.isEmpty else { return nil }
    return String(decoding: data.map { $0 == 0 ? 0x20 : $0 }, as: UTF8.self)
}

/// Runs `prefs --store STORE ARGUMENTS` and returns what it did and the peak resident set
/// (KiB, VmHWM) seen of it and of each child (the HTTP helper), sampled every 5 ms until it
/// exits. (wait4's ru_maxrss would not do: a process started with posix_spawn's vfork
/// carries the test process's own high-water mark.)
func runMeasured(_ box: Sandbox, _ arguments: [String], environment: [String: String] = [:]) throws -> (RunResult, Int) {
    let process = box.process(arguments, environment: environment)
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let errors = ErrorCollector(err.fileHandleForReading)
    let output = ErrorCollector(out.fileHandleForReading)
    var peak = 0
    let pid = process.processIdentifier
    func highWater(_ pid: pid_t) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
        else { return 0 }
        return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? 0
    }
    while process.isRunning {
        peak = max(peak, highWater(pid))
        for child in children(of: pid) { peak = max(peak, highWater(child)) }
        usleep(5_000)
    }
    process.waitUntilExit()
    let result = RunResult(
        stdout: String(decoding: output.wait(), as: UTF8.self), stderr: String(decoding: errors.wait(), as: UTF8.self),
        status: process.terminationStatus)
    return (result, peak)
}

/// A gzip member of about `inflatedSize` bytes of spaces in about `inflatedSize / 1032`
/// bytes: one dynamic-Huffman deflate block whose only codes are a space, "copy 258 bytes
/// from distance 1" (1 bit for the length, 1 for the distance) and the end of the block.
/// The trailer's CRC-32 is left zero: a client stops long before it (and fails at it
/// otherwise); the length field is right.
func gzipBomb(inflatedSize: Int) -> [UInt8] {
    var out = BitWriter()
    out.bits(1, 1)  // the final block
    out.bits(2, 2)  // dynamic Huffman codes
    out.bits(286 - 257, 5)  // literal/length codes 0...285
    out.bits(0, 5)  // one distance code
    out.bits(18 - 4, 4)  // code-length codes in the order below, up to symbol 1
    let order = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1]
    let codeLengthLengths = [18: 1, 2: 2, 1: 2]
    for symbol in order { out.bits(UInt64(codeLengthLengths[symbol] ?? 0), 3) }
    // Code-length codes (canonical): 18 -> 0, 1 -> 10, 2 -> 11.
    func zeros(_ count: Int) {
        out.code(0, 1)
        out.bits(UInt64(count - 11), 7)
    }
    zeros(32)  // literals 0...31 unused
    out.code(0b11, 2)  // the space: length 2
    zeros(138)
    zeros(85)  // literals 33...255 unused
    out.code(0b11, 2)  // end of block: length 2
    zeros(28)  // lengths 257...284 unused
    out.code(0b10, 2)  // length 258 (symbol 285): length 1
    out.code(0b10, 2)  // distance 1 (code 0): length 1
    // Data. Literal/length codes (canonical): 285 -> 0, space -> 10, end of block -> 11.
    out.code(0b10, 2)
    var copies = (inflatedSize - 1) / 258
    while copies > 0 && !out.aligned {
        out.bits(0, 2)  // 258 bytes from distance 1: two 0 bits
        copies -= 1
    }
    out.bytes += [UInt8](repeating: 0, count: copies / 4)
    for _ in 0..<(copies % 4) { out.bits(0, 2) }
    out.code(0b11, 2)
    out.flush()
    let size = UInt32(truncatingIfNeeded: 1 + (inflatedSize - 1) / 258 * 258)
    let header: [UInt8] = [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 3]
    let trailer: [UInt8] = [0, 0, 0, 0] + (0..<4).map { UInt8(truncatingIfNeeded: size >> (8 * $0)) }
    return header + out.bytes + trailer
}

/// Deflate's bit order: fields least significant bit first, Huffman codes most significant first.
struct BitWriter {
    var bytes: [UInt8] = []
    private var pending: UInt64 = 0
    private var count = 0

    var aligned: Bool { count == 0 }

    mutating func bits(_ value: UInt64, _ width: Int) {
        pending |= value << UInt64(count)
        count += width
        while count >= 8 {
            bytes.append(UInt8(truncatingIfNeeded: pending))
            pending >>= 8
            count -= 8
        }
    }

    mutating func code(_ code: UInt64, _ length: Int) {
        var reversed: UInt64 = 0
        for bit in 0..<length { reversed |= ((code >> UInt64(bit)) & 1) << UInt64(length - 1 - bit) }
        bits(reversed, length)
    }

    mutating func flush() {
        if count > 0 { bits(0, 8 - count) }
    }
}
