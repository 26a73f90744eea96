import Foundation
import PrefsCore
import PrefsTestSupport
import Synchronization
import Testing

/// A raw connection to a local server from a chosen loopback address (127.0.0.0/8 is all
/// this machine's: a second address is a second client).
struct ClientSocket {
    let fd: Int32

    init(port: Int, from source: String = "127.0.0.1") throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ServeTestError(description: "socket: errno \(errno)") }
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_addr.s_addr = inet_addr(source)
        var remote = sockaddr_in()
        remote.sin_family = sa_family_t(AF_INET)
        remote.sin_port = in_port_t(UInt16(port).bigEndian)
        remote.sin_addr.s_addr = inet_addr("127.0.0.1")
        let size = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &local) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, size) } }
        let connected = withUnsafePointer(to: &remote) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Foundation.connect(fd, $0, size) }
        }
        guard bound == 0, connected == 0 else {
            let error = errno
            Glibc.close(fd)
            throw ServeTestError(description: "cannot connect from \(source) to port \(port): errno \(error)")
        }
    }

    func send(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Foundation.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent <= 0 { return false }
            offset += sent
        }
        return true
    }

    /// Whether the server closed the connection within `seconds` (end of file, or a reset),
    /// with what it sent before.
    func closedByServer(within seconds: Double) -> (closed: Bool, received: String) {
        let deadline = Date().addingTimeInterval(seconds)
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while Date() < deadline {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 50) > 0 else { continue }
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 { return (true, String(decoding: received, as: UTF8.self)) }
            received += buffer[0..<count]
        }
        return (false, String(decoding: received, as: UTF8.self))
    }

    /// One request on this connection (keep-alive unless `close`): the status and body of
    /// the answer (Content-Length framed).
    func exchange(_ method: String, _ path: String, _ body: String = "", close: Bool = false) throws -> (status: Int, body: String) {
        let head =
            "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            + "Content-Length: \(body.utf8.count)\r\n" + (close ? "Connection: close\r\n" : "") + "\r\n"
        guard send(head + body) else { throw ServeTestError(description: "cannot send") }
        return try readAnswer()
    }

    /// What the server sent until one of `markers` arrived, or `seconds` passed, or it closed.
    func read(until markers: String..., within seconds: Double) -> String {
        let deadline = Date().addingTimeInterval(seconds)
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while Date() < deadline && !markers.contains(where: { String(decoding: received, as: UTF8.self).contains($0) }) {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 20) > 0 else { continue }
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 { break }
            received += buffer[0..<count]
        }
        return String(decoding: received, as: UTF8.self)
    }

    func readAnswer() throws -> (status: Int, body: String) {
        let answer = try readFullAnswer()
        return (answer.status, answer.body)
    }

    /// The status, head and body of an answer (Content-Length framed; a streamed answer's
    /// head alone).
    func readFullAnswer() throws -> (status: Int, head: String, body: String) {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            let text = String(decoding: received, as: UTF8.self)
            if let split = text.range(of: "\r\n\r\n") {
                let head = text[..<split.lowerBound]
                let length =
                    head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                    .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
                let body = Array(text[split.upperBound...].utf8)
                if body.count >= length, let status = Int(head.split(separator: " ").dropFirst().first ?? "") {
                    return (status, String(head), String(decoding: body.prefix(length), as: UTF8.self))
                }
            }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 100) > 0 else { continue }
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 { break }
            received += buffer[0..<count]
        }
        throw ServeTestError(description: "no complete answer: \(String(decoding: received, as: UTF8.self).debugDescription)")
    }

    func close() { _ = Glibc.close(fd) }
}

/// `prefs serve` under a client that takes more than its share: connections per address, the
/// request head's deadline, a request's evaluation steps.
@Suite("prefs serve limits", .serialized, .timeLimit(.minutes(5)), .ownThreads)
struct ServeLimitsTests {
    static let flag = "/ofrep/v1/evaluate/flags/string-flag"
    static let expected = #"{"key":"string-flag","value":"hi""#

