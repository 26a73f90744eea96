import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import PrefsCore
import PrefsServe
import PrefsServeApp
import PrefsTestSupport
import ServiceLifecycle
import Synchronization
import Testing

/// `prefs serve`'s Hummingbird application (``ServeServer``) driven in process, without sockets
/// (``ApplicationDriver``): what each answer carries, tokens, limits of a request, event
/// streams. What needs a socket or the process (connection caps, deadlines, signals, the real
/// clients) stays with the binary suites in `PrefsCLITests/Commands/Serve*`. One test at a
/// time: one blocks the cooperative pool's threads on purpose, another times answers the
/// pool's threads give.
@Suite("prefs serve application", .serialized, .timeLimit(.minutes(5)))
struct ServeApplicationTests {
    static let testbed = repositoryRoot + "/Tests/PrefsCLITests/Fixtures/flag-testbed.json"
    static let flag = "/ofrep/v1/evaluate/flags/string-flag"
    static let expected = #"{"key":"string-flag","value":"hi""#

    /// A store with the flag testbed imported (or `flags`; `values` set in `user`, `switches` in
    /// `switch`, `schema` loaded), and a server on it.
    final class Fixture: Sendable {
        let directory: String
        let stack: KeyValueStack
        let server: ServeServer
        /// The access log's lines.
        let log: Lines

        init(
            options: ServeOptions = ServeOptions(), limits: ServeLimits = ServeLimits(), values: [(String, String)] = [],
            flags: String? = nil, switches: [(String, JSONValue)] = [], schema: String? = nil
        ) throws {
            directory = try makeTemporaryDirectory(prefix: "prefs-serve-app")
            stack = try KeyValueStack(
                path: directory + "/prefs.db", options: .init(memoryTier: .inProcess, environment: ["XDG_RUNTIME_DIR": directory]))
            try stack.flags.importDocument(
                try JSONValue(parsing: flags ?? String(contentsOfFile: ServeApplicationTests.testbed, encoding: .utf8)))
            for (key, value) in values { try stack.set(.string(value), in: .user, forKey: key) }
            for (key, value) in switches { try stack.set(value, in: .switch, forKey: key) }
            if let schema { _ = try stack.loadSchema(try JSONValue(parsing: schema)) }
            try stack.flushSynchronously()
            let log = Lines()
            self.log = log
            server = ServeServer(
                core: try ServeCore(stack: stack, options: options), limits: limits,
                accessLog: { line in log.lines.withLock { $0.append(line) } })
        }

        deinit { try? FileManager.default.removeItem(atPath: directory) }

        /// Runs `test` against the application without sockets.
        func test<Value: Sendable>(_ test: @Sendable (Client) async throws -> Value) async throws -> Value {
            var logger = Logger(label: "prefs-serve-test")
            logger.logLevel = .critical
            return try await test(Client(server.application(address: .hostname("127.0.0.1", port: 0), logger: logger)))
        }

        var accessLog: String { log.lines.withLock { $0.joined() } }
    }

    /// What sends the requests: the application's responder, in process.
    typealias Client = ApplicationDriver<CallbackResponder<ServeContext>>

    final class Lines: Sendable {
        let lines = Mutex<[String]>([])
    }

    /// One answer: status, headers, body.
    struct Answer: CustomStringConvertible {
        var status: Int
        var headers: HTTPFields
        var body: String

        func header(_ name: String) -> String? { HTTPField.Name(name).flatMap { headers[$0] } }
        var description: String { "\(status) \(headers) \(body.prefix(300).debugDescription)" }
    }

    static func request(
        _ client: Client, _ method: HTTPRequest.Method, _ path: String, body: [UInt8]? = nil,
        headers: [String: String] = [:], until enough: (@Sendable (String) -> Bool)? = nil
    ) async throws -> Answer {
        var fields = HTTPFields()
        for (name, value) in headers {
            if let name = HTTPField.Name(name) { fields.append(HTTPField(name: name, value: value)) }
        }
        var bytes: (@Sendable (ByteBuffer) -> Bool)? = nil
        if let enough { bytes = { buffer in enough(String(buffer: buffer)) } }
        let reply = try await client.execute(method, path, headers: fields, body: body.map { ByteBuffer(bytes: $0) }, until: bytes)
        return Answer(status: Int(reply.head.status.code), headers: reply.head.headerFields, body: String(buffer: reply.body))
    }

