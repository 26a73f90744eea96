import Foundation
import PrefsCore
import PrefsTestSupport
import Testing

/// Issue 38: `prefs serve` that cannot listen says so and exits 4 at once (it used to print
/// nothing, spin a core and ignore SIGTERM); SIGTERM ends it at any moment; a unix socket
/// (the systemd unit's default) is its owner's alone.
@Suite("prefs serve: listening", .serialized, .timeLimit(.minutes(5)), .ownThreads)
struct ServeListenTests {
    static let isRoot = getuid() == 0
    static let setpriv = "/usr/bin/setpriv"
    /// `setpriv` arguments that run a program as `nobody`, without capabilities.
    static let asNobody = ["--reuid=65534", "--regid=65534", "--clear-groups", "--inh-caps=-all"]

    /// The lowest port an unprivileged process may bind (1024 unless lowered).
    static let unprivilegedPortStart: Int = {
        let text = try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_unprivileged_port_start", encoding: .utf8)
        return text.flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? 1024
    }()

    /// A directory `nobody` may use: its store, its runtime directory.
    static func nobodysDirectory() throws -> String {
        let directory = try makeTemporaryDirectory(prefix: "prefs-nobody")
        try FileManager.default.createDirectory(atPath: directory + "/runtime", withIntermediateDirectories: true)
        for path in [directory, directory + "/runtime"] {
            #expect(chmod(path, 0o700) == 0 && chown(path, 65534, 65534) == 0, "chown \(path)")
        }
        return directory
    }

    /// A real listener on 127.0.0.1 in another process (python3's socket module), as `nobody`
    /// when the tests run as root: another user's program holding the port. Its port, and
    /// the process (ended by closing its standard input).
    static func portHolder(asOtherUser: Bool, _ box: Sandbox) throws -> (Int, Running) {
        let program =
            "import socket, sys; s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(); "
            + "print(s.getsockname()[1], flush=True); sys.stdin.read()"
        let holder =
            asOtherUser
            ? try Running(asNobody + ["/usr/bin/python3", "-c", program], environment: box.environment(), executable: setpriv)
            : try Running(["-c", program], environment: box.environment(), executable: "/usr/bin/python3")
        guard holder.waitForLines(1, timeout: 20), let port = holder.lines.snapshot().first.flatMap({ Int($0) }) else {
            let result = holder.finish(signal: SIGKILL)
            throw ServeTestError(description: "the port holder did not start: \(result)")
        }
        return (port, holder)
    }

    /// Runs `prefs serve ARGS` to its end (killed after 20 s): the result and how long it took.
    static func serve(_ box: Sandbox, _ arguments: [String], environment: [String: String] = [:], prefix: [String] = [])
        throws -> (RunResult, Double)
    {
        let started = Date()
        let command = prefix.isEmpty ? Sandbox.binary : setpriv
        let result = try Sandbox.exec(
            command, prefix + (prefix.isEmpty ? [] : [Sandbox.binary]) + arguments, stdin: nil, environment: box.environment(environment),
            timeout: 20)
        return (result, Date().timeIntervalSince(started))
    }

    /// The port taken by another process (another user's, when the tests run as root, or the
    /// same user's): one line, exit 4, at once.
    @Test(arguments: [false, true])
    func aTakenPortEndsServeWithExit4(byAnotherUser: Bool) throws {
        let box = try Sandbox()
        let (port, holder) = try Self.portHolder(asOtherUser: byAnotherUser && Self.isRoot, box)
        defer { _ = holder.finish() }
        let (result, seconds) = try Self.serve(box, ["--store", box.store, "serve", "--listen", "127.0.0.1:\(port)"])
        expectFailure(
            result, 4,
            contains:
                "prefs: serve: cannot listen on 127.0.0.1:\(port): Address already in use (another program, perhaps another user's, listens there)\n"
        )
        #expect(seconds < 3, "ended after \(seconds) s")
    }

    /// Another `prefs serve` on the port: the second says so and exits 4; the first serves on.
    @Test func aSecondServeOnThePortEndsWithExit4() throws {
        let box = try Sandbox()
        let first = try ServeProcess(box)
        let (result, seconds) = try Self.serve(box, ["--store", box.store, "serve", "--listen", "127.0.0.1:\(first.port)"])
        expectFailure(result, 4, contains: "prefs: serve: cannot listen on 127.0.0.1:\(first.port): Address already in use")
        #expect(seconds < 3, "ended after \(seconds) s")
        let answer = try HTTPExchange.post(first.port, "/ofrep/v1/evaluate/flags/nope", "{}")
        #expect(answer.status == 404, "\(answer)")
        #expect(first.stop().status == 0)
    }

