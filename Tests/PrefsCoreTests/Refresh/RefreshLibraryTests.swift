import Foundation
import PrefsCore
import PrefsTestSupport
import Synchronization
import Testing

/// `KeyValueStack.refresh` through the library with an injected fetcher (issue 39: refresh was
/// tested only through the binary and its HTTP helper). The fetcher answers what a server
/// would and records the requests, so each rule is checked on what was sent and what the
/// domain holds afterwards.
@Suite("refresh through the library", .timeLimit(.minutes(1)))
struct RefreshLibraryTests {
    /// Answers each GET with the next of `answers` (the last one repeats), remembering what
    /// was asked.
    final class ScriptedServer: HTTPFetcher {
        struct Request: Sendable, Equatable {
            var url: String
            var headers: [String: String]
        }
        enum Answer: Sendable {
            case response(HTTPResponse)
            case unreachable(String)
        }
        private let state: Mutex<(answers: [Answer], requests: [Request])>

        init(_ answers: [Answer]) {
            state = Mutex((answers, []))
        }

        var requests: [Request] { state.withLock { $0.requests } }

        func get(_ url: String, timeout: Duration, headers: [String: String]) async throws -> HTTPResponse {
            let answer = state.withLock { state in
                state.requests.append(Request(url: url, headers: headers))
                return state.answers.count > 1 ? state.answers.removeFirst() : state.answers[0]
            }
            switch answer {
            case .response(let response): return response
            case .unreachable(let cause): throw PrefsError(.unreachable, cause)
            }
        }
    }

    static func ok(_ body: String, etag: String? = nil) -> ScriptedServer.Answer {
        .response(HTTPResponse(status: 200, etag: etag, lastModified: nil, body: Array(body.utf8)))
    }

    static let url = "https://config.example.com/app.json"

    /// A new copy replaces the domain; the ETag is sent back next time and a 304 keeps the
    /// copy; a failed fetch or an invalid document keeps it too, and the status says why.
    @Test func aGoodCopyIsKeptThroughNotModifiedFailuresAndBadDocuments() async throws {
        let store = try TemporaryStore()
        let stack = try store.open()
        let server = ScriptedServer([
            Self.ok(#"{"endpoint":"https://a.example","retries":3}"#, etag: "\"v1\""),
            .response(HTTPResponse(status: 304, etag: nil, lastModified: nil, body: [])),
            .unreachable("connection refused"),
            Self.ok(#"{"endpoint": 1, "#),
        ])
        let first = try await stack.refresher.refresh(.dynamic, from: Self.url, http: server)
        #expect(first.outcome == .updated && first.keys == 2)
        #expect(try stack.value(in: .dynamic, forKey: "retries") == .number("3"))

        let second = try await stack.refresher.refresh(.dynamic, http: server)
        #expect(second.outcome == .notModified && second.keys == 2)
        #expect(server.requests.map(\.url) == [Self.url, Self.url])
        #expect(server.requests.last?.headers["If-None-Match"] == "\"v1\"", "\(server.requests)")

        for cause in ["connection refused", "invalid document"] {
            await #expect {
                try await stack.refresher.refresh(.dynamic, http: server)
            } throws: { error in
                let error = error as? PrefsError
                return error?.kind == .unreachable && error?.message.contains(cause) == true
            }
            #expect(try stack.value(in: .dynamic, forKey: "endpoint") == .string("https://a.example"), "the copy is kept")
        }
        let status = try #require(try stack.refresher.status().first)
        #expect(status.domain == .dynamic && status.source == Self.url && status.lastSuccessAt != nil)
        #expect(status.lastFailure?.contains("invalid document") == true, "\(status)")
    }

    /// The copy replaces the domain whole (a key the server dropped is gone), and `maxAge`
    /// answers from a young copy without asking the server.
    @Test func theDomainIsReplacedWholeAndAYoungCopyIsNotFetched() async throws {
        let store = try TemporaryStore()
        let stack = try store.open()
        let server = ScriptedServer([Self.ok(#"{"a":1,"b":2}"#), Self.ok(#"{"a":5}"#)])
        try await stack.refresher.refresh("remote", from: Self.url, http: server)
        try await stack.refresher.refresh("remote", http: server)
        #expect(try stack.entries(in: "remote").map(\.key) == ["a"])
        #expect(try stack.value(in: "remote", forKey: "a") == .number("5"))
        let fresh = try await stack.refresher.refresh("remote", maxAge: .seconds(3600), http: server)
        #expect(fresh.outcome == .fresh && fresh.keys == 1)
        #expect(server.requests.count == 2)
    }

    /// A password in the URL is refused before anything is sent or stored; without a fetcher
    /// an http source cannot be refreshed, and a file source needs none.
    @Test func passwordsAreRefusedAndFilesNeedNoFetcher() async throws {
        let store = try TemporaryStore()
        let stack = try store.open()
        let server = ScriptedServer([Self.ok("{}")])
        await #expect {
            try await stack.refresher.refresh(.dynamic, from: "https://me:secret@config.example.com/x.json", http: server)
        } throws: { error in
            let error = error as? PrefsError
            return error?.kind == .usage && error?.message.contains("secret") == false
        }
        #expect(server.requests.isEmpty)
        #expect(try stack.refresher.status().isEmpty, "nothing remembered")

        let file = store.directory + "/dynamic.json"
        try #"{"from":"file"}"#.write(toFile: file, atomically: true, encoding: .utf8)
        let result = try await stack.refresher.refresh(.dynamic, from: file)
        #expect(result.outcome == .updated && result.keys == 1)
        #expect(try stack.value(in: .dynamic, forKey: "from") == .string("file"))
    }
}
