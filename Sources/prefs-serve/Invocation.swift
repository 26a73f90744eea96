import FoundationEssentials
import Glibc
import PrefsCore
import PrefsServe

/// prefs-serve's arguments (`prefs serve` passes its own through).
struct Invocation {
    var store: String?
    var host = "127.0.0.1"
    var port = 8016
    /// `--listen unix:PATH`: a unix socket instead of a host and port.
    var socketPath: String?
    var tokenFile: String?
    var maximumBodyBytes = 65_536
    var readTimeout: Duration = .seconds(10)
    var headTimeout: Duration = .seconds(5)
    var maximumConnectionsPerAddress = 64
    var maximumEventStreams = 32
    var maximumSteps = ServeOptions.defaultMaximumSteps
    var poll: Duration = .milliseconds(250)
    var accessLog = true

    static let usage = """
        usage: prefs-serve [--store PATH] [--listen HOST:PORT|unix:PATH] [--token-file FILE] [--max-body BYTES]
                           [--read-timeout DURATION] [--head-timeout DURATION] [--max-connections-per-address N]
                           [--max-event-streams N] [--max-steps N] [--poll DURATION] [--no-access-log]
        """

    init(_ arguments: [String]) {
        var index = 0
        func value(_ name: String) -> String {
            index += 1
            guard index < arguments.count else { fail("\(name) needs a value (see 'prefs serve --help')", 2) }
            return arguments[index]
        }
        func duration(_ name: String) -> Duration {
            guard let duration = DurationText.parse(value(name)), duration > .zero else { fail("\(name): expected a duration like 10s", 2) }
            return duration
        }
        while index < arguments.count {
            let argument = arguments[index]
            switch argument {
            case "--store": store = value(argument)
            case "--listen":
                let text = value(argument)
                if text.hasPrefix("unix:") {
                    guard text.count > 5 else { fail("--listen unix:PATH: the socket's path is missing", 2) }
                    socketPath = String(text.dropFirst(5))
                    break
                }
                guard let (host, port) = Self.address(text) else {
                    fail("--listen: expected HOST:PORT like 127.0.0.1:8016 or [::1]:8016 (port 0 picks a free one), or unix:PATH", 2)
                }
                self.host = host
                self.port = port
            case "--token-file": tokenFile = value(argument)
            case "--max-body":
                guard let bytes = Int(value(argument)), bytes > 0 else { fail("--max-body: expected a number of bytes", 2) }
                maximumBodyBytes = bytes
            case "--read-timeout": readTimeout = duration(argument)
            case "--head-timeout": headTimeout = duration(argument)
            case "--max-connections-per-address":
                guard let count = Int(value(argument)), count > 0 else { fail("--max-connections-per-address: expected a number", 2) }
                maximumConnectionsPerAddress = count
            case "--max-event-streams":
                guard let count = Int(value(argument)), count > 0 else { fail("--max-event-streams: expected a number", 2) }
                maximumEventStreams = count
            case "--max-steps":
                guard let steps = Int(value(argument)), steps > 0 else { fail("--max-steps: expected a number of steps", 2) }
                maximumSteps = steps
            case "--poll": poll = duration(argument)
            case "--no-access-log": accessLog = false
            case "--version":
                print("prefs-serve \(PrefsVersion.current)")
                exit(0)
            case "-h", "--help":
                print(Self.usage)
                exit(0)
            default: fail("unknown argument \(argument) (see 'prefs serve --help')", 2)
            }
            index += 1
        }
    }

    /// HOST:PORT, [IPv6]:PORT.
    static func address(_ text: String) -> (String, Int)? {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65_535).contains(port) else {
            return nil
        }
        var host = String(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { return nil }
        return (host, port)
    }

    /// What --listen names, as messages show it: `HOST:PORT`, `[IPv6]:PORT` or `unix:PATH`.
    var listenText: String {
        if let socketPath { return "unix:" + socketPath }
        return (host.contains(":") ? "[\(host)]" : host) + ":\(port)"
    }

    /// Whether the host is this machine's loopback only: `localhost`, or an address literal in
    /// 127.0.0.0/8 or ::1. A name is not judged by its spelling (`127.0.0.1.example.com` may
    /// resolve anywhere): it needs a token.
    /// A unix socket is this machine's too (its file's mode says who may connect).
    var isLoopback: Bool {
        if socketPath != nil || host == "localhost" { return true }
        var v4 = in_addr()
        if inet_pton(AF_INET, host, &v4) == 1 { return UInt32(bigEndian: v4.s_addr) >> 24 == 127 }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, host, &v6) == 1 else { return false }
        return withUnsafeBytes(of: &v6) { bytes in bytes.dropLast().allSatisfy { $0 == 0 } && bytes.last == 1 }
    }
}

func fail(_ message: String, _ code: Int32) -> Never {
    try? FileIO.write(STDERR_FILENO, "prefs: \(message)\n".utf8)
    exit(code)
}