    /// An address that is not this machine's (TEST-NET-1: binding fails with EADDRNOTAVAIL,
    /// nothing is sent): one line, exit 4, at once.
    @Test func anAddressNotOnThisMachineEndsServeWithExit4() throws {
        let box = try Sandbox()
        let (result, seconds) = try Self.serve(
            box, ["--store", box.store, "serve", "--listen", "192.0.2.1:8016"], environment: ["PREFS_SERVE_TOKEN": "t0ken-for-the-test"])
        expectFailure(
            result, 4,
            contains: "prefs: serve: cannot listen on 192.0.2.1:8016: Cannot assign requested address (not an address of this machine)\n")
        #expect(seconds < 3, "ended after \(seconds) s")
    }

    /// A port below 1024 without the privilege (as `nobody` when the tests run as root): one
    /// line, exit 4, at once.
    @Test(
        .enabled(if: isRoot || unprivilegedPortStart > 80, "needs root (to run as nobody) or an unprivileged user who may not bind port 80")
    )
    func aPrivilegedPortWithoutThePrivilegeEndsServeWithExit4() throws {
        let box = try Sandbox()
        let directory = Self.isRoot ? try Self.nobodysDirectory() : box.root
        defer { if Self.isRoot { try? FileManager.default.removeItem(atPath: directory) } }
        let (result, seconds) = try Self.serve(
            box, ["--store", directory + "/prefs.db", "serve", "--listen", "127.0.0.1:80"],
            environment: ["XDG_RUNTIME_DIR": directory + "/runtime", "HOME": directory], prefix: Self.isRoot ? Self.asNobody : [])
        expectFailure(
            result, 4,
            contains:
                "prefs: serve: cannot listen on 127.0.0.1:80: Permission denied (a port below 1024 needs root or CAP_NET_BIND_SERVICE)\n")
        #expect(seconds < 3, "ended after \(seconds) s")
    }

    /// SIGTERM ends serve whenever it comes: while it starts, while it listens, and while it
    /// fails to listen (where it used to spin and ignore it).
    @Test func sigtermEndsServeAtAnyMoment() throws {
        let box = try Sandbox()
        try box.runOK(["set", "user", "theme", "dark"])
        let (port, holder) = try Self.portHolder(asOtherUser: false, box)
        defer { _ = holder.finish() }
        for taken in [false, true] {
            for delay in [0, 2_000, 10_000, 50_000, 200_000, 1_000_000] {
                let listen = taken ? "127.0.0.1:\(port)" : "127.0.0.1:0"
                let server = try Running(["--store", box.store, "serve", "--listen", listen], environment: box.environment())
                usleep(UInt32(delay))
                let signalled = Date()
                kill(server.process.processIdentifier, SIGTERM)
                while server.process.isRunning && Date().timeIntervalSince(signalled) < 5 { usleep(2000) }
                let ended = !server.process.isRunning
                let result = server.finish(signal: ended ? nil : SIGKILL)
                #expect(ended, "taken \(taken), SIGTERM after \(delay) µs: still running 5 s later: \(result)")
                // Ended by the signal before its handlers were in place, gracefully (0), or,
                // on the taken port, by its own failure (4).
                let reason = server.process.terminationReason
                let accepted =
                    (reason == .uncaughtSignal && result.status == SIGTERM) || result.status == 0 || (taken && result.status == 4)
                #expect(accepted, "taken \(taken), SIGTERM after \(delay) µs: \(reason == .uncaughtSignal ? "signal" : "exit") \(result)")
            }
        }
    }

