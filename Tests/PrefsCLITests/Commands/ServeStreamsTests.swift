import Foundation
import PrefsTestSupport
import Testing

/// `prefs serve`'s event streams (`/ofrep/v1/events`, the inspector's `/api/events`) under a
/// client that opens many (their heads and `Last-Event-ID` are in `ServeApplicationTests`).
@Suite("prefs serve event streams", .serialized, .timeLimit(.minutes(5)), .ownThreads)
struct ServeStreamsTests {
    static let flag = "/ofrep/v1/evaluate/flags/string-flag"
    static let expected = #"{"key":"string-flag","value":"hi""#

    /// Opens an event stream from `source`: the answer's head and what followed it (up to the
    /// `: connected` comment of a stream, or the end of a refusal's JSON).
    static func openStream(
        _ port: Int, _ path: String = "/ofrep/v1/events", from source: String, headers: String = ""
    ) throws -> (client: ClientSocket, received: String) {
        let client = try ClientSocket(port: port, from: source)
        guard client.send("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(headers)\r\n") else {
            client.close()
            throw ServeTestError(description: "cannot send from \(source)")
        }
        return (client, client.read(until: ": connected\n\n", "}", within: 10))
    }

    static func status(_ received: String) -> Int? { Int(received.split(separator: " ").dropFirst().first ?? "") }

    @Test func streamsPastTheCapGet503WhileEvaluationAndTheInspectorAnswer() throws {
        let box = try ServeTests().imported()
        let server = try ServeProcess(box, ["--no-access-log"])
        let token = try #require(server.inspectorToken)
        // 32 streams (the default cap) from 16 loopback addresses (each its own, to a server
        // that counted addresses by their spelling).
        var streams: [ClientSocket] = []
        defer { for stream in streams { stream.close() } }
        for index in 0..<32 {
            let (client, received) = try Self.openStream(server.port, from: "127.0.0.\(2 + index % 16)")
            streams.append(client)
            #expect(Self.status(received) == 200 && received.contains(": connected"), "stream \(index + 1): \(received.debugDescription)")
        }
        // The next one, OFREP's or the inspector's, is refused at once: 503, Retry-After, JSON.
        for (path, headers) in [("/ofrep/v1/events", ""), ("/api/events", "Authorization: Bearer \(token)\r\n")] {
            let started = Date()
            let extra = try ClientSocket(port: server.port, from: "127.0.0.40")
            #expect(extra.send("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(headers)\r\n"))
            let refused = try extra.readFullAnswer()
            let waited = Date().timeIntervalSince(started)
            extra.close()
            let head = refused.head.lowercased()
            #expect(
                refused.status == 503 && head.contains("\r\nretry-after: ") && head.contains("\r\ncontent-type: application/json")
                    && refused.body.contains(#""errorDetails":"too many event streams are open"#),
                "\(path): \(refused)")
            #expect(waited < 2, "\(path) refused after \(waited) s")
        }
        // Ordinary requests are answered meanwhile, from loopback too.
        var started = Date()
        let evaluator = try ClientSocket(port: server.port, from: "127.0.0.41")
        let evaluated = try evaluator.exchange("POST", Self.flag, "{}", close: true)
        evaluator.close()
        #expect(evaluated.status == 200 && evaluated.body.hasPrefix(Self.expected), "\(evaluated)")
        #expect(Date().timeIntervalSince(started) < 2, "evaluated after \(Date().timeIntervalSince(started)) s")
        started = Date()
        let page = try HTTPExchange.request(server.port, "GET", "/")
        let summary = try HTTPExchange.request(server.port, "GET", "/api/summary", headers: ["Authorization": "Bearer \(token)"])
        #expect(page.status == 200 && summary.status == 200 && summary.body.hasPrefix("{"), "\(page.status) \(summary)")
        #expect(Date().timeIntervalSince(started) < 2, "the inspector answered after \(Date().timeIntervalSince(started)) s")
        // Every stream open still is; once they close, their places are given back.
        for stream in streams { #expect(!stream.closedByServer(within: 0.01).closed, "an admitted stream was closed") }
        for stream in streams { stream.close() }
        streams = []
        started = Date()
        var admitted = 0
        while admitted < 32 && Date().timeIntervalSince(started) < 5 {
            let (client, received) = try Self.openStream(server.port, from: "127.0.0.\(2 + admitted % 16)")
            if Self.status(received) == 200 {
                streams.append(client)
                admitted += 1
            } else {
                client.close()
                Thread.sleep(forTimeInterval: 0.05)
            }
        }
        #expect(admitted == 32, "streams admitted again within \(Date().timeIntervalSince(started)) s: \(admitted)")
        let stopped = server.stop()
        #expect(stopped.status == 0, "\(stopped)")
    }

    @Test func theStreamCapIsAnOption() throws {
        let box = try ServeTests().imported()
        let server = try ServeProcess(box, ["--max-event-streams", "2", "--no-access-log"])
        let first = try Self.openStream(server.port, from: "127.0.0.2")
        let second = try Self.openStream(server.port, from: "127.0.0.3")
        let third = try Self.openStream(server.port, from: "127.0.0.4")
        #expect(Self.status(first.received) == 200 && Self.status(second.received) == 200, "\(first.received) \(second.received)")
        #expect(Self.status(third.received) == 503, "\(third.received)")
        // Its connection is closed after the answer: it does not hold one of its host's places.
        #expect(third.received.lowercased().contains("\r\nconnection: close\r\n"), "\(third.received)")
        #expect(third.client.closedByServer(within: 3).closed, "the refused stream's connection stayed open")
        third.client.close()
        // A stream whose client goes gives its place back at once (not at its next ping, 15 s on).
        first.client.close()
        let started = Date()
        var again: (client: ClientSocket, received: String)?
        while again == nil && Date().timeIntervalSince(started) < 5 {
            let attempt = try Self.openStream(server.port, from: "127.0.0.5")
            if Self.status(attempt.received) == 200 { again = attempt } else { attempt.client.close() }
        }
        let waited = Date().timeIntervalSince(started)
        #expect(again != nil && waited < 2, "a place given back after \(waited) s")
        again?.client.close()
        second.client.close()
        let stopped = server.stop()
        #expect(stopped.status == 0, "\(stopped)")

        // One host may hold half its connections as streams: loopback with 4 connections, 2.
        let small = try ServeProcess(box, ["--max-connections-per-address", "4", "--no-access-log"])
        let held = try (2...3).map { try Self.openStream(small.port, from: "127.0.0.\($0)") }
        let over = try Self.openStream(small.port, from: "127.0.0.4")
        #expect(held.allSatisfy { Self.status($0.received) == 200 } && Self.status(over.received) == 503, "\(held) \(over)")
        over.client.close()
        let evaluator = try ClientSocket(port: small.port, from: "127.0.0.5")
        let evaluated = try evaluator.exchange("POST", Self.flag, "{}", close: true)
        evaluator.close()
        #expect(evaluated.status == 200 && evaluated.body.hasPrefix(Self.expected), "\(evaluated)")
        for stream in held { stream.client.close() }
        let smallStopped = small.stop()
        #expect(smallStopped.status == 0, "\(smallStopped)")
        let refused = try box.run(["serve", "--max-event-streams", "0"], expecting: 2)
        #expect(refused.status == 2 && refused.stderr.contains("--max-event-streams must be at least 1"), "\(refused)")
    }
}