    @Test func connectionsPastTheCapFromOneAddressAreClosedWhileOthersAreServed() throws {
        let box = try ServeTests().imported()
        let server = try ServeProcess(box, ["--max-connections-per-address", "8", "--head-timeout", "60s", "--read-timeout", "60s"])
        // Eight slow clients from 127.0.0.1: half a head each, then nothing.
        var held: [ClientSocket] = []
        for _ in 0..<8 {
            let client = try ClientSocket(port: server.port)
            #expect(client.send("POST \(Self.flag) HTTP/1.1\r\nHost: 127.0.0.1\r\n"))
            held.append(client)
        }
        // The ninth to twelfth from the same address are closed as they are accepted.
        for index in 0..<4 {
            let extra = try ClientSocket(port: server.port)
            _ = extra.send("POST \(Self.flag) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n\r\n{}")
            let (closed, received) = extra.closedByServer(within: 10)
            #expect(closed && received.isEmpty, "connection \(9 + index): closed \(closed), answered \(received.debugDescription)")
            extra.close()
        }
        // Another loopback address is the same host (all of 127.0.0.0/8 is this machine): it
        // does not get more places.
        for source in ["127.0.0.2", "127.1.2.3"] {
            let other = try ClientSocket(port: server.port, from: source)
            _ = other.send("POST \(Self.flag) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n\r\n{}")
            let (closed, received) = other.closedByServer(within: 10)
            #expect(closed && received.isEmpty, "from \(source): closed \(closed), answered \(received.debugDescription)")
            other.close()
        }
        // The eight held are still open, and one finishes its request and is answered.
        for client in held { #expect(!client.closedByServer(within: 0.05).closed, "a connection under the cap was closed") }
        #expect(held[0].send("Content-Length: 2\r\nConnection: close\r\n\r\n{}"))
        let finished = try held[0].readAnswer()
        #expect(finished.status == 200 && finished.body.hasPrefix(Self.expected), "\(finished)")
        held[0].close()
        // Its place is given back: a new connection from 127.0.0.1 is served.
        var served = false
        for _ in 0..<50 where !served {
            let again = try ClientSocket(port: server.port)
            if let reply = try? again.exchange("POST", Self.flag, "{}", close: true) {
                served = reply.status == 200 && reply.body.hasPrefix(Self.expected)
            }
            again.close()
            if !served { Thread.sleep(forTimeInterval: 0.1) }
        }
        #expect(served, "a connection from 127.0.0.1 after one closed")
        for client in held.dropFirst() { client.close() }
        let stopped = server.stop()
        #expect(stopped.status == 0, "\(stopped)")
    }

    @Test func aDribblingHeadIsClosedAfterTheHeadDeadlineNotTheReadTimeout() throws {
        let box = try ServeTests().imported()
        let server = try ServeProcess(box, ["--head-timeout", "1s", "--read-timeout", "30s"])
        // A head dribbled a byte every 100 ms (slowloris): closed after about a second.
        let slow = try ClientSocket(port: server.port)
        let head = Array("POST \(Self.flag) HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: \(String(repeating: "a", count: 400))\r\n".utf8)
        let started = Date()
        var sent = 0
        var closed = false
        while sent < head.count && Date().timeIntervalSince(started) < 20 {
            guard slow.send(String(decoding: [head[sent]], as: UTF8.self)) else { break }
            sent += 1
            if slow.closedByServer(within: 0.1).closed {
                closed = true
                break
            }
        }
        let waited = Date().timeIntervalSince(started)
        slow.close()
        #expect(closed && waited >= 0.8 && waited < 10, "closed \(closed) after \(waited) s and \(sent) bytes")
        // The head deadline is the head's only: a body may take the read timeout, and a
        // keep-alive connection may stay idle as long, longer than the head deadline.
        let patient = try ClientSocket(port: server.port)
        #expect(patient.send("POST \(Self.flag) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n\r\n{"))
        Thread.sleep(forTimeInterval: 2)
        #expect(patient.send("}"))
        let first = try patient.readAnswer()
        #expect(first.status == 200 && first.body.hasPrefix(Self.expected), "\(first)")
        Thread.sleep(forTimeInterval: 2)
        let second = try patient.exchange("POST", Self.flag, "{}", close: true)
        #expect(second.status == 200 && second.body.hasPrefix(Self.expected), "\(second)")
        patient.close()
        // A connection that sends nothing is closed after the head deadline too.
        let silent = try ClientSocket(port: server.port)
        let silentStart = Date()
        let (silentClosed, _) = silent.closedByServer(within: 20)
        let silentWait = Date().timeIntervalSince(silentStart)
        silent.close()
        #expect(silentClosed && silentWait < 10, "closed \(silentClosed) after \(silentWait) s")
        let stopped = server.stop()
        #expect(stopped.status == 0, "\(stopped)")
    }
}
