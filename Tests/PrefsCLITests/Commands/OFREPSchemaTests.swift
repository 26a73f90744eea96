import Foundation
import PrefsCore
import Testing

/// Issue 30, item 6: every kind of OFREP answer of `prefs serve` validates against the
/// protocol's OpenAPI document (Fixtures/ofrep: open-feature/protocol's openapi.yaml and what
/// OFREP 0.2/0.3 add), checked by jsonschema in the Python clients' venv; the bulk answer
/// advertises its event stream, which a real HTTP client (curl) follows.
@Suite("prefs serve: OFREP as written", .serialized, .timeLimit(.minutes(5)), .ownThreads)
struct OFREPSchemaTests {
    static let single = "/ofrep/v1/evaluate/flags/{key}"
    static let bulk = "/ofrep/v1/evaluate/flags"

    /// One answer to validate: the document's path template, the status and the body received.
    struct Answer {
        var name: String
        var path: String
        var exchange: HTTPExchange

        var json: JSONValue {
            .object([
                .init("name", .string(name)), .init("path", .string(path)), .init("status", .number(String(exchange.status))),
                .init("body", .string(exchange.body)),
            ])
        }
    }

    /// Runs ofrep_schema.py over the cases; its output lines.
    static func validate(_ cases: [JSONValue], in box: Sandbox) throws -> RunResult {
        let python = try PythonClients.python.get()
        let file = box.root + "/ofrep-cases.json"
        try JSONValue.array(cases).compactText.write(toFile: file, atomically: true, encoding: .utf8)
        return try Sandbox.exec(
            python, [PythonClients.fixtures + "/ofrep_schema.py", file], stdin: nil, environment: ProcessInfo.processInfo.environment)
    }

