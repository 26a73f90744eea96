import FoundationEssentials
import Glibc
import PrefsCore
import PrefsHelperConfiguration
import PrefsServe
import PrefsServeApp

/// prefs-serve's options: `prefs serve` hands them over as one ``ServeConfiguration`` (in
/// the environment; nothing is parsed twice), read here with the helper's defaults.
struct Invocation {
    var store: String?
    var actor: String?
    /// `--override` and `PREFS_OVERRIDES`, merged by `prefs` (compact JSON), or nil.
    var overrides: String?
    var host = "127.0.0.1"
    var port = 8016
    /// `--listen unix:PATH`: a unix socket instead of a host and port.
    var socketPath: String?
    var tokenFile: String?
    var maximumBodyBytes = 65_536
    /// Deadlines and caps of connections and streams.
    var limits = ServeLimits()
    var maximumSteps = ServeOptions.defaultMaximumSteps
    /// How often the store is read again where inotify is unavailable.
    var poll: Duration = .milliseconds(250)
    var accessLog = true

    static let usage = """
        usage: prefs serve [OPTIONS] (prefs-serve is run by 'prefs serve': see 'prefs serve --help')
        """

    /// Reads the configuration `prefs serve` left in `environment` (``ServeConfiguration``);
    /// `arguments` may only ask for the version or the usage.
    init(_ arguments: [String], environment: [String: String]) {
        switch arguments.first {
        case nil: break
        case "--version":
            print("prefs-serve \(PrefsVersion.current)")
            exit(0)
        case "-h", "--help":
            print(Self.usage)
            exit(0)
        case let argument?: fail("unknown argument \(argument) (prefs-serve is run by 'prefs serve'; see 'prefs serve --help')", 2)
        }
        guard let text = environment[ServeConfiguration.variable] else {
            fail("prefs-serve is run by 'prefs serve' (see 'prefs serve --help')", 2)
        }
        let configuration: ServeConfiguration
        do {
            configuration = try ServeConfiguration(decoding: text)
        } catch {
            fail("prefs-serve cannot read the options prefs handed it (is it from the same version as prefs?): \(error)", 2)
        }
        if environment[ServeConfiguration.dumpVariable] != nil {
            print((try? configuration.encoded()) ?? "")
            exit(0)
        }
        store = configuration.store
        actor = configuration.actor
        overrides = configuration.override
        if let text = configuration.listen {
            if text.hasPrefix("unix:") {
                guard text.count > 5 else { fail("--listen unix:PATH: the socket's path is missing", 2) }
                socketPath = String(text.dropFirst(5))
            } else {
                guard let (host, port) = Self.address(text) else {
                    fail("--listen: expected HOST:PORT like 127.0.0.1:8016 or [::1]:8016 (port 0 picks a free one), or unix:PATH", 2)
                }
                self.host = host
                self.port = port
            }
        }
        tokenFile = configuration.tokenFile
        // `prefs serve` checked the numbers (at least 1) and the durations (more than zero).
        if let bytes = configuration.maxBody { maximumBodyBytes = bytes }
        if let duration = configuration.readTimeout { limits.readTimeout = duration }
        if let duration = configuration.headTimeout { limits.headTimeout = duration }
        if let count = configuration.maxConnectionsPerAddress { limits.maximumConnectionsPerAddress = count }
        if let count = configuration.maxEventStreams { limits.maximumEventStreams = count }
        if let steps = configuration.maxSteps { maximumSteps = steps }
        accessLog = !configuration.noAccessLog
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