    static func post(_ client: Client, _ path: String, _ body: String, headers: [String: String] = [:]) async throws
        -> Answer
    {
        try await request(
            client, .post, path, body: Array(body.utf8), headers: ["Content-Type": "application/json"].merging(headers) { $1 })
    }

    /// Moved from `ServeTests`: every answer but the inspector's page (OFREP, `/api/*`, errors,
    /// 304, 413, event streams) says `Cache-Control: no-store`: no cache or browser keeps an
    /// evaluation or the store's data.
    @Test func answersAreNotStored() async throws {
        let token = BearerToken.random()
        let fixture = try Fixture(options: ServeOptions(maximumBodyBytes: 100, inspectorToken: token), values: [("theme", "dark")])
        try await fixture.test { client in
            let bearer = ["Authorization": "Bearer " + token]
            let bulk = try await Self.post(client, "/ofrep/v1/evaluate/flags", "{}")
            let answers: [(String, Answer)] = [
                ("one flag", try await Self.post(client, "/ofrep/v1/evaluate/flags/boolean-flag", "{}")),
                ("no such flag", try await Self.post(client, "/ofrep/v1/evaluate/flags/nope", "{}")),
                ("every flag", bulk),
                (
                    "304",
                    try await Self.post(client, "/ofrep/v1/evaluate/flags", "{}", headers: ["If-None-Match": bulk.header("ETag") ?? ""])
                ),
                ("413", try await Self.post(client, "/ofrep/v1/evaluate/flags/boolean-flag", String(repeating: " ", count: 200))),
                ("/api without the token", try await Self.request(client, .get, "/api/summary")),
                ("/api/summary", try await Self.request(client, .get, "/api/summary", headers: bearer)),
                ("/api/key", try await Self.request(client, .get, "/api/key?domain=user&key=theme", headers: bearer)),
                ("/api/flags", try await Self.request(client, .get, "/api/flags", headers: bearer)),
            ]
            #expect(answers.map(\.1.status) == [200, 404, 200, 304, 413, 401, 200, 200, 200], "\(answers.map(\.1.status))")
            for (name, answer) in answers {
                #expect(answer.header("Cache-Control") == "no-store", "\(name): \(answer)")
            }
            // An event stream's head (shut down first, so the stream ends after its first comment).
            fixture.server.stop()
            let stream = try await Self.request(client, .get, "/ofrep/v1/events")
            #expect(stream.status == 200 && stream.header("Cache-Control") == "no-store", "\(stream)")
            let page = try await Self.request(client, .get, "/")
            #expect(page.status == 200 && page.header("Cache-Control") == "no-cache", "\(page)")
        }
    }

