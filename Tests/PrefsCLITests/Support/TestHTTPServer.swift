import Foundation

/// A small real HTTP/1.1 server on 127.0.0.1 for the refresh tests: one connection at a time,
/// answers from a handler, can also hold a connection open without answering.
final class TestHTTPServer: @unchecked Sendable {
    struct Request {
        var path: String
        var headers: [String: String]
    }

    enum Reply {
        case respond(status: Int, headers: [String: String], body: String)
        /// Accept, read the request, never answer.
        case hang
        /// Answer 200 with a long body, one byte every half second.
        case drip
        /// Answer 200 with these headers and body bytes (Content-Length is added).
        case bytes(headers: [String: String], body: [UInt8])
        /// Answer 200 with a chunked body that never ends (until the client goes away).
        case endless
    }

    let port: UInt16
    private let socketFD: Int32
    private let handler: @Sendable (Request) -> Reply
    private let lock = NSLock()
    private var requests: [Request] = []
    private var held: [Int32] = []
    private var stopped = false

    init(_ handler: @escaping @Sendable (Request) -> Reply) throws {
        self.handler = handler
        let socketFD = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.socketFD = socketFD
        var yes: Int32 = 1
        setsockopt(socketFD, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socketFD, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(socketFD, 16) == 0 else { throw CocoaError(.fileWriteUnknown) }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socketFD, $0, &length) }
        }
        self.port = UInt16(bigEndian: actual.sin_port)
        Thread { self.serve() }.start()
    }

    var url: String { "http://127.0.0.1:\(port)" }

    var received: [Request] { lock.withLock { requests } }

    /// Stops once; a second call must not close a descriptor number reused since.
    func stop() {
        let first = lock.withLock { () -> Bool in
            if stopped { return false }
            stopped = true
            for fd in held { close(fd) }
            held = []
            return true
        }
        guard first else { return }
        shutdown(socketFD, Int32(SHUT_RDWR))
        close(socketFD)
    }

    deinit {
        stop()
    }

    private func serve() {
        while true {
            let client = accept(socketFD, nil, nil)
            if client < 0 { return }
            if lock.withLock({ stopped }) {
                close(client)
                return
            }
            var data = [UInt8]()
            var buffer = [UInt8](repeating: 0, count: 4096)
            while !data.containsHeaderEnd {
                let n = read(client, &buffer, buffer.count)
                if n <= 0 { break }
                data += buffer[0..<n]
            }
            let text = String(decoding: data, as: UTF8.self)
            let lines = text.components(separatedBy: "\r\n")
            let path = lines.first?.split(separator: " ").dropFirst().first.map(String.init) ?? "/"
            var headers: [String: String] = [:]
            for line in lines.dropFirst() {
                guard let colon = line.firstIndex(of: ":") else { continue }
                headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
            let request = Request(path: path, headers: headers)
            lock.withLock { requests.append(request) }
            switch handler(request) {
            case .hang:
                lock.withLock { held.append(client) }
            case .drip:
                lock.withLock { held.append(client) }
                Thread {
                    let head = Array("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n".utf8)
                    _ = head.withUnsafeBytes { write(client, $0.baseAddress, $0.count) }
                    for _ in 0..<100 {
                        usleep(500_000)
                        if self.lock.withLock({ self.stopped }) { return }
                        var byte: UInt8 = 0x20
                        if write(client, &byte, 1) < 0 { return }
                    }
                }.start()
            case .bytes(let extra, let body):
                lock.withLock { held.append(client) }
                Thread {
                    var head = "HTTP/1.1 200 OK\r\nContent-Length: \(body.count)\r\nConnection: close\r\n"
                    for (name, value) in extra { head += "\(name): \(value)\r\n" }
                    if Self.send(client, Array((head + "\r\n").utf8)) { _ = Self.send(client, body) }
                }.start()
            case .endless:
                lock.withLock { held.append(client) }
                Thread {
                    guard Self.send(client, Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)) else { return }
                    let chunk = Array("10000\r\n".utf8) + [UInt8](repeating: 0x20, count: 0x10000) + Array("\r\n".utf8)
                    while !self.lock.withLock({ self.stopped }) && Self.send(client, chunk) {}
                }.start()
            case .respond(let status, let extra, let body):
                var response = "HTTP/1.1 \(status) Status\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n"
                for (name, value) in extra { response += "\(name): \(value)\r\n" }
                response += "\r\n" + body
                let bytes = Array(response.utf8)
                _ = bytes.withUnsafeBytes { write(client, $0.baseAddress, $0.count) }
                close(client)
            }
        }
    }
}

extension TestHTTPServer {
    /// Writes everything, or stops (false) when the client has gone; never raises SIGPIPE.
    static func send(_ client: Int32, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = Glibc.send(client, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return false }
                offset += n
            }
            return true
        }
    }
}

extension [UInt8] {
    fileprivate var containsHeaderEnd: Bool {
        guard count >= 4 else { return false }
        for i in 0...(count - 4) where self[i] == 13 && self[i + 1] == 10 && self[i + 2] == 13 && self[i + 3] == 10 { return true }
        return false
    }
}