    @Test(.tags(.network), .enabled("needs python3 -m venv and PyPI (jsonschema, PyYAML)") { await PythonClients.available() })
    func everyAnswerValidatesAgainstTheOpenAPIDocument() throws {
        let box = try ServeTests().imported()
        let server = try ServeProcess(box)
        var answers: [Answer] = []
        func single(_ name: String, _ flag: String, _ body: String) throws -> HTTPExchange {
            let exchange = try HTTPExchange.post(server.port, "/ofrep/v1/evaluate/flags/" + flag, body)
            answers.append(Answer(name: name, path: Self.single, exchange: exchange))
            return exchange
        }
        // Every flag of the testbed, with contexts that reach each of its answers.
        let flags = Swift.Set(ServeClientTests.flags.map(\.0)).sorted()
        for flag in flags {
            for (index, context) in ServeClientTests.contexts.enumerated() {
                _ = try single("\(flag) context \(index)", flag, #"{"context":\#(context)}"#)
            }
        }
        let statuses = Swift.Set(answers.map(\.exchange.status))
        #expect(statuses == [200, 400, 404], "\(statuses)")

        // A disabled flag, and one whose default variant is null: a code default, without
        // `value`, with the variant "" (the document's variant is a string; the Python provider
        // needs the member: issue 38).
        let disabled = try single("disabled", "disabled-flag", "{}")
        #expect(
            disabled.status == 200
                && disabled.body
                    == #"{"key":"disabled-flag","reason":"DISABLED","variant":"","metadata":{"flagSetId":"testbed","version":3}}"#,
            "\(disabled)")
        let nullDefault = try single("null default variant", "null-default-flag", "{}")
        #expect(
            nullDefault.status == 200 && nullDefault.body.contains(#""reason":"DEFAULT","variant":"","#)
                && !nullDefault.body.contains("value"),
            "\(nullDefault)")
        #expect(!answers.contains { $0.exchange.body.contains(#""variant":null"#) }, "no answer sends a null variant")

        // Failures: a malformed body, a context that is not an object, a flag that does not exist.
        #expect(try single("malformed body", "boolean-flag", "{").status == 400)
        #expect(try single("context not an object", "boolean-flag", #"{"context":[1]}"#).status == 400)
        #expect(try single("no such flag", "no-such-flag", "{}").status == 404)

        // Every flag at once: 200 with the event stream, 304 for the same ETag, 400 for a bad body.
        let all = try HTTPExchange.post(server.port, "/ofrep/v1/evaluate/flags", #"{"context":{"targetingKey":"u1"}}"#)
        answers.append(Answer(name: "bulk", path: Self.bulk, exchange: all))
        let document = try JSONValue(parsing: all.body)
        let streams = document["eventStreams"]
        #expect(
            streams
                == .array([
                    .object([.init("type", .string("sse")), .init("url", .string("http://127.0.0.1:\(server.port)/ofrep/v1/events"))])
                ]), "\(all.body)")
        let etag = try #require(all.header("ETag"))
        let same = try HTTPExchange.post(
            server.port, "/ofrep/v1/evaluate/flags", #"{"context":{"targetingKey":"u1"}}"#, headers: ["If-None-Match": etag])
        #expect(same.status == 304 && same.body.isEmpty, "\(same)")
        answers.append(Answer(name: "bulk not modified", path: Self.bulk, exchange: same))
        let badBulk = try HTTPExchange.post(server.port, "/ofrep/v1/evaluate/flags", "[1]")
        #expect(badBulk.status == 400, "\(badBulk)")
        answers.append(Answer(name: "bulk malformed body", path: Self.bulk, exchange: badBulk))
        #expect(server.stop().status == 0)

        // 401 (a token is set) and 500 (every flag at once over --max-steps).
        let guarded = try ServeProcess(box, ["--max-steps", "3"], environment: ["PREFS_SERVE_TOKEN": "t0ken"])
        let unauthorized = try HTTPExchange.post(guarded.port, "/ofrep/v1/evaluate/flags/boolean-flag", "{}")
        #expect(unauthorized.status == 401, "\(unauthorized)")
        answers.append(Answer(name: "no token", path: Self.single, exchange: unauthorized))
        // The event stream needs the token too.
        let stream = try HTTPExchange.request(guarded.port, "GET", "/ofrep/v1/events")
        #expect(stream.status == 401, "\(stream)")
        let overBudget = try HTTPExchange.post(
            guarded.port, "/ofrep/v1/evaluate/flags", #"{"context":{"targetingKey":"u1"}}"#, headers: ["Authorization": "Bearer t0ken"])
        #expect(overBudget.status == 500, "\(overBudget)")
        answers.append(Answer(name: "bulk over budget", path: Self.bulk, exchange: overBudget))
        #expect(guarded.stop().status == 0)

        let validated = try Self.validate(answers.map(\.json), in: box)
        #expect(validated.status == 0, "\(validated)")
        let lines = validated.stdout.split(separator: "\n").map(String.init)
        #expect(lines.filter { $0.hasPrefix("ok ") }.count == answers.count, "\(validated)")
        // The document's oneOf read literally rejects answers with a value (integerFlag and
        // floatFlag both take an integer; codeDefaultFlag takes any object): read as meant.
        #expect(lines.contains("literal integer-flag context 0: fails"), "\(validated)")
        #expect(lines.contains("literal bulk: fails"), "\(validated)")
    }

    @Test(.tags(.network), .enabled("needs python3 -m venv and PyPI (jsonschema, PyYAML)") { await PythonClients.available() })
    func theEventStreamAnnouncesChangesAndTheRefetchAnswersTheNewFlags() throws {
        let box = try ServeTests().imported()
        let server = try ServeProcess(box)
        let context = #"{"context":{"targetingKey":"u1"}}"#
        let first = try HTTPExchange.post(server.port, "/ofrep/v1/evaluate/flags", context)
        let firstETag = try #require(first.header("ETag"))
        #expect(first.body.contains(#"{"key":"boolean-flag","value":true,"reason":"STATIC","variant":"on""#), "\(first)")
        guard case .array(let streams) = try JSONValue(parsing: first.body)["eventStreams"], let url = streams.first?["url"]?.stringValue
        else {
            Issue.record("no event stream advertised: \(first)")
            #expect(server.stop().status == 0)
            return
        }

        // curl follows the stream as a provider would.
        let curl = try Running(["-sN", url], environment: ProcessInfo.processInfo.environment, executable: "/usr/bin/curl")
        #expect(curl.waitForLines(1, timeout: 10), "the stream opens with a comment")
        // A write outside `switch` is no flag change: no event.
        try box.runOK(["set", "user", "theme", "dark"])
        Thread.sleep(forTimeInterval: 1.2)
        #expect(!curl.lines.snapshot().contains { $0.hasPrefix("data:") }, "\(curl.lines.snapshot())")

        // `prefs flag disable` from another process: one event, within a second.
        let changedAt = Date()
        try box.runOK(["flag", "disable", "boolean-flag"])
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline && !curl.lines.snapshot().contains(where: { $0.hasPrefix("data:") }) { usleep(10_000) }
        let elapsed = Date().timeIntervalSince(changedAt)
        // SIGKILL: a child of the test runner starts with SIGTERM blocked, which curl keeps.
        let lines = curl.finish(signal: SIGKILL).stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let dataLine = try #require(lines.first { $0.hasPrefix("data: ") }, "\(lines)")
        #expect(elapsed < 1.0, "announced after \(elapsed) s")
        let data = String(dataLine.dropFirst("data: ".count))
        let event = try JSONValue(parsing: data)
        #expect(event["type"] == .string("refetchEvaluation"), "\(data)")
        let configTag = try #require(event["etag"]?.stringValue)
        #expect(lines.contains("event: message") && lines.contains("id: " + configTag), "\(lines)")
        let validated = try Self.validate(
            [.object([.init("name", .string("refetchEvaluation")), .init("event", .string("message")), .init("data", .string(data))])],
            in: box)
        #expect(validated.status == 0 && validated.stdout == "ok refetchEvaluation\n", "\(validated)")

        // The re-fetch with flagConfigEtag (and the ETag held): the new answer.
        let encoded = try #require(configTag.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        let refetched = try HTTPExchange.post(
            server.port, "/ofrep/v1/evaluate/flags?flagConfigEtag=" + encoded, context, headers: ["If-None-Match": firstETag])
        #expect(refetched.status == 200, "\(refetched)")
        #expect(refetched.body.contains(#"{"key":"boolean-flag","reason":"DISABLED","variant":"","metadata":{"#), "\(refetched)")
        #expect(refetched.header("ETag") != firstETag)

        // Reconnecting with the id of an older configuration: the missed event at once; with
        // the current one, none.
        for (lastID, missed) in [(#""0000000000000000""#, true), (configTag, false)] {
            let again = try Running(
                ["-sN", "-H", "Last-Event-ID: " + lastID, url], environment: ProcessInfo.processInfo.environment,
                executable: "/usr/bin/curl")
            #expect(again.waitForLines(1, timeout: 10))
            Thread.sleep(forTimeInterval: 0.8)
            let received = again.finish(signal: SIGKILL).stdout
            #expect(received.contains("data: " + data) == missed, "Last-Event-ID \(lastID): \(received)")
        }
        #expect(server.stop().status == 0)
    }
}
