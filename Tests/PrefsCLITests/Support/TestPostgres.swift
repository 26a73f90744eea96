import Foundation
import PrefsTestSupport
import Synchronization
import Testing

/// The PostgreSQL 15 server of the sync tests: `initdb` into a temporary directory, the
/// server on 127.0.0.1 at a free port (and a unix socket in that directory), run as the
/// `postgres` user when the tests run as root. Started once, on first use; stopped when the
/// test process exits (atexit), or by a watchdog shell when the test process dies without
/// exiting. Each test gets its own database (``createDatabase()``). Two at most: ``shared``
/// and ``outages``.
final class TestPostgres: Sendable {
    let root: String
    let data: String
    let port: Int
    let bin: String
    let asPostgres: Bool

    /// The running server, started once per test process.
    static let shared: Result<TestPostgres, any Error> = Result { try TestPostgres() }

    /// A second server, for the tests that stop or freeze theirs (``SyncOutageTests``, one at
    /// a time), so the tests on ``shared`` need not wait for them.
    static let outages: Result<TestPostgres, any Error> = Result { try TestPostgres() }

    /// Whether the server's programs are installed; the suites that need it are enabled only
    /// then (``SyncTests``), so a machine without PostgreSQL skips them instead of failing.
    static let isAvailable = binDirectory() != nil

