import Foundation
import PrefsCore
import Testing

/// A store that cannot be written: reads answer as usual, every write exits 4 with one line,
/// and the store file stays byte for byte what it was.
@Suite(.timeLimit(.minutes(5)), .ownThreads) struct ReadOnlyStoreTests {
    /// Root ignores file modes, so as root the binary runs as `nobody` through setpriv.
    static let isRoot = getuid() == 0
    static let setpriv = "/usr/bin/setpriv"
    static let nobody = "65534"

    /// Whether a read-only tmpfs can be mounted in a private mount namespace (root with
    /// CAP_SYS_ADMIN, `unshare` present).
    static let canMountReadOnly: Bool = {
        guard isRoot, FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") else { return false }
        let probe = try? Sandbox.exec(
            "/usr/bin/unshare",
            ["-m", "--propagation", "private", "sh", "-c", "d=$(mktemp -d) && mount -t tmpfs tmpfs \"$d\" && mount -o remount,ro \"$d\""],
            stdin: nil, environment: ProcessInfo.processInfo.environment)
        return probe?.status == 0
    }()

    /// Fills a store through the binary (as the current user) and returns its expected reads.
    private func seed(_ sandbox: Sandbox) throws {
        for arguments in [["set", "user", "theme", "dark"], ["set", "user", "window", #"{"w":800,"h":600}"#], ["set", "ci", "n", "3"]] {
            let result = try sandbox.runOK(arguments)
            #expect(result.status == 0, "\(result)")
        }
    }

    /// Without its `-wal` and `-shm` files (checkpointed, as a store copied to read-only
    /// media is), SQLite cannot read a WAL store it may not write to unless it opens it as
    /// immutable.
    private func removeSidecars(_ sandbox: Sandbox) throws {
        let queue = try DatabaseQueue(path: sandbox.store)
        try queue.writeWithoutTransaction { try $0.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        try queue.close()
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: sandbox.store + suffix) }
    }

    /// With its `-wal` and `-shm` files, as a store copied from a live system is: every prefs
    /// command closes the store (checkpointing and removing them), so a process that exits
    /// with its connection open writes one frame (the same `user_version`) and leaves them.
    private func leaveSidecars(_ sandbox: Sandbox) throws {
        let script =
            "import os, sqlite3, sys; c = sqlite3.connect(sys.argv[1], isolation_level=None); "
            + "v = c.execute('PRAGMA user_version').fetchone()[0]; c.execute('PRAGMA user_version = %d' % v); os._exit(0)"
        let result = try Sandbox.exec("/usr/bin/python3", ["-c", script, sandbox.store], stdin: nil, environment: sandbox.environment())
        #expect(result.status == 0, "\(result)")
        for suffix in ["-wal", "-shm"] {
            #expect(FileManager.default.fileExists(atPath: sandbox.store + suffix), "no \(suffix) left")
        }
    }

    private static let expectedList = "ci\tn\t3\nuser\ttheme\t\"dark\"\nuser\twindow\t{\"w\":800,\"h\":600}\n"
    private static let expectedExport = #"{"ci":{"n":3},"user":{"theme":"dark","window":{"w":800,"h":600}}}"#

    /// The writes every read-only scenario refuses, with their standard input.
    private static let writes: [(arguments: [String], stdin: String?)] = [
        (["set", "user", "theme", "light"], nil),
        (["rm", "user", "theme"], nil),
        (["import", "-"], #"{"user":{"theme":"light"}}"#),
        (["batch"], "set user theme light\n"),
        (["incr", "ci", "n"], nil),
    ]

    private func checkReads(_ run: ([String], String?) throws -> RunResult) throws {
        let get = try run(["get", "user", "theme"], nil)
        #expect(get.status == 0 && get.stdout == "dark\n" && get.stderr.isEmpty, "\(get)")
        let list = try run(["list"], nil)
        #expect(list.status == 0 && list.stdout == Self.expectedList && list.stderr.isEmpty, "\(list)")
        let export = try run(["export"], nil)
        #expect(export.status == 0 && export.stderr.isEmpty, "\(export)")
        let exported = try JSONValue(parsing: export.stdout.trimmingCharacters(in: .newlines))
        #expect(exported.isEquivalent(to: try JSONValue(parsing: Self.expectedExport)), "\(export)")
    }

    private func checkWrites(_ run: ([String], String?) throws -> RunResult) throws {
        for write in Self.writes {
            let result = try run(write.arguments, write.stdin)
            #expect(result.status == 4, "\(write.arguments): \(result)")
            #expect(result.stderr.hasPrefix("prefs: "), "\(write.arguments): \(result)")
            #expect(result.stderr.filter { $0 == "\n" }.count == 1, "\(write.arguments): \(result)")
            // batch prints its progress line; nothing else writes to stdout.
            if write.arguments != ["batch"] { #expect(result.stdout.isEmpty, "\(write.arguments): \(result)") }
        }
    }

    @Test(arguments: [true, false])
    func readOnlyFileAndDirectory(withWALFiles: Bool) throws {
        let sandbox = try Sandbox()
        try seed(sandbox)
        if !withWALFiles { try removeSidecars(sandbox) }
        let directory = (sandbox.store as NSString).deletingLastPathComponent
        let before = try Data(contentsOf: URL(fileURLWithPath: sandbox.store))
        let filesBefore = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()

        // The store belongs to the user who runs prefs but is read-only: directory 0500, file 0400.
        if Self.isRoot {
            for path in try [sandbox.root] + FileManager.default.subpathsOfDirectory(atPath: sandbox.root).map({ sandbox.root + "/" + $0 })
            {
                #expect(chown(path, 65534, 65534) == 0, "chown \(path)")
            }
        }
        #expect(chmod(sandbox.store, 0o400) == 0)
        #expect(chmod(directory, 0o500) == 0)
        defer {
            chmod(directory, 0o700)
            chmod(sandbox.store, 0o600)
        }

        let run: ([String], String?) throws -> RunResult = { arguments, stdin in
            if Self.isRoot {
                return try Sandbox.exec(
                    Self.setpriv,
                    [
                        "--reuid=\(Self.nobody)", "--regid=\(Self.nobody)", "--clear-groups", "--inh-caps=-all", Sandbox.binary, "--store",
                        sandbox.store,
                    ]
                        + arguments,
                    stdin: stdin.map { Array($0.utf8) }, environment: sandbox.environment())
            }
            // checkReads and checkWrites expect each command's own status.
            return try Sandbox.exec(
                Sandbox.binary, ["--store", sandbox.store] + arguments, stdin: stdin.map { Array($0.utf8) },
                environment: sandbox.environment())
        }
        if Self.isRoot {
            // The scenario really runs unprivileged: nobody cannot create a file there.
            let probe = try Sandbox.exec(
                Self.setpriv,
                ["--reuid=\(Self.nobody)", "--regid=\(Self.nobody)", "--clear-groups", "--inh-caps=-all", "touch", directory + "/probe"],
                stdin: nil, environment: sandbox.environment())
            #expect(probe.status != 0, "\(probe)")
        }
        try checkReads(run)
        try checkWrites(run)
        try checkReads(run)

        #expect(try Data(contentsOf: URL(fileURLWithPath: sandbox.store)) == before, "the store file changed")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).sorted() == filesBefore)
    }

    @Test(
        .enabled(if: canMountReadOnly, "needs root and a private mount namespace (unshare -m) to mount a read-only tmpfs"),
        arguments: [true, false])
    func readOnlyMount(withWALFiles: Bool) throws {
        let sandbox = try Sandbox()
        try seed(sandbox)
        if withWALFiles { try leaveSidecars(sandbox) } else { try removeSidecars(sandbox) }
        let work = sandbox.root + "/mount-run"
        let mountPoint = sandbox.root + "/ro"
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        let commands: [(arguments: [String], stdin: String?)] =
            [(["get", "user", "theme"], nil), (["list"], nil), (["export"], nil)] + Self.writes + [(["get", "user", "theme"], nil)]
        // One shell in a private mount namespace: a tmpfs holding a copy of the store,
        // remounted read-only, then every command with its output kept in files outside it.
        var script = """
            set -e
            mount -t tmpfs -o size=16m,mode=0700 tmpfs "$1"
            cp -p "$2" "$1/prefs.db"
            for suffix in -wal -shm; do if [ -e "$2$suffix" ]; then cp -p "$2$suffix" "$1/prefs.db$suffix"; fi; done
            ls -A "$1" > "$3/ls-before"
            cp -p "$2" "$3/before.db"
            mount -o remount,ro "$1"
            set +e
            touch "$1/probe" 2>/dev/null && echo writable > "$3/probe"

            """
        for (index, command) in commands.enumerated() {
            if let stdin = command.stdin { try stdin.write(toFile: "\(work)/\(index).in", atomically: true, encoding: .utf8) }
            let arguments = ([Sandbox.binary, "--store", "$1/prefs.db"] + command.arguments).map {
                $0.hasPrefix("$1") ? "\"\($0)\"" : "'\($0)'"
            }
            let input = command.stdin == nil ? "/dev/null" : "\"$3/\(index).in\""
            script +=
                arguments.joined(separator: " ")
                + " < \(input) > \"$3/\(index).out\" 2> \"$3/\(index).err\"; echo $? > \"$3/\(index).rc\"\n"
        }
        script += "cmp -s \"$1/prefs.db\" \"$3/before.db\"; echo $? > \"$3/cmp\"\nls -A \"$1\" > \"$3/ls\"\n"
        let result = try Sandbox.exec(
            "/usr/bin/unshare", ["-m", "--propagation", "private", "sh", "-c", script, "sh", mountPoint, sandbox.store, work], stdin: nil,
            environment: sandbox.environment())
        #expect(result.status == 0, "\(result)")
        #expect(!FileManager.default.fileExists(atPath: work + "/probe"), "the mount was writable")

        func read(_ name: String) throws -> String { try String(contentsOfFile: "\(work)/\(name)", encoding: .utf8) }
        let outputs = try commands.indices.map { index in
            RunResult(
                stdout: try read("\(index).out"), stderr: try read("\(index).err"),
                status: Int32(try read("\(index).rc").trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1)
        }
        var position = 0
        try checkReads { _, _ in
            defer { position += 1 }
            return outputs[position]
        }
        try checkWrites { _, _ in
            defer { position += 1 }
            return outputs[position]
        }
        #expect(outputs[position].status == 0 && outputs[position].stdout == "dark\n", "\(outputs[position])")
        #expect(try read("cmp") == "0\n", "the store file changed")
        #expect(try read("ls") == read("ls-before"))
        #expect(try read("ls") == (withWALFiles ? "prefs.db\nprefs.db-shm\nprefs.db-wal\n" : "prefs.db\n"))
    }
}
