import Foundation
import PrefsCore
import PrefsTestSupport
import Testing

/// A `prefs serve` process on 127.0.0.1 with a free port, stopped with SIGTERM.
final class ServeProcess {
    let running: Running
    let port: Int

    init(_ box: Sandbox, _ extra: [String] = [], environment: [String: String] = [:], overrides: [String] = []) throws {
        running = try Running(
            ["--store", box.store] + overrides + ["serve", "--listen", "127.0.0.1:0"] + extra, environment: box.environment(environment))
        guard running.waitForLines(1, timeout: 30), let line = running.lines.snapshot().first,
            let range = line.range(of: #"127\.0\.0\.1:[0-9]+"#, options: .regularExpression),
            let port = Int(line[range].split(separator: ":")[1])
        else {
            let result = running.finish(signal: SIGKILL)
            throw ServeTestError(description: "prefs serve did not start: \(result)")
        }
        self.port = port
        // Without a token the inspector's address carries the run's token after #.
        if let start = line.range(of: "#token=") {
            inspectorToken = String(line[start.upperBound...].prefix { $0.isHexDigit })
        } else {
            inspectorToken = nil
        }
    }

    /// The token of this run that the inspector's data needs (printed with its address).
    let inspectorToken: String?

    var url: String { "http://127.0.0.1:\(port)/" }

    /// The inspector's address as printed: with `#token=…` when the server has no token.
    var inspectorURL: String { url + (inspectorToken.map { "#token=" + $0 } ?? "") }

    /// SIGTERM, then what it printed (stdout: the address; stderr: the access log).
    func stop() -> RunResult { running.finish(signal: SIGTERM) }
}

struct ServeTestError: Error, CustomStringConvertible {
    var description: String
}

/// One HTTP/1.1 exchange on a new connection (`Connection: close`): status, headers, body.
struct HTTPExchange {
    var status: Int
    var head: String
    var body: String

    static func connect(_ port: Int) -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Foundation.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            return nil
        }
        return fd
    }

    static func send(_ fd: Int32, _ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Foundation.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent <= 0 { return }
            offset += sent
        }
    }

    static func readAll(_ fd: Int32) -> [UInt8] {
        var result: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 { break }
            result += buffer[0..<count]
        }
        return result
    }

    static func request(
        _ port: Int, _ method: String, _ path: String, body: [UInt8] = [], headers: [String: String] = [:]
    ) throws -> HTTPExchange {
        guard let fd = connect(port) else { throw ServeTestError(description: "cannot connect to port \(port)") }
        defer { close(fd) }
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\nContent-Length: \(body.count)\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        send(fd, Array((head + "\r\n").utf8) + body)
        let reply = String(decoding: readAll(fd), as: UTF8.self)
        guard let split = reply.range(of: "\r\n\r\n"), let status = Int(reply.split(separator: " ").dropFirst().first ?? "") else {
            throw ServeTestError(description: "no HTTP reply: \(reply.debugDescription)")
        }
        return HTTPExchange(status: status, head: String(reply[..<split.lowerBound]), body: String(reply[split.upperBound...]))
    }

    static func post(_ port: Int, _ path: String, _ body: String, headers: [String: String] = [:]) throws -> HTTPExchange {
        try request(port, "POST", path, body: Array(body.utf8), headers: ["Content-Type": "application/json"].merging(headers) { $1 })
    }

    func header(_ name: String) -> String? {
        for line in head.split(separator: "\r\n") {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == name.lowercased() { return parts[1].trimmingCharacters(in: .whitespaces) }
        }
        return nil
    }
}

/// Issue 23: `prefs serve` with real clients.
@Suite("prefs serve", .serialized, .timeLimit(.minutes(5)), .ownThreads)
struct ServeTests {
    static let testbed = URL(fileURLWithPath: repositoryRoot + "/Tests/PrefsCLITests/Fixtures/flag-testbed.json")
        .path

    func imported() throws -> Sandbox {
        let box = try Sandbox()
        let result = try box.runOK(["flag", "import", Self.testbed])
        #expect(result.status == 0, "\(result)")
        return box
    }