    /// Moved from `ServeTests.badInputGetsItsStatusAndTheServerKeepsServing` (its slow and
    /// chunked clients stay there): each bad request gets its status, the next is answered,
    /// and the token is never logged.
    @Test func badInputGetsItsStatusAndTheServerKeepsServing() async throws {
        let token = "tok-\(UUID().uuidString)"
        let fixture = try Fixture(options: ServeOptions(token: token))
        try await fixture.test { client in
            let auth = ["Authorization": "Bearer \(token)"]
            let flag = Self.flag
            @Sendable func works() async throws {
                let ok = try await Self.post(client, flag, "{}", headers: auth)
                #expect(ok.status == 200 && ok.body.hasPrefix(#"{"key":"string-flag","value":"hi""#), "\(ok)")
            }
            let cases: [(String, [UInt8], [String: String], Int, String)] = [
                ("malformed JSON", Array(#"{"context": {"#.utf8), auth, 400, #""errorCode":"PARSE_ERROR""#),
                ("not UTF-8", [0x7b, 0xff, 0x7d], auth, 400, #""errorCode":"PARSE_ERROR""#),
                ("10 MB body", [UInt8](repeating: 0x20, count: 10_000_000), auth, 413, "larger than 65536 bytes"),
                (
                    "deep JSON", Array(("{\"context\":{\"a\":" + String(repeating: "[", count: 100_000) + "}}").utf8), auth, 413,
                    "larger than"
                ),
                (
                    "deep context",
                    Array(("{\"context\":{\"a\":" + String(repeating: "[", count: 40) + String(repeating: "]", count: 40) + "}}").utf8),
                    auth, 400, "deeper than 32 levels"
                ),
                ("no token", Array("{}".utf8), [:], 401, "bearer token"),
                ("wrong token", Array("{}".utf8), ["Authorization": "Bearer \(token)x"], 401, "bearer token"),
                ("another scheme", Array("{}".utf8), ["Authorization": "Basic \(token)"], 401, "bearer token"),
            ]
            for (name, body, headers, status, fragment) in cases {
                let reply = try await Self.request(client, .post, flag, body: body, headers: headers)
                #expect(reply.status == status && reply.body.contains(fragment), "\(name): \(reply)")
                try await works()
            }
            let deepBody = "{\"context\":{\"a\":" + String(repeating: "[", count: 600) + String(repeating: "]", count: 600) + "}}"
            let deep = try await Self.post(client, flag, deepBody, headers: auth)
            #expect(deep.status == 400 && deep.body.contains("nested deeper than 512 levels"), "\(deep)")
            let unknown = try await Self.post(client, "/ofrep/v1/evaluate/flags/no-such-flag", "{}", headers: auth)
            #expect(
                unknown.status == 404
                    && unknown.body
                        == #"{"key":"no-such-flag","errorCode":"FLAG_NOT_FOUND","errorDetails":"flag \"no-such-flag\" not found"}"#,
                "\(unknown)")
            let error = try await Self.post(client, "/ofrep/v1/evaluate/flags/error-flag", "{}", headers: auth)
            #expect(error.status == 400 && error.body.hasPrefix(#"{"key":"error-flag","errorCode":"GENERAL""#), "\(error)")
        }
        let log = fixture.accessLog
        #expect(!log.contains(token), "the token is never logged")
        #expect(log.contains(" POST \(Self.flag) 401 ") && log.contains(" POST \(Self.flag) 413 "), "\(log)")
    }

    /// Moved from `StaticFlagAnswerTests.aPlainValueHasTheVariantStaticEverywhere` (its command
    /// half stays there, in process): a plain value of `switch` is a static flag with the
    /// variant `static`, alone and in the bulk answer (issue 38, item 1).
    @Test func aPlainValueOfSwitchHasTheVariantStatic() async throws {
        let fixture = try Fixture(flags: #"{"flags":{}}"#, switches: [("maintenance", .bool(true))])
        try await fixture.test { client in
            let expected = #"{"key":"maintenance","value":true,"reason":"STATIC","variant":"static","metadata":{}}"#
            let single = try await Self.post(client, "/ofrep/v1/evaluate/flags/maintenance", "{}")
            #expect(single.status == 200 && single.body == expected, "\(single)")
            let bulk = try await Self.post(client, "/ofrep/v1/evaluate/flags", "{}")
            #expect(bulk.status == 200 && bulk.body.contains(expected), "\(bulk)")
        }
    }

    /// Moved from `FlagRuleTests.aSchemaDefaultIsNoFlagOverOFREPOrInTheInspector` (the command
    /// line's half stays there, in process): the README tour's schema default
    /// `switch.max_retries` (3) is a value but no flag, over OFREP and in the inspector's data.
    @Test func aSchemaDefaultIsNoFlagOverOFREPOrInTheInspector() async throws {
        let token = BearerToken.random()
        let examples = repositoryRoot + "/examples/"
        let fixture = try Fixture(
            options: ServeOptions(inspectorToken: token), flags: try String(contentsOfFile: examples + "flags.json", encoding: .utf8),
            schema: try String(contentsOfFile: examples + "schema.json", encoding: .utf8))
        #expect(try fixture.stack.value(in: .switch, forKey: "max_retries") == .number("3"), "the default is still a value")
        @Sendable func keys(_ body: String) throws -> [String] {
            guard case .array(let items)? = try JSONValue(parsing: body)["flags"] else { return [] }
            return items.compactMap { $0["key"]?.stringValue }
        }
        try await fixture.test { client in
            let single = try await Self.post(client, "/ofrep/v1/evaluate/flags/max_retries", "{}")
            #expect(single.status == 404 && single.body.contains(#""errorCode":"FLAG_NOT_FOUND""#), "\(single)")
            let bulk = try await Self.post(client, "/ofrep/v1/evaluate/flags", "{}")
            let bulkKeys = try keys(bulk.body)
            #expect(bulk.status == 200 && bulkKeys == ["banner", "deploy-frozen", "new-checkout"], "\(bulk)")
            let auth = ["Authorization": "Bearer " + token]
            let flags = try await Self.request(client, .get, "/api/flags", headers: auth)
            let flagsKeys = try keys(flags.body)
            #expect(flags.status == 200 && flagsKeys == ["banner", "deploy-frozen", "new-checkout"], "\(flags)")
            let summary = try await Self.request(client, .get, "/api/summary", headers: auth)
            let summaryFlags = try JSONValue(parsing: summary.body)["flags"]
            #expect(summary.status == 200 && summaryFlags == .number("3"), "\(summary)")
        }
    }

    /// Moved from `ServeTests`: a loopback server is reachable by every user of the machine:
    /// OFREP answers them, the inspector's data needs the token printed to the owner.
    @Test func otherLocalUsersGetFlagsButNotTheStoresData() async throws {
        let token = BearerToken.random()
        let fixture = try Fixture(options: ServeOptions(inspectorToken: token), values: [("secret", "hunter2")])
        try await fixture.test { client in
            #expect(try await Self.post(client, "/ofrep/v1/evaluate/flags/boolean-flag", "{}").status == 200)
            for path in ["/api/keys?q=secret", "/api/key?domain=user&key=secret", "/api/summary", "/api/flags"] {
                let refused = try await Self.request(client, .get, path)
                #expect(refused.status == 401 && !refused.body.contains("hunter2"), "\(path): \(refused)")
            }
            let allowed = try await Self.request(
                client, .get, "/api/key?domain=user&key=secret", headers: ["Authorization": "Bearer " + token])
            #expect(allowed.status == 200 && allowed.body.contains("hunter2"), "\(allowed)")
        }
        #expect(!fixture.accessLog.contains(token), "\(fixture.accessLog)")
    }

    /// Moved from `ServeStreamsTests`: every answer says `X-Content-Type-Options: nosniff`.
    @Test func everyAnswerSaysNosniff() async throws {
        let fixture = try Fixture(options: ServeOptions(inspectorToken: BearerToken.random()))
        try await fixture.test { client in
            let evaluated = try await Self.post(client, Self.flag, "{}")
            let bulk = try await Self.post(client, "/ofrep/v1/evaluate/flags", "{}")
            let etag = try #require(bulk.header("ETag"))
            let unchanged = try await Self.post(client, "/ofrep/v1/evaluate/flags", "{}", headers: ["If-None-Match": etag])
            let missing = try await Self.post(client, "/ofrep/v1/evaluate/flags/no-such-flag", "{}")
            let unknown = try await Self.request(client, .get, "/no/such/path")
            let unauthorized = try await Self.request(client, .get, "/api/summary")
            let tooLarge = try await Self.post(client, Self.flag, String(repeating: " ", count: 70_000))
            let answers = [
                ("evaluation", evaluated, 200), ("bulk", bulk, 200), ("304", unchanged, 304), ("unknown flag", missing, 404),
                ("unknown path", unknown, 404), ("no token", unauthorized, 401), ("too large", tooLarge, 413),
            ]
            for (name, answer, status) in answers {
                #expect(answer.status == status && answer.header("X-Content-Type-Options") == "nosniff", "\(name): \(answer)")
            }
            fixture.server.stop()
            let stream = try await Self.request(client, .get, "/ofrep/v1/events")
            #expect(
                stream.status == 200 && stream.header("X-Content-Type-Options") == "nosniff" && stream.body == ": connected\n\n",
                "\(stream)")
        }
    }

    /// Moved from `ServeStreamsTests`: an empty `Last-Event-ID` is as none (no event at once);
    /// an older id gets a `refetchEvaluation` at once. (Shut down first: each stream ends after
    /// what it sends at once.)
    @Test func anEmptyLastEventIDIsNoID() async throws {
        let fixture = try Fixture()
        try await fixture.test { client in
            fixture.server.stop()
            let empty = try await Self.request(client, .get, "/ofrep/v1/events", headers: ["Last-Event-ID": ""])
            #expect(empty.status == 200 && empty.body == ": connected\n\n", "\(empty)")
            let older = try await Self.request(client, .get, "/ofrep/v1/events", headers: ["Last-Event-ID": "\"0\""])
            #expect(older.status == 200 && older.body.hasPrefix(": connected\n\n") && older.body.contains("refetchEvaluation"), "\(older)")
        }
    }

    /// An open OFREP event stream (no shutdown: the client closes it) announces a change of the
    /// flags once the poller read it: a `refetchEvaluation` with the new configuration's ETag.
    @Test func anOpenEventStreamAnnouncesAChangeOfTheFlags() async throws {
        let fixture = try Fixture()
        try await fixture.test { client in
            let before = fixture.server.core.snapshot.digest
            let (connected, arrived) = AsyncStream.makeStream(of: Void.self)
            async let stream = Self.request(client, .get, "/ofrep/v1/events") { body in
                arrived.yield()
                return body.contains("refetchEvaluation")
            }
            for await _ in connected { break }
            try fixture.stack.flags.set("boolean-flag", enabled: false)
            try fixture.server.refresh()
            let after = fixture.server.core.snapshot.digest
            let answer = try await stream
            #expect(after != before, "the flags changed")
            #expect(
                answer.status == 200 && answer.body == ": connected\n\n" + OFREP.refetchEvent(configETag: ServeCore.configETag(after)),
                "\(answer)")
        }
    }

    /// A flag whose targeting takes about 240,000 evaluation steps (a `reduce` inside a
    /// `reduce`, 200 items each).
    static func heavyFlag(_ name: String) -> String {
        let items = (0..<200).map(String.init).joined(separator: ",")
        let inner = #"{"reduce":[[\#(items)],{"+":[{"var":"accumulator"},{"var":"current"}]},0]}"#
        let outer = #"{"reduce":[[\#(items)],{"+":[{"var":"accumulator"},\#(inner)]},0]}"#
        return #""\#(name)":{"state":"ENABLED","variants":{"big":"big","small":"small"},"defaultVariant":"small","#
            + #""targeting":{"if":[{">":[\#(outer),1000]},"big","small"]}}"#
    }

    /// Moved from `ServeLimitsTests`: a request over its step budget (`--max-steps`) gets an
    /// error while other clients ask for heavy flags in a loop, and simple evaluations are
    /// answered meanwhile.
    @Test func aRequestOverItsStepBudgetGetsAnErrorWhileOthersAreAnswered() async throws {
        let document =
            #"{"flags":{\#(Self.heavyFlag("heavy-a")),\#(Self.heavyFlag("heavy-b")),"#
            + #""string-flag":{"state":"ENABLED","variants":{"greeting":"hi"},"defaultVariant":"greeting"}}}"#
        // 400,000 steps: one heavy flag fits, two do not.
        let roomy = try Fixture(options: ServeOptions(maximumSteps: 400_000), flags: document)
        let evaluated = try roomy.stack.flags.evaluate("heavy-a", type: .string, default: .string("x"), context: .object([]))
        #expect(evaluated.value == .string("big"), "the library answers the heavy flag: \(evaluated)")
        try await roomy.test { client in
            let one = try await Self.post(client, "/ofrep/v1/evaluate/flags/heavy-a", "{}")
            #expect(one.status == 200 && one.body.hasPrefix(#"{"key":"heavy-a","value":"big""#), "\(one)")
        }
        // 100,000 steps: each heavy flag is over; clients ask for them in a loop meanwhile.
        let tight = try Fixture(options: ServeOptions(maximumSteps: 100_000), flags: document)
        try await tight.test { client in
            let single = try await Self.post(client, "/ofrep/v1/evaluate/flags/heavy-a", "{}")
            #expect(
                single.status == 400
                    && single.body.hasPrefix(#"{"key":"heavy-a","errorCode":"GENERAL","errorDetails":"targeting of \"heavy-a\": "#)
                    && single.body.contains("budget of 100000 evaluation steps"), "\(single)")
            let bulk = try await Self.post(client, "/ofrep/v1/evaluate/flags", "{}")
            #expect(bulk.status == 500 && bulk.body.contains("budget of 100000 steps (prefs serve --max-steps)"), "\(bulk)")

            final class Load: Sendable {
                let stop = Atomic(false)
                let heavyAnswers = Atomic(0)
                let unexpected = Mutex<[String]>([])
            }
            let load = Load()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<4 {
                    group.addTask {
                        while !load.stop.load(ordering: .relaxed) {
                            let reply =
                                index % 2 == 0
                                ? try await Self.post(client, "/ofrep/v1/evaluate/flags", "{}")
                                : try await Self.post(client, "/ofrep/v1/evaluate/flags/heavy-b", "{}")
                            if reply.status == (index % 2 == 0 ? 500 : 400) {
                                load.heavyAnswers.add(1, ordering: .relaxed)
                            } else {
                                load.unexpected.withLock { $0.append("\(reply.status) \(reply.body.prefix(200))") }
                            }
                        }
                    }
                }
                var simple: [(Int, String, Double)] = []
                for _ in 0..<20 {
                    let started = ContinuousClock.now
                    let reply = try await Self.post(client, Self.flag, "{}")
                    let elapsed = ContinuousClock.now - started
                    simple.append(
                        (reply.status, reply.body, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18))
                }
                load.stop.store(true, ordering: .relaxed)
                try await group.waitForAll()
                #expect(simple.allSatisfy { $0.0 == 200 && $0.1.hasPrefix(Self.expected) }, "\(simple)")
                #expect(simple.allSatisfy { $0.2 < 5 }, "each simple evaluation answered within 5 s: \(simple.map(\.2))")
            }
            let unexpected = load.unexpected.withLock { $0 }
            #expect(load.heavyAnswers.load(ordering: .relaxed) > 0 && unexpected.isEmpty, "\(unexpected)")
        }
    }