    /// Where initdb, pg_ctl and psql live: the newest /usr/lib/postgresql/N/bin holding all
    /// three, else PATH.
    static func binDirectory() -> String? {
        func hasPrograms(_ directory: String) -> Bool {
            ["initdb", "pg_ctl", "psql"].allSatisfy { FileManager.default.isExecutableFile(atPath: "\(directory)/\($0)") }
        }
        let base = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: base)) ?? []).compactMap(Int.init).sorted()
        for version in versions.reversed() where hasPrograms("\(base)/\(version)/bin") {
            return "\(base)/\(version)/bin"
        }
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") where hasPrograms(String(directory)) {
            return String(directory)
        }
        return nil
    }

    private init() throws {
        guard let bin = Self.binDirectory() else { throw TestPostgresError("initdb not found: apt-get install postgresql") }
        self.bin = bin
        asPostgres = getuid() == 0
        root =
            asPostgres
            ? try makeTemporaryDirectory(prefix: "prefs-pg", in: "/tmp") : try makeTemporaryDirectory(prefix: "prefs-pg")
        data = root + "/data"
        port = try Self.freePort()
        if asPostgres {
            guard let user = getpwnam("postgres") else { throw TestPostgresError("no postgres user") }
            chown(root, user.pointee.pw_uid, user.pointee.pw_gid)
            chmod(root, 0o700)
        }
        try run(["initdb", "-D", data, "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8", "--locale", "C"])
        // One role logs in with a password (scram-sha-256) over TCP; everyone else is trusted.
        let hba = """
            local all all trust
            host all secretuser 127.0.0.1/32 scram-sha-256
            host all all 127.0.0.1/32 trust
            """
        try run(["sh", "-c", "printf '%s\\n' \"$1\" > \"$2\"", "sh", hba, data + "/pg_hba.conf"], direct: false)
        TestPostgres.registerCleanup(self)
        try start()
    }

    deinit {}

    /// pg_ctl start, waiting until the server accepts connections.
    func start() throws {
        try run([
            "pg_ctl", "-D", data, "-l", root + "/server.log", "-w", "-t", "60", "-o",
            "-p \(port) -k \(root) -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c max_connections=50",
            "start",
        ])
    }

    /// pg_ctl stop -m fast: sessions are ended, transactions in flight roll back.
    func stop() throws {
        try run(["pg_ctl", "-D", data, "-w", "-m", "fast", "stop"])
    }

    /// A new, empty database; returns its remote URL.
    func createDatabase() throws -> (name: String, url: String) {
        let name = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16)
        _ = try psql("CREATE DATABASE \(name)", database: "postgres")
        return (String(name), "postgres://postgres@127.0.0.1:\(port)/\(name)")
    }

    /// Runs SQL through psql (unaligned, tuples only) and returns its output.
    @discardableResult
    func psql(_ sql: String, database: String) throws -> String {
        let result = try Sandbox.exec(
            bin + "/psql",
            [
                "-X", "-A", "-t", "-q", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", String(port), "-U", "postgres", "-d", database,
                "-c", sql,
            ],
            stdin: nil, environment: ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("PG") })
        guard result.status == 0 else { throw TestPostgresError("psql failed: \(result.stderr)") }
        return result.stdout
    }

    /// A psql session kept open (for holding locks); write SQL lines to it, end it with close.
    func session(database: String) throws -> (SpawnedProcess, FileHandle) {
        let process = SpawnedProcess()
        process.executableURL = URL(fileURLWithPath: bin + "/psql")
        process.arguments = ["-X", "-q", "-h", "127.0.0.1", "-p", String(port), "-U", "postgres", "-d", database]
        let input = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return (process, input.fileHandleForWriting)
    }

    /// A session (``session(database:)``) that holds `prefs_state` locked in SHARE ROW EXCLUSIVE
    /// mode, once its lock is granted (within 30 s): a sync started after this returns waits
    /// inside its push. (Starting the sync right after writing the statements raced the
    /// session's start-up: under load the sync could finish first.)
    func sessionHoldingTheStateLock(database: String) throws -> (SpawnedProcess, FileHandle) {
        let (holder, input) = try session(database: database)
        input.write(Data("BEGIN; LOCK TABLE prefs_state IN SHARE ROW EXCLUSIVE MODE; SELECT pg_sleep(3600);\n".utf8))
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            let held = try psql(
                """
                SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation \
                WHERE c.relname = 'prefs_state' AND l.mode = 'ShareRowExclusiveLock' AND l.granted
                """, database: database)
            if held == "1\n" { return (holder, input) }
            usleep(20_000)
        }
        holder.terminate()
        throw TestPostgresError("the session did not get the lock on prefs_state within 30 s")
    }

    private func run(_ arguments: [String], direct: Bool = true) throws {
        var command = arguments
        if direct { command[0] = bin + "/" + command[0] }
        if asPostgres { command = ["/usr/sbin/runuser", "-u", "postgres", "--"] + command }
        // posix_spawn and waitpid, output to a file: the server that pg_ctl starts must not
        // hold a pipe of ours open.
        let logPath = root + "/command.log"
        // initdb and pg_ctl take seconds; a hang is killed (with its process group) after 120.
        let status = waitForExit(try spawnDetached(command, output: logPath), timeout: 120) ?? -1
        guard status == 0 else {
            let output = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
            throw TestPostgresError("\(arguments.joined(separator: " ")) failed (\(status)): \(output)")
        }
    }

    private static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw TestPostgresError("no free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// The shell command that stops the server and removes its directory.
    private var cleanupCommand: String {
        let prefix = asPostgres ? "/usr/sbin/runuser -u postgres -- " : ""
        return "\(prefix)'\(bin)/pg_ctl' -D '\(data)' -m immediate -w stop >/dev/null 2>&1; rm -rf '\(root)'"
    }

    /// The cleanup commands of the servers started so far.
    private static let cleanup = Mutex<[String]>([])

    private static func registerCleanup(_ server: TestPostgres) {
        let command = server.cleanupCommand
        let first = cleanup.withLock {
            $0.append(command)
            return $0.count == 1
        }
        if first {
            atexit {
                for command in TestPostgres.cleanup.withLock({ $0 }) { _ = system(command) }
            }
        }
        // If this process dies without running atexit (SIGKILL, crash), a detached shell
        // notices and stops the server.
        _ = try? spawnDetached(
            ["/bin/sh", "-c", "while kill -0 \(getpid()) 2>/dev/null; do sleep 1; done; \(command)"], output: "/dev/null")
    }
}

struct TestPostgresError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