    @Test func ofrepAnswersAsFlagEvalAndServesChangesWithinASecond() throws {
        let box = try imported()
        let server = try ServeProcess(box)
        let single = try HTTPExchange.post(
            server.port, "/ofrep/v1/evaluate/flags/context-aware",
            #"{"context":{"fn":"Sulisław","ln":"Świętopełk","age":29,"customer":false}}"#)
        #expect(
            single.status == 200
                && single.body
                    == #"{"key":"context-aware","value":"INTERNAL","reason":"TARGETING_MATCH","variant":"internal","metadata":{"flagSetId":"testbed","version":3}}"#,
            "\(single)")
        let bulk = try HTTPExchange.post(server.port, "/ofrep/v1/evaluate/flags", #"{"context":{"targetingKey":"u1"}}"#)
        let etag = try #require(bulk.header("ETag"))
        #expect(bulk.status == 200 && bulk.body.contains(#"{"key":"boolean-flag","value":true,"reason":"STATIC","variant":"on""#))
        let unchanged = try HTTPExchange.post(
            server.port, "/ofrep/v1/evaluate/flags", #"{"context":{"targetingKey":"u1"}}"#, headers: ["If-None-Match": etag])
        #expect(unchanged.status == 304 && unchanged.body.isEmpty, "\(unchanged)")

        // A change by another process: served within a second.
        let disable = try box.runOK(["flag", "disable", "boolean-flag"])
        #expect(disable.status == 0, "\(disable)")
        let changedAt = Date()
        var seen: TimeInterval?
        while Date().timeIntervalSince(changedAt) < 3 {
            let reply = try HTTPExchange.post(
                server.port, "/ofrep/v1/evaluate/flags", #"{"context":{"targetingKey":"u1"}}"#, headers: ["If-None-Match": etag])
            if reply.status == 200 {
                #expect(
                    reply.header("ETag") != etag
                        && reply.body.contains(#"{"key":"boolean-flag","reason":"DISABLED","variant":"","metadata""#))
                seen = Date().timeIntervalSince(changedAt)
                break
            }
            usleep(20_000)
        }
        #expect(seen != nil && seen! < 1.0, "the change was served after \(seen ?? -1) s")
        let stopped = server.stop()
        #expect(stopped.status == 0, "graceful stop: \(stopped)")
        #expect(stopped.stderr.contains("127.0.0.1 POST /ofrep/v1/evaluate/flags/context-aware 200 "), "\(stopped.stderr)")
        #expect(stopped.stderr.contains("127.0.0.1 POST /ofrep/v1/evaluate/flags 304 "))
    }

    /// A store file replaced by rename (a sync tool, a restore by hand) under `serve`: the
    /// file now at the path is served, not the old one for ever.
    @Test func aStoreFileReplacedByRenameIsServed() throws {
        let box = try imported()
        let server = try ServeProcess(box)
        let body = #"{"context":{"targetingKey":"u1"}}"#
        let before = try HTTPExchange.post(server.port, "/ofrep/v1/evaluate/flags/boolean-flag", body)
        #expect(before.status == 200 && before.body.contains(#""value":true"#), "\(before)")
        let copy = box.root + "/store/copy.db"
        let copied = try Sandbox.exec("/bin/cp", [box.store, copy], stdin: nil, environment: box.environment())
        try #require(copied.status == 0, "\(copied)")
        try box.runOK(["--store", copy, "flag", "disable", "boolean-flag"], store: false)
        try #require(rename(copy, box.store) == 0, "rename: \(String(cString: strerror(errno)))")
        try Self.expectDisabledFlagServed(server, box, "the replaced store's flag is served within 5 s")
    }

    /// After the store at `box.store` was replaced by one where boolean-flag is disabled: the
    /// server answers DISABLED within 5 s, then stops with exit 0 and the note of a replaced store.
    static func expectDisabledFlagServed(
        _ server: ServeProcess, _ box: Sandbox, _ what: Comment, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let body = #"{"context":{"targetingKey":"u1"}}"#
        let started = Date()
        var served = false
        while !served && Date().timeIntervalSince(started) < 5 {
            let reply = try HTTPExchange.post(server.port, "/ofrep/v1/evaluate/flags/boolean-flag", body)
            served = reply.status == 200 && reply.body.contains(#""reason":"DISABLED""#)
            if !served { usleep(20_000) }
        }
        #expect(served, what, sourceLocation: sourceLocation)
        let stopped = server.stop()
        #expect(stopped.status == 0, "\(stopped)", sourceLocation: sourceLocation)
        #expect(
            stopped.stderr.contains("\(box.store) was replaced, moved or removed; reading what is at that path now"), "\(stopped.stderr)",
            sourceLocation: sourceLocation)
    }

    /// A store path that is a symbolic link, pointed at another store file (`ln -sfn b.db
    /// link.db`) under `serve`: a rename over the store, so the file the link names now is
    /// served (as `get` reads it), with the same note on stderr.
    @Test func aStoreLinkPointedElsewhereIsServed() throws {
        let box = try Sandbox()
        let directory = box.root + "/store"
        let (a, b) = (directory + "/a.db", directory + "/b.db")
        try box.runOK(["--store", a, "flag", "import", Self.testbed], store: false)
        let copied = try Sandbox.exec("/bin/cp", [a, b], stdin: nil, environment: box.environment())
        try #require(copied.status == 0, "\(copied)")
        try box.runOK(["--store", b, "flag", "disable", "boolean-flag"], store: false)
        try #require(symlink("a.db", box.store) == 0, "symlink: \(String(cString: strerror(errno)))")
        let server = try ServeProcess(box)
        let body = #"{"context":{"targetingKey":"u1"}}"#
        let before = try HTTPExchange.post(server.port, "/ofrep/v1/evaluate/flags/boolean-flag", body)
        #expect(before.status == 200 && before.body.contains(#""value":true"#), "\(before)")
        let retargeted = try Sandbox.exec("/bin/ln", ["-sfn", "b.db", box.store], stdin: nil, environment: box.environment())
        try #require(retargeted.status == 0, "\(retargeted)")
        try Self.expectDisabledFlagServed(server, box, "the flag of the file the link names now is served within 5 s")
    }

    /// What needs sockets of `badInput…` (whose requests are in `ServeApplicationTests` now):
    /// a slow client is cut off after the read timeout while others are served, and a chunked
    /// body over the limit gets 413; the token is never logged.
    @Test func aSlowClientIsCutOffAndAChunkedBodyOverTheLimitGets413() throws {
        let box = try imported()
        let tokenFile = box.root + "/token"
        try "tok-\(UUID().uuidString)\n".write(toFile: tokenFile, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: tokenFile)
        let token = try String(contentsOfFile: tokenFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let server = try ServeProcess(box, ["--token-file", tokenFile, "--read-timeout", "1s"])
        let auth = ["Authorization": "Bearer \(token)"]
        let flag = "/ofrep/v1/evaluate/flags/string-flag"
        func works() throws {
            let ok = try HTTPExchange.post(server.port, flag, "{}", headers: auth)
            #expect(ok.status == 200 && ok.body.hasPrefix(#"{"key":"string-flag","value":"hi""#), "\(ok)")
        }
        // A slow client (slowloris): half a request head, then nothing.
        let slow = try #require(HTTPExchange.connect(server.port))
        HTTPExchange.send(slow, Array("POST \(flag) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Le".utf8))
        let started = Date()
        let wrong = try HTTPExchange.request(
            server.port, "POST", flag, body: Array("{}".utf8), headers: ["Authorization": "Bearer \(token)x"])
        #expect(wrong.status == 401, "\(wrong)")
        try works()
        // A chunked body (no Content-Length) over the limit: 413 too, not a server error.
        let chunked = try #require(HTTPExchange.connect(server.port))
        let chunk = String(repeating: " ", count: 100_000)
        HTTPExchange.send(
            chunked,
            Array(
                ("POST \(flag) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\nTransfer-Encoding: chunked\r\n"
                    + "Connection: close\r\n\r\n" + String(chunk.utf8.count, radix: 16) + "\r\n" + chunk + "\r\n0\r\n\r\n").utf8))
        let chunkedReply = String(decoding: HTTPExchange.readAll(chunked), as: UTF8.self)
        close(chunked)
        #expect(chunkedReply.hasPrefix("HTTP/1.1 413") && chunkedReply.contains("larger than 65536 bytes"), "\(chunkedReply.prefix(300))")
        try works()

        // The slow client is cut off after the read timeout; others were served meanwhile.
        let rest = HTTPExchange.readAll(slow)
        close(slow)
        let waited = Date().timeIntervalSince(started)
        #expect(rest.isEmpty && waited >= 0.9 && waited < 10, "closed after \(waited) s, sent \(rest.count) bytes")
        try works()

        let stopped = server.stop()
        #expect(stopped.status == 0, "\(stopped)")
        #expect(!stopped.stderr.contains(token), "the token is never logged")
        #expect(stopped.stderr.contains(" 401 ") && stopped.stderr.contains(" 413 "))
    }

    @Test func liveUpdatesStreamAndShutdownEndsThem() throws {
        let box = try imported()
        let server = try ServeProcess(box)
        let fd = try #require(HTTPExchange.connect(server.port))
        defer { close(fd) }
        let token = try #require(server.inspectorToken, "no inspector token printed")
        HTTPExchange.send(fd, Array("GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\n\r\n".utf8))
        var received = ""
        func read(until fragment: String, seconds: Double) -> Bool {
            let deadline = Date().addingTimeInterval(seconds)
            var buffer = [UInt8](repeating: 0, count: 4096)
            while Date() < deadline && !received.contains(fragment) {
                var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&poller, 1, 100) > 0 else { continue }
                let count = recv(fd, &buffer, buffer.count, 0)
                if count <= 0 { break }
                received += String(decoding: buffer[0..<count], as: UTF8.self)
            }
            return received.contains(fragment)
        }
        #expect(read(until: ": connected", seconds: 10) && received.contains("text/event-stream"), "\(received)")
        let changedAt = Date()
        try box.runOK(["set", "user", "theme", "dark"])
        #expect(read(until: "event: change", seconds: 3), "\(received)")
        #expect(Date().timeIntervalSince(changedAt) < 1.0, "a write by another process is announced within a second")
        // SIGTERM with the stream open: it ends, and the server exits.
        let stopped = server.stop()
        #expect(stopped.status == 0 && stopped.stderr.contains("GET /api/events 200"), "\(stopped)")
    }

    @Test func otherAddressesNeedAToken() throws {
        let box = try imported()
        let refused = try box.runFailing(["serve", "--listen", "0.0.0.0:0"], status: 2)
        #expect(refused.status == 2 && refused.stderr.contains("needs a bearer token"), "\(refused)")
        let empty = box.root + "/empty"
        try "\n".write(toFile: empty, atomically: true, encoding: .utf8)
        let open = try box.runFailing(["serve", "--listen", "0.0.0.0:0", "--token-file", empty], status: 2)
        #expect(open.status == 2 && open.stderr.contains("is open to other users (mode 644)"), "\(open)")
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: empty)
        let blank = try box.runFailing(["serve", "--listen", "0.0.0.0:0", "--token-file", empty], status: 2)
        #expect(blank.status == 2 && blank.stderr.contains("is empty"), "\(blank)")
        let directory = try box.runFailing(["serve", "--listen", "0.0.0.0:0", "--token-file", box.root], status: 2)
        #expect(directory.status == 2 && directory.stderr.contains("not a regular file"), "\(directory)")
        // A name that merely starts like a loopback address may resolve anywhere: it needs a token.
        for host in ["127.0.0.1.nip.io:0", "localhost.example:0", "[::ffff:127.0.0.1]:0"] {
            let named = try box.runFailing(["serve", "--listen", host], status: 2)
            #expect(named.status == 2 && named.stderr.contains("needs a bearer token"), "\(host): \(named)")
        }
        let badAddress = try box.runFailing(["serve", "--listen", "nowhere"], status: 2)
        #expect(badAddress.status == 2 && badAddress.stderr.contains("--listen"), "\(badAddress)")
        // --override applies as in flag eval (handed to the helper in PREFS_OVERRIDES).
        let overridden = try ServeProcess(
            box, [], overrides: ["--override", #"switch:string-flag={"state":"ENABLED","variants":{"o":"over"},"defaultVariant":"o"}"#])
        let answer = try HTTPExchange.post(overridden.port, "/ofrep/v1/evaluate/flags/string-flag", "{}")
        #expect(
            answer.status == 200 && answer.body.hasPrefix(#"{"key":"string-flag","value":"over","reason":"STATIC","variant":"o""#),
            "\(answer)")
        #expect(overridden.stop().status == 0)
        // With a token from the environment, another address is served (and checked).
        let server = try ServeProcess(box, [], environment: ["PREFS_SERVE_TOKEN": "env-token"])
        #expect(try HTTPExchange.post(server.port, "/ofrep/v1/evaluate/flags/string-flag", "{}").status == 401)
        #expect(
            try HTTPExchange.post(server.port, "/ofrep/v1/evaluate/flags/string-flag", "{}", headers: ["Authorization": "Bearer env-token"])
                .status == 200)
        #expect(server.stop().status == 0)
    }
}

/// The Python clients' virtual environment (`.build/serve-venv`): the OpenFeature SDK with its
/// OFREP provider, websocket-client to drive Chromium, jsonschema and PyYAML to check answers
/// against the OFREP OpenAPI document; made on first use from PyPI.
enum PythonClients {
    static let root = repositoryRoot
    static let fixtures = root + "/Tests/PrefsCLITests/Fixtures"
    static let packages = [
        "openfeature-sdk==0.10.0", "openfeature-provider-ofrep==0.3.0", "websocket-client==1.9.2", "jsonschema==4.25.1",
        "PyYAML==6.0.3",
    ]

    /// Each case (`{"flag","type","default","context"}`) evaluated by the OpenFeature Python SDK
    /// through its OFREP provider against `url` (Fixtures/ofrep_sdk.py): one JSON line an answer,
    /// in order; the script's exit status and the count are checked at the caller's line.
    static func sdkAnswers(
        _ python: String, url: String, cases: [JSONValue], directory: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> [Substring] {
        let casesFile = directory + "/cases.json"
        try JSONValue.array(cases).compactText.write(toFile: casesFile, atomically: true, encoding: .utf8)
        let sdk = try Sandbox.exec(
            python, [fixtures + "/ofrep_sdk.py", url, "eval", casesFile], stdin: nil, environment: ProcessInfo.processInfo.environment)
        #expect(sdk.status == 0, "\(sdk)", sourceLocation: sourceLocation)
        let answers = sdk.stdout.split(separator: "\n")
        #expect(answers.count == cases.count, "\(sdk)", sourceLocation: sourceLocation)
        return answers
    }

    /// Whether the venv is there or could be made (tests that need it are skipped otherwise):
    /// awaited by their condition traits, made off the cooperative pool (see ``Provision``).
    static func available() async -> Bool { (try? await provision.value().get()) != nil }

    /// Why a test that needs ``python`` is skipped.
    static let requirement: Comment =
        "needs python3-venv and the Python packages from PyPI in .build/serve-venv (apt-get install python3-venv; network for pip)"

    /// The venv's python, or why there is none, for a test whose condition awaited ``available()``.
    static var python: Result<String, ServeTestError> {
        provision.finished ?? .failure(ServeTestError(description: "the venv was not made: the test's condition must await available()"))
    }

    private static let provision = Provision<Result<String, ServeTestError>> {
        let venv = root + "/.build/serve-venv/py"
        let python = venv + "/bin/python"
        let environment = ProcessInfo.processInfo.environment
        func check() -> Bool {
            let probe = try? Sandbox.exec(
                python, ["-c", "import openfeature.contrib.provider.ofrep, websocket, jsonschema, yaml"], stdin: nil,
                environment: environment)
            return probe?.status == 0
        }
        if check() { return .success(python) }
        guard let made = try? Sandbox.exec("/usr/bin/env", ["python3", "-m", "venv", venv], stdin: nil, environment: environment),
            made.status == 0
        else {
            return .failure(ServeTestError(description: "python3 -m venv failed (apt-get install python3-venv)"))
        }
        let pip = try? Sandbox.exec(venv + "/bin/pip", ["install", "-q"] + packages, stdin: nil, environment: environment)
        guard pip?.status == 0, check() else {
            return .failure(ServeTestError(description: "pip could not install \(packages.joined(separator: " ")): \(pip?.stderr ?? "")"))
        }
        return .success(python)
    }
}

/// Issue 23: real clients — the OpenFeature Python SDK and headless Chromium.
@Suite("prefs serve clients", .serialized, .timeLimit(.minutes(5)), .ownThreads)
struct ServeClientTests {
    static let contexts: [String] = [
        "{}", #"{"targetingKey":"u1"}"#, #"{"targetingKey":"5c3d8535-f81a-4478-a6d3-afaa4d51199e"}"#,
        #"{"fn":"Sulisław","ln":"Świętopełk","age":29,"customer":false}"#,
        #"{"targetingKey":"user-7","email":"ada@internal.example","version":"2.3.0","tier":"gold","user":{"name":"ada"}}"#,
        #"{"targetingKey":"user-42","version":"1.9.0","user":{"name":"bob"}}"#,
    ]
    static let flags: [(String, String, String)] = [
        ("boolean-flag", "boolean", "false"), ("string-flag", "string", "x"), ("integer-flag", "integer", "0"),
        ("float-flag", "float", "0.25"), ("object-flag", "object", "{}"), ("context-aware", "string", "x"),
        ("targeting-key-flag", "string", "x"), ("fractional-flag", "string", "x"), ("rollout-flag", "boolean", "false"),
        ("semver-flag", "string", "x"), ("disabled-flag", "boolean", "false"), ("null-default-flag", "string", "x"),
        ("error-flag", "string", "x"), ("missing-flag", "string", "x"), ("string-flag", "integer", "0"),
    ]

    @Test(.tags(.network), .enabled(PythonClients.requirement) { await PythonClients.available() })
    func theOpenFeaturePythonSDKAnswersAsFlagEval() throws {
        let python = try PythonClients.python.get()
        let box = try ServeTests().imported()
        let server = try ServeProcess(box)
        var cases: [JSONValue] = []
        for (flag, type, fallback) in Self.flags {
            for context in Self.contexts {
                let fallbackValue: JSONValue = type == "string" ? .string(fallback) : try JSONValue(parsing: fallback)
                cases.append(
                    .object([
                        .init("flag", .string(flag)), .init("type", .string(type)), .init("default", fallbackValue),
                        .init("context", try JSONValue(parsing: context)),
                    ]))
            }
        }
        let answers = try PythonClients.sdkAnswers(python, url: server.url, cases: cases, directory: box.root)
        var index = 0
        var reasons: Swift.Set<String> = []
        for (flag, type, fallback) in Self.flags {
            for context in Self.contexts {
                defer { index += 1 }
                guard index < answers.count else { break }
                let sdkAnswer = try JSONValue(parsing: String(answers[index]))
                let eval = try box.runOK(["flag", "eval", flag, "--type", type, "--default", fallback, "--context", context, "--json"])
                #expect(eval.status == 0, "\(eval)")
                let expected = try JSONValue(parsing: eval.stdout)
                // An answer with no variant (DISABLED, DEFAULT without a default variant) carries
                // the variant "" over OFREP (docs/serve.md), which the provider passes on; the
                // value, reason and error code are flag eval's (issue 38: no longer ERROR).
                let variant = expected["variant"] == .null && expected["reason"] != .string("ERROR") ? .string("") : expected["variant"]
                let same =
                    (sdkAnswer["value"] ?? .null).isEquivalent(to: expected["value"] ?? .null)
                    && sdkAnswer["variant"] == variant
                    && sdkAnswer["reason"] == expected["reason"] && sdkAnswer["errorCode"] == expected["errorCode"]
                #expect(same, "\(flag) as \(type) for \(context): SDK \(sdkAnswer.compactText), prefs flag eval \(eval.stdout)")
                reasons.insert(expected["reason"]?.stringValue ?? "?")
            }
        }
        #expect(reasons == ["STATIC", "TARGETING_MATCH", "DEFAULT", "DISABLED", "ERROR"], "the cases cover every reason: \(reasons)")

        // A flag disabled with the CLI reaches the SDK within the server's polling (1 s).
        let watcher = try Running(
            [PythonClients.fixtures + "/ofrep_sdk.py", server.url, "watch", "boolean-flag"],
            environment: ProcessInfo.processInfo.environment, executable: python)
        #expect(watcher.waitForLines(1, timeout: 30) && watcher.lines.snapshot().first == "ready STATIC", "\(watcher.lines.snapshot())")
        let disable = try box.runOK(["flag", "disable", "boolean-flag"])
        #expect(disable.status == 0, "\(disable)")
        watcher.write("go\n")
        #expect(watcher.waitForLines(2, timeout: 15))
        let watched = watcher.finish()
        let line = watched.stdout.split(separator: "\n").last.map(String.init) ?? ""
        let seconds = Double(line.replacingOccurrences(of: "disabled after ", with: "")) ?? 99
        #expect(watched.status == 0 && seconds < 1.0, "\(watched)")
        #expect(server.stop().status == 0)
    }

    /// docs/serve.md's examples run: the curl request answers the JSON its comment shows, and
    /// the Python snippet prints the SDK's answer (against a server on a free port).
    @Test func theDocsExamplesRun() throws {
        let docs = try String(contentsOfFile: PythonClients.root + "/docs/serve.md", encoding: .utf8)
        let box = try Sandbox()
        try box.runOK(["flag", "import", PythonClients.root + "/examples/flags.json"])
        let server = try ServeProcess(box)
        let lines = docs.components(separatedBy: "\n")
        let curl = try #require(
            lines.firstIndex { $0.hasPrefix("curl -s -X POST http://127.0.0.1:8016/ofrep/v1/evaluate/flags/new-checkout") })
        let body = try #require(lines[curl + 1].split(separator: "'").dropFirst().first.map(String.init))
        let shown = try #require(lines[curl + 2].hasPrefix("# {") ? String(lines[curl + 2].dropFirst(2)) : nil)
        let answer = try HTTPExchange.post(server.port, "/ofrep/v1/evaluate/flags/new-checkout", body)
        #expect(answer.status == 200 && answer.body == shown, "\(answer)")
        let eval = try box.runOK([
            "flag", "eval", "new-checkout", "--type", "boolean", "--default", "false", "--targeting-key", "user-7", "--json",
        ])
        #expect(eval.stdout.hasPrefix(#"{"value":false,"variant":"off","reason":"TARGETING_MATCH""#), "\(eval)")

        #expect(server.stop().status == 0)
    }

    /// docs/serve.md's Python snippet prints the SDK's answer (against a server on a free port).
    @Test(.tags(.network), .enabled(PythonClients.requirement) { await PythonClients.available() })
    func theDocsPythonExampleRuns() throws {
        let python = try PythonClients.python.get()
        let docs = try String(contentsOfFile: PythonClients.root + "/docs/serve.md", encoding: .utf8)
        let box = try Sandbox()
        try box.runOK(["flag", "import", PythonClients.root + "/examples/flags.json"])
        let server = try ServeProcess(box)
        let start = try #require(docs.range(of: "```python\n"))
        let end = try #require(docs.range(of: "```", range: start.upperBound..<docs.endIndex))
        let snippet = docs[start.upperBound..<end.lowerBound].replacingOccurrences(
            of: "http://127.0.0.1:8016", with: "http://127.0.0.1:\(server.port)")
        let run = try Sandbox.exec(python, ["-c", snippet], stdin: nil, environment: ProcessInfo.processInfo.environment)
        #expect(snippet.contains("# False off TARGETING_MATCH"))
        #expect(run.status == 0 && run.stdout == "False off TARGETING_MATCH\n", "\(run)")
        #expect(server.stop().status == 0)
    }

    /// docs/serve.md's second Python snippet: the SDK over the unix socket the systemd unit
    /// listens on (`$XDG_RUNTIME_DIR/prefs-serve/socket`).
    @Test(.tags(.network), .enabled(PythonClients.requirement) { await PythonClients.available() })
    func theDocsUnixSocketPythonExampleRuns() throws {
        let python = try PythonClients.python.get()
        let docs = try String(contentsOfFile: PythonClients.root + "/docs/serve.md", encoding: .utf8)
        let box = try Sandbox()
        try box.runOK(["flag", "import", PythonClients.root + "/examples/flags.json"])
        let runtime = box.root + "/run-user"
        #expect(mkdir(runtime, 0o700) == 0 && mkdir(runtime + "/prefs-serve", 0o700) == 0)
        let socket = runtime + "/prefs-serve/socket"
        let server = try Running(["--store", box.store, "serve", "--listen", "unix:" + socket], environment: box.environment())
        guard server.waitForLines(1, timeout: 30) else {
            Issue.record("serve did not start: \(server.finish(signal: SIGKILL))")
            return
        }
        let first = try #require(docs.range(of: "```python\n"))
        let start = try #require(docs.range(of: "```python\n", range: first.upperBound..<docs.endIndex))
        let end = try #require(docs.range(of: "```", range: start.upperBound..<docs.endIndex))
        let snippet = String(docs[start.upperBound..<end.lowerBound])
        #expect(snippet.contains("UnixSocketAdapter") && snippet.contains("# False off TARGETING_MATCH"))
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_RUNTIME_DIR"] = runtime
        let run = try Sandbox.exec(python, ["-c", snippet], stdin: nil, environment: environment)
        #expect(run.status == 0 && run.stdout == "False off TARGETING_MATCH\n", "\(run)")
        let stopped = server.finish(signal: SIGTERM)
        #expect(stopped.status == 0 && stopped.stderr.contains(" POST /ofrep/v1/evaluate/flags/new-checkout 200 "), "\(stopped)")
    }

    @Test(
        .tags(.network, .browser), .enabled(PythonClients.requirement) { await PythonClients.available() },
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium"), "needs chromium (apt-get install chromium)"))
    func theInspectorWorksInHeadlessChromium() throws {
        let python = try PythonClients.python.get()
        let box = try ServeTests().imported()
        for (key, value) in [("theme", "dark"), ("language", "fr"), ("theme", "solarized")] {
            try box.runOK(["set", "user", key, value])
        }
        let server = try ServeProcess(box)
        let screenshot = PythonClients.root + "/.build/serve-inspector.png"
        try? FileManager.default.removeItem(atPath: screenshot)
        let context = #"{"fn":"Sulisław","ln":"Świętopełk","age":29,"customer":false}"#
        let browser = try Running(
            [PythonClients.fixtures + "/inspector_browser.py", server.inspectorURL, screenshot, "THEME", "context-aware", context],
            environment: ProcessInfo.processInfo.environment, executable: python)
        guard browser.waitForLines(1, timeout: 90) else {
            Issue.record("the browser did not answer: \(browser.finish(signal: SIGKILL))")
            _ = server.stop()
            return
        }
        let first = browser.lines.snapshot()[0]
        try box.runOK(["set", "user", "theme", "neon"])
        browser.write("go\n")
        #expect(browser.waitForLines(2, timeout: 30))
        let finished = browser.finish()
        #expect(finished.status == 0, "\(finished)")
        let live = try JSONValue(parsing: finished.stdout.split(separator: "\n").last.map(String.init) ?? "")
        #expect(live["liveValue"] == .string("\"neon\""), "the open key updates without a reload: \(finished.stdout)")
        let result = try JSONValue(parsing: first)
        #expect(result["keys"] == .array([.string("user/theme = \"solarized\"")]), "\(first)")
        #expect(result["keyTitle"] == .string("user/theme") && result["keyValue"] == .string("\"solarized\""), "\(first)")
        #expect(result["variant"] == .string("internal") && result["reason"] == .string("TARGETING_MATCH"), "\(first)")
        #expect(result["value"] == .string("\"INTERNAL\""), "\(first)")
        #expect(FileManager.default.fileExists(atPath: screenshot), "a screenshot under .build/")
        let stopped = server.stop()
        #expect(stopped.status == 0 && stopped.stderr.contains("GET /inspector.js 200"), "\(stopped)")
    }
}