    /// The thread the poller tests run their service groups and their waits on: the tests that
    /// run a prefs process block the cooperative pool's threads (one per core) while it runs,
    /// and a group waiting for one of them ended seconds after shutdown in full runs.
    static let pollerThread = ThreadExecutor(name: "prefs-serve-tests-poller")

    /// Whether `running` ended within `bound`.
    static func ended(_ running: Task<Void, any Error>, within bound: Duration) async -> Bool {
        await withTaskGroup(of: Bool.self) { waiting in
            waiting.addTask {
                _ = try? await running.value
                return true
            }
            waiting.addTask {
                try? await Task.sleep(for: bound)
                return false
            }
            let first = await waiting.next() ?? false
            waiting.cancelAll()
            return first
        }
    }

    /// The poller (what prefs-serve runs beside the application) serves another connection's
    /// commit, and ends when shutdown begins (20 times). The race its order guards against (a
    /// wait of the monitor begun after its cancel never ends) showed in the binary, in
    /// `ServeStreamsTests`, not here: in process the stop wins it.
    @Test func thePollerServesAnotherConnectionsCommitAndEndsAtShutdown() async throws {
        let fixture = try Fixture()
        var logger = Logger(label: "prefs-serve-test")
        logger.logLevel = .critical
        let environment = ["XDG_RUNTIME_DIR": fixture.directory]
        let other = try KeyValueStack(
            path: fixture.directory + "/prefs.db", options: .init(memoryTier: .inProcess, environment: environment))
        let request = ServeRequest(method: "POST", path: "/ofrep/v1/evaluate/flags/boolean-flag", body: Array("{}".utf8))
        try await withTaskExecutorPreference(Self.pollerThread) {
            for round in 0..<20 {
                let (server, monitor, group, running) = try Self.startPoller(fixture, environment: environment, logger: logger)
                if round == 0 {
                    #expect(server.core.handle(request).text.contains(#""reason":"STATIC""#))
                    try other.flags.set("boolean-flag", enabled: false)
                    let deadline = ContinuousClock.now + .seconds(10)
                    var served = false
                    while !served && ContinuousClock.now < deadline {
                        served = server.core.handle(request).text.contains(#""reason":"DISABLED""#)
                        if !served { try await Task.sleep(for: .milliseconds(10)) }
                    }
                    #expect(served, "the other connection's commit is served within 10 s")
                }
                await group.triggerGracefulShutdown()
                let ended = await Self.ended(running, within: .seconds(10))
                #expect(ended, "round \(round): the poller ended within 10 s of shutdown")
                if !ended {
                    running.cancel()
                    monitor.cancel()
                    break
                }
            }
        }
    }

    /// A server on the fixture's core and its store poller (polling every 20 ms), its service
    /// group running on ``pollerThread``.
    static func startPoller(_ fixture: Fixture, environment: [String: String], logger: Logger) throws -> (
        ServeServer, StoreChangeMonitor, ServiceGroup, Task<Void, any Error>
    ) {
        let server = ServeServer(core: fixture.server.core)
        let monitor = try fixture.stack.changeMonitor(pollInterval: .milliseconds(20), environment: environment)
        let poller = server.poller(stack: fixture.stack, monitor: monitor) { _ in }
        let group = ServiceGroup(configuration: .init(services: [poller], logger: logger))
        let running = Task(executorPreference: pollerThread) { try await group.run() }
        return (server, monitor, group, running)
    }

    /// The poller ends at shutdown while every thread of the cooperative pool is blocked (as a
    /// test that runs a prefs process blocks its own): its group and the waits are on a thread
    /// of their own, the monitor's wait on the monitor's. Without that thread the group ended
    /// only once the pool's threads were free again (the known issue of full runs).
    @Test func thePollerEndsAtShutdownWhileThePoolIsBlocked() async throws {
        let fixture = try Fixture()
        var logger = Logger(label: "prefs-serve-test")
        logger.logLevel = .critical
        let environment = ["XDG_RUNTIME_DIR": fixture.directory]
        final class Blockers: Sendable {
            let started = Atomic(0)
            let release = DispatchSemaphore(value: 0)
        }
        let width = ProcessInfo.processInfo.activeProcessorCount
        try await withTaskExecutorPreference(Self.pollerThread) {
            for round in 0..<3 {
                let (_, monitor, group, running) = try Self.startPoller(fixture, environment: environment, logger: logger)
                // One blocked task per thread of the pool (at most 30 s each: released below).
                let blockers = Blockers()
                for _ in 0..<width {
                    Task.detached {
                        blockers.started.add(1, ordering: .relaxed)
                        _ = blockers.release.wait(timeout: .now() + 30)
                    }
                }
                let deadline = ContinuousClock.now + .seconds(10)
                while blockers.started.load(ordering: .relaxed) < width && ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(5))
                }
                await group.triggerGracefulShutdown()
                let ended = await Self.ended(running, within: .seconds(5))
                for _ in 0..<width { blockers.release.signal() }
                #expect(ended, "round \(round): the poller ended within 5 s of shutdown with the pool blocked")
                if !ended {
                    running.cancel()
                    monitor.cancel()
                    break
                }
            }
        }
    }
}
