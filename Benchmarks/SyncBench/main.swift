// prefs-sync-bench [OPERATIONS] — sync throughput against a local PostgreSQL server it starts.
//
// Starts its own PostgreSQL (initdb into a temporary directory, 127.0.0.1, a free port; as
// the postgres user when run as root), then measures through the library:
//   1. push: one store with OPERATIONS pending operations (distinct keys), one sync;
//   2. pull: a second, empty store pulls and applies them, one sync;
//   3. 10 stores x 1,000 operations each (overlapping keys, so conflicts): the time until
//      every store holds the same data (sync rounds over all stores), checked by export.
// The server is stopped at the end.
import Foundation
import PrefsCore
import PrefsSync

/// Stops the server (set once it runs).
nonisolated(unsafe) var stopServer: (() -> Void)?

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("prefs-sync-bench: \(message)\n".utf8))
    stopServer?()
    exit(1)
}

func now() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
}

/// Runs a command and waits; output to a log file.
func run(_ command: [String], log: String) -> Int32 {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_APPEND, 0o644)
    posix_spawn_file_actions_adddup2(&actions, 1, 2)
    // Nothing else: tests running in parallel have pipes open, and a server or watchdog that
    // inherited one would keep it open (their reader would never see the end).
    typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    if let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") {  // glibc 2.34+, not in Swift's Glibc module
        _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
    }
    var argv: [UnsafeMutablePointer<CChar>?] = command.map { strdup($0) }
    argv.append(nil)
    var pid = pid_t()
    guard posix_spawn(&pid, command[0], &actions, nil, argv, environ) == 0 else { return -1 }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    return status
}

let operations = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 10_000 : 10_000
let versions = ((try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []).compactMap(Int.init).sorted()
guard let version = versions.last else { fail("PostgreSQL not found under /usr/lib/postgresql (apt-get install postgresql)") }
let bin = "/usr/lib/postgresql/\(version)/bin"
let asRoot = getuid() == 0
var template = Array("/tmp/prefs-sync-bench-XXXXXX".utf8CString)
guard let made = mkdtemp(&template) else { fail("mkdtemp") }
let root = String(cString: made)
let data = root + "/pg"
let log = root + "/pg.log"
if asRoot, let user = getpwnam("postgres") {
    chown(root, user.pointee.pw_uid, user.pointee.pw_gid)
}
func postgres(_ arguments: [String]) -> Int32 {
    run((asRoot ? ["/usr/sbin/runuser", "-u", "postgres", "--"] : []) + [bin + "/" + arguments[0]] + arguments.dropFirst(), log: log)
}
let port = 20_000 + Int(getpid() % 20_000)
guard postgres(["initdb", "-D", data, "-U", "postgres", "-A", "trust", "--no-sync", "--locale", "C", "-E", "UTF8"]) == 0 else {
    fail("initdb failed; see \(log)")
}
guard
    postgres(["pg_ctl", "-D", data, "-l", root + "/server.log", "-w", "-o", "-p \(port) -k \(root) -c listen_addresses=127.0.0.1", "start"])
        == 0
else {
    fail("pg_ctl start failed; see \(log)")
}
stopServer = {
    _ = postgres(["pg_ctl", "-D", data, "-w", "-m", "fast", "stop"])
    try? FileManager.default.removeItem(atPath: root)
}
let url = try RemoteURL(parsing: "postgres://postgres@127.0.0.1:\(port)/postgres")

func open(_ name: String) throws -> KeyValueStack {
    try KeyValueStack(path: "\(root)/stores/\(name).db", options: .init(environment: [:]))
}

let finished = DispatchSemaphore(value: 0)
Task.detached {
    do {
        print("prefs sync benchmark: PostgreSQL \(version) on 127.0.0.1 (fsync on), \(ProcessInfo.processInfo.activeProcessorCount) cores")
        // 1. push
        let a = try open("a")
        try a.sync.setRemote(url, domains: nil)
        let writes = (0..<operations).map {
            KeyValueStack.Operation(
                .set(.object([.init("n", .number(String($0))), .init("s", .string("value \($0)"))])), in: .default, forKey: "key-\($0)")
        }
        let plain = try open("plain")  // the same writes in a store without a remote
        var start = now()
        try plain.perform(writes)
        let plainSeconds = now() - start
        start = now()
        try a.perform(writes)
        let recordSeconds = now() - start
        start = now()
        let pushed = try a.sync.run()
        let pushSeconds = now() - start
        guard pushed.pushed == operations else { fail("pushed \(pushed.pushed), expected \(operations)") }
        // 2. pull
        let b = try open("b")
        try b.sync.setRemote(url, domains: nil)
        start = now()
        let pulled = try b.sync.run()
        let pullSeconds = now() - start
        guard pulled.applied == operations, try b.exportJSON() == a.exportJSON() else { fail("pull did not converge") }
        // 3. 10 stores x 1,000 operations
        let stores = try (0..<10).map { try open("s\($0)") }
        for (i, store) in stores.enumerated() {
            try store.sync.setRemote(url, domains: [Domain("conv")])
            var batch: [KeyValueStack.Operation] = []
            for j in 0..<1000 {
                let key = "k\((i * 37 + j) % 300)"
                batch.append(
                    j % 50 == 49
                        ? .init(.remove, in: Domain("conv"), forKey: "k\((i * 37 + j - 1) % 300)")
                        : .init(.set(.number(String(i * 1000 + j))), in: Domain("conv"), forKey: key))
            }
            try store.perform(batch)
        }
        start = now()
        var rounds = 0
        var converged = false
        while !converged && rounds < 5 {
            rounds += 1
            for store in stores { try store.sync.run() }
            let exports = try stores.map { try $0.exportJSON([Domain("conv")]) }
            converged = Set(exports).count == 1
        }
        let convergeSeconds = now() - start
        guard converged else { fail("10 stores did not converge in 5 rounds") }
        func rate(_ count: Int, _ seconds: Double) -> String { String(format: "%.0f ops/s (%.3f s)", Double(count) / seconds, seconds) }
        print("| measure | result |")
        print("|---|---|")
        print("| \(operations) writes in one transaction, store without a remote | \(rate(operations, plainSeconds)) |")
        print("| the same writes with a remote: each also records a pending operation | \(rate(operations, recordSeconds)) |")
        print("| push \(operations) operations, one sync | \(rate(operations, pushSeconds)) |")
        print("| pull and apply \(operations) operations into an empty store, one sync | \(rate(operations, pullSeconds)) |")
        print(
            String(
                format: "| 10 stores x 1,000 operations: time until identical exports | %.2f s (%d sync rounds over the 10 stores) |",
                convergeSeconds, rounds))
    } catch {
        fail("\(error)")
    }
    finished.signal()
}
finished.wait()
stopServer?()