    /// `--listen unix:PATH`: served on a unix socket of mode 0700, which only its owner may
    /// connect to (also in a directory others may enter); a second server on a socket that
    /// answers exits 4 rather than take it over.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/curl"), "needs curl"))
    func aUnixSocketIsItsOwnersAlone() throws {
        let box = try Sandbox()
        try box.runOK(["flag", "import", ServeTests.testbed])
        let directory = box.root + "/sockets"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        #expect(chmod(box.root, 0o755) == 0 && chmod(directory, 0o755) == 0)
        let socket = directory + "/serve.sock"
        let server = try Running(["--store", box.store, "serve", "--listen", "unix:" + socket], environment: box.environment())
        guard server.waitForLines(1, timeout: 30) else {
            Issue.record("serve did not start: \(server.finish(signal: SIGKILL))")
            return
        }
        #expect(server.lines.snapshot().first?.hasPrefix("prefs serve: listening on unix:\(socket) (OFREP at /ofrep/v1") == true)
        var info = stat()
        #expect(
            lstat(socket, &info) == 0 && info.st_mode & S_IFMT == S_IFSOCK && info.st_mode & 0o077 == 0,
            "mode \(String(info.st_mode, radix: 8))")
        let curl = ["-s", "-i", "--max-time", "10", "--unix-socket", socket, "-X", "POST", "-d", "{}"]
        let url = "http://localhost/ofrep/v1/evaluate/flags/boolean-flag"
        let own = try Sandbox.exec("/usr/bin/curl", curl + [url], stdin: nil, environment: box.environment())
        #expect(own.status == 0 && own.stdout.hasPrefix("HTTP/1.1 200") && own.stdout.contains(#""key":"boolean-flag""#), "\(own)")
        #expect(own.stdout.lowercased().contains("cache-control: no-store"), "\(own)")
        if Self.isRoot {
            // Another user can neither ask it nor take its place.
            let other = try Sandbox.exec(
                Self.setpriv, Self.asNobody + ["/usr/bin/curl"] + curl + [url], stdin: nil, environment: box.environment())
            #expect(other.status == 7 && !other.stdout.contains("boolean-flag"), "nobody connected: \(other)")
        }
        let (second, seconds) = try Self.serve(box, ["--store", box.store, "serve", "--listen", "unix:" + socket])
        expectFailure(second, 4, contains: "prefs: serve: cannot listen on unix:\(socket): a server answers on that socket already\n")
        #expect(seconds < 3)
        let again = try Sandbox.exec("/usr/bin/curl", curl + [url], stdin: nil, environment: box.environment())
        #expect(again.status == 0 && again.stdout.hasPrefix("HTTP/1.1 200"), "the first server still answers: \(again)")
        #expect(server.finish(signal: SIGTERM).status == 0)
    }

    /// The systemd unit's command, run as the unit runs it (`%t` a private runtime directory,
    /// `RuntimeDirectory=` made with `RuntimeDirectoryMode=`): it listens on a unix socket that
    /// another local user can neither reach nor take first, where 127.0.0.1:8016 could be taken
    /// by anyone.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/curl"), "needs curl"))
    func theUnitListensWhereOnlyItsUserCan() throws {
        let unit = try String(contentsOfFile: repositoryRoot + "/packaging/systemd/prefs-serve.service", encoding: .utf8)
        let lines = unit.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#") }
        let execStart = try #require(lines.first { $0.hasPrefix("ExecStart=") }).dropFirst("ExecStart=".count)
        let runtimeDirectory = try #require(lines.first { $0.hasPrefix("RuntimeDirectory=") }).dropFirst("RuntimeDirectory=".count)
        #expect(lines.contains("RuntimeDirectoryMode=0700"), "\(lines)")
        let box = try Sandbox()
        try box.runOK(["flag", "import", ServeTests.testbed])
        let runtime = box.root + "/run-user"
        #expect(mkdir(runtime, 0o700) == 0 && mkdir(runtime + "/" + runtimeDirectory, 0o700) == 0)
        #expect(chmod(box.root, 0o755) == 0)
        var arguments = execStart.split(separator: " ").map { $0.replacingOccurrences(of: "%t", with: runtime) }
        #expect(arguments.first == "/usr/bin/prefs" && arguments.dropFirst().first == "serve", "\(arguments)")
        arguments.removeFirst()
        let listen = try #require(arguments.firstIndex(of: "--listen")).advanced(by: 1)
        #expect(arguments[listen].hasPrefix("unix:" + runtime + "/" + runtimeDirectory + "/"), "\(arguments)")
        let socket = String(arguments[listen].dropFirst("unix:".count))
        let server = try Running(["--store", box.store] + arguments, environment: box.environment(["XDG_RUNTIME_DIR": runtime]))
        guard server.waitForLines(1, timeout: 30) else {
            Issue.record("serve did not start: \(server.finish(signal: SIGKILL))")
            return
        }
        let curl = ["-s", "--max-time", "10", "--unix-socket", socket, "-X", "POST", "-d", "{}"]
        let url = "http://localhost/ofrep/v1/evaluate/flags/boolean-flag"
        let own = try Sandbox.exec("/usr/bin/curl", curl + [url], stdin: nil, environment: box.environment())
        #expect(own.status == 0 && own.stdout.hasPrefix(#"{"key":"boolean-flag""#), "\(own)")
        if Self.isRoot {
            let reach = try Sandbox.exec(
                Self.setpriv, Self.asNobody + ["/usr/bin/curl"] + curl + [url], stdin: nil, environment: box.environment())
            #expect(reach.status == 7, "nobody reached the socket: \(reach)")
            let program = "import socket, sys; s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])"
            let take = try Sandbox.exec(
                Self.setpriv, Self.asNobody + ["/usr/bin/python3", "-c", program, runtime + "/" + runtimeDirectory + "/other.sock"],
                stdin: nil,
                environment: box.environment())
            #expect(take.status != 0 && take.stderr.contains("Permission denied"), "nobody bound a socket there: \(take)")
        }
        #expect(server.finish(signal: SIGTERM).status == 0)
    }
}
