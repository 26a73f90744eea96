import Foundation
import PrefsCore
import PrefsTestSupport
import Testing

/// `prefs set --project` and `prefs rm --project`: the project file edited in a stable layout
/// (a change is a one-line diff), typed as `set` types a value, atomically and keeping its
/// mode, a locked key refused, the store untouched.
@Suite("ProjectFileTests", .timeLimit(.minutes(5)), .ownThreads)
struct ProjectFileTests {
    static let hasGit = FileManager.default.isExecutableFile(atPath: "/usr/bin/git")

    /// Runs `prefs --store STORE ARGS` in `directory` and expects `status`.
    @discardableResult
    static func run(
        _ box: Sandbox, _ arguments: [String], in directory: String, expecting status: Int32, environment extra: [String: String] = [:],
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> RunResult {
        try box.run(arguments, in: directory, expecting: status, environment: extra, sourceLocation: sourceLocation)
    }

    static func text(_ path: String) throws -> String {
        try String(contentsOfFile: path, encoding: .utf8)
    }

    @Test(.enabled(if: hasGit, "needs git"))
    func aCIScriptEditsTheProjectFileAsAOneLineDiff() throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["set", "user", "theme", "dark"])
        let before = try box.storeSnapshot()
        let repo = box.root + "/checkout"
        let script = """
            set -eu
            git init -q "$REPO"
            cd "$REPO"
            git config user.email ci@example.invalid && git config user.name ci
            mkdir -p build && cd build
            prefs set --project ci retries 3
            prefs set --project ci region eu-west
            prefs set --project switch deploy-frozen false
            prefs set --project switch new-checkout '{"state":"ENABLED","variants":{"on":true,"off":false},"defaultVariant":"on"}'
            cd "$REPO"
            git add .prefs.json && git commit -q -m settings
            (cd build && prefs set --project ci retries 5)
            git diff --numstat
            git diff -U0 | grep '^[-+] '
            test "$(prefs get ci retries)" = 5
            prefs flag enabled new-checkout && echo "checkout on"
            if prefs flag enabled deploy-frozen; then echo frozen; exit 1; fi
            prefs get --show-origin ci region
            prefs rm --project ci region
            git diff --numstat
            """
        let binDirectory = (Sandbox.binary as NSString).deletingLastPathComponent
        var env = box.environment(["REPO": repo, "PREFS_STORE": box.store])
        env["PATH"] = binDirectory + ":" + (env["PATH"] ?? "/usr/bin:/bin")
        let result = try Sandbox.exec("/bin/bash", ["-c", script], stdin: nil, environment: env)
        #expect(result.status == 0, "\(result)")
        #expect(
            result.stdout
                == "1\t1\t.prefs.json\n-    \"retries\": 3\n+    \"retries\": 5\ncheckout on\nproject:\(repo)/.prefs.json\teu-west\n"
                + "1\t2\t.prefs.json\n",
            "\(result)")
        #expect(result.stderr.isEmpty, "\(result.stderr)")
        // Created at the top of the work tree (not in build/), sorted, one member per line.
        #expect(!FileManager.default.fileExists(atPath: repo + "/build/.prefs.json"))
        #expect(
            try Self.text(repo + "/.prefs.json") == """
                {
                  "ci": {
                    "retries": 5
                  },
                  "switch": {
                    "deploy-frozen": false,
                    "new-checkout": {"state":"ENABLED","variants":{"on":true,"off":false},"defaultVariant":"on"}
                  }
                }

                """)
        #expect(try box.storeSnapshot() == before, "the store is not written")
    }

    @Test func aLockedKeyIsRefusedAndNothingIsWritten() throws {
        let box = try Sandbox(inProcess: true)
        let system = box.root + "/system"
        try FileManager.default.createDirectory(atPath: system + "/locks", withIntermediateDirectories: true)
        #expect(chmod(system, 0o755) == 0 && chmod(system + "/locks", 0o755) == 0)
        try "user/pinned\nswitch/kill*\n".write(toFile: system + "/locks/admin", atomically: false, encoding: .utf8)
        #expect(chmod(system + "/locks/admin", 0o644) == 0)
        let project = box.root + "/project.json"
        let original = #"{"user": {"pinned": "mine"}}"# + "\n"
        try original.write(toFile: project, atomically: false, encoding: .utf8)
        let env = ["PREFS_SYSTEM_DIR": system, "PREFS_PROJECT_FILE": project]
        try box.runOK(["set", "user", "free", "1"], environment: env)
        let before = try box.storeSnapshot()
        for arguments in [
            ["set", "--project", "user", "pinned", "x"], ["set", "--project", "switch", "kill-all", "true"],
            ["rm", "--project", "user", "pinned"],
        ] {
            let refused = try box.runFailing(arguments, status: 4, environment: env)
            #expect(refused.stderr.contains("is locked by \(system)/locks/admin"), "\(refused)")
            #expect(try Self.text(project) == original, "prefs \(arguments.joined(separator: " ")) changed the project file")
            #expect(try box.storeSnapshot() == before, "prefs \(arguments.joined(separator: " ")) changed the store")
        }
        try box.runOK(["set", "--project", "user", "other", "1"], environment: env)
        #expect(try Self.text(project) == "{\n  \"user\": {\n    \"other\": 1,\n    \"pinned\": \"mine\"\n  }\n}\n")
        #expect(try box.storeSnapshot() == before)
    }

    @Test func valuesAreTypedAsSetTypesThemAndTheModeIsKept() throws {
        let box = try Sandbox(inProcess: true)
        let directory = box.root + "/work"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let project = directory + "/.prefs.json"
        try #"{"user":{"z":1,"a":[1, 2]},"ci":{}}"#.write(toFile: project, atomically: false, encoding: .utf8)
        #expect(chmod(project, 0o640) == 0)
        try box.runOK(["schema", "load", "-"], stdin: #"{"user":{"beta":{"type":"boolean"}}}"#)
        try Self.run(box, ["set", "--project", "user", "n", "42.50"], in: directory, expecting: 0)
        try Self.run(box, ["set", "--project", "user", "s", "42", "--string"], in: directory, expecting: 0)
        try Self.run(box, ["set", "--project", "user", "beta", "yes"], in: directory, expecting: 0)
        try Self.run(box, ["set", "--project", "user", "t", "x", "--type", "integer"], in: directory, expecting: 6)
        try Self.run(box, ["set", "--project", "user", "beta", "[1]"], in: directory, expecting: 6)
        try Self.run(box, ["set", "--project", "user", "t", "1", "--ttl", "1m"], in: directory, expecting: 2)
        try Self.run(box, ["rm", "--project", "user", "missing", "--must-exist"], in: directory, expecting: 1)
        try Self.run(box, ["rm", "--project", "user", "z"], in: directory, expecting: 0)
        #expect(
            try Self.text(project)
                == "{\n  \"user\": {\n    \"a\": [1,2],\n    \"beta\": true,\n    \"n\": 42.50,\n    \"s\": \"42\"\n  }\n}\n")
        let attributes = try FileManager.default.attributesOfItem(atPath: project)
        #expect((attributes[.posixPermissions] as? Int) == 0o640)
        #expect(try Self.run(box, ["get", "--show-origin", "user", "s"], in: directory, expecting: 0).stdout == "project:\(project)\t42\n")
        #expect(try box.storeSnapshot().contains("\"s\"") == false)
        // No temporary file is left next to it.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == [".prefs.json"])
        // The project layer turned off: nothing to edit (usage).
        let off = try box.runFailing(["set", "--project", "user", "x", "1"], status: 2, environment: ["PREFS_PROJECT_FILE": ""])
        #expect(off.stderr.contains("the project layer is off"), "\(off)")
    }

    /// A run in process has a working directory of its own (tests run several at once in one
    /// process, whose current directory is none of theirs): the project file is looked up and
    /// created from it, a relative `--store` is opened in it, and the children it starts
    /// start in it.
    @Test func aRunInProcessHasAWorkingDirectoryOfItsOwn() throws {
        let box = try Sandbox(inProcess: true)
        let first = box.root + "/first"
        let second = box.root + "/second"
        for directory in [first + "/.git", second + "/.git", second + "/sub"] {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        try #"{"user":{"where":"first"}}"#.write(toFile: first + "/.prefs.json", atomically: false, encoding: .utf8)
        let env = box.environment()
        func run(_ arguments: [String], in directory: String) -> RunResult {
            Sandbox.runInProcess(["--store", "local.db"] + arguments, stdin: nil, environment: env, workingDirectory: directory)
        }
        let set = run(["set", "user", "k", "1"], in: second)
        #expect(set.status == 0 && set.stderr.isEmpty, "\(set)")
        #expect(FileManager.default.fileExists(atPath: second + "/local.db"))
        #expect(!FileManager.default.fileExists(atPath: first + "/local.db"))
        let found = run(["get", "--show-origin", "user", "where"], in: first)
        #expect(found.status == 0 && found.stdout == "project:\(first)/.prefs.json\tfirst\n", "\(found)")
        let missing = run(["get", "user", "where"], in: second)
        #expect(missing.status == 1 && missing.stdout.isEmpty, "\(missing)")
        let edit = run(["set", "--project", "user", "where", "second"], in: second + "/sub")
        #expect(edit.status == 0, "\(edit)")
        #expect(try Self.text(second + "/.prefs.json") == "{\n  \"user\": {\n    \"where\": \"second\"\n  }\n}\n")
        #expect(try Self.text(first + "/.prefs.json") == #"{"user":{"where":"first"}}"#)
        #expect(run(["get", "user", "k"], in: second).stdout == "1\n")
        // A command exec starts starts there too.
        let pwd = run(["exec", "user", "--", "/bin/sh", "-c", "pwd -P"], in: second + "/sub")
        #expect(pwd.status == 0 && pwd.stdout == "\(second)/sub\n", "\(pwd)")
    }

    @Test(.enabled(if: getuid() == 0, "needs root to give a file to another user"))
    func aProjectFileOfAnotherUserIsNotWritten() throws {
        let box = try Sandbox(inProcess: true)
        let project = box.root + "/theirs.json"
        let original = #"{"user":{"a":1}}"#
        try original.write(toFile: project, atomically: false, encoding: .utf8)
        #expect(chown(project, 65534, 65534) == 0)
        let refused = try box.runFailing(["set", "--project", "user", "a", "2"], status: 4, environment: ["PREFS_PROJECT_FILE": project])
        #expect(refused.stderr.contains("\(project) is owned by uid 65534, not by you"), "\(refused)")
        #expect(try Self.text(project) == original)
    }

    /// Eight `set --project` processes at once, each adding its own key: every edit lands (each
    /// reads what the ones before it wrote), and no temporary file is left.
    @Test func editsAtTheSameMomentAllLand() throws {
        let box = try Sandbox()
        let directory = box.root + "/work"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let project = directory + "/.prefs.json"
        let script = """
            for i in 1 2 3 4 5 6 7 8; do
                "$PREFS" --store "$STORE" set --project ci "k$i" "$i" & pids="$pids $!"
            done
            status=0
            for pid in $pids; do wait "$pid" || status=1; done
            exit $status
            """
        let ran = try Sandbox.exec(
            "/bin/bash", ["-c", script], stdin: nil,
            environment: box.environment(["PREFS": Sandbox.binary, "STORE": box.store, "PREFS_PROJECT_FILE": project]))
        #expect(ran.status == 0, "\(ran)")
        let keys = (1...8).map { "    \"k\($0)\": \($0)" }.joined(separator: ",\n")
        #expect(try Self.text(project) == "{\n  \"ci\": {\n" + keys + "\n  }\n}\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == [".prefs.json"])
    }

    /// A project file that is a symbolic link is not followed for an edit (exit 4), wherever it
    /// points; the file it names is unchanged.
    @Test func aSymbolicLinkIsNotEdited() throws {
        let box = try Sandbox(inProcess: true)
        let target = box.root + "/elsewhere.json"
        let original = #"{"user":{"a":1}}"#
        try original.write(toFile: target, atomically: false, encoding: .utf8)
        let project = box.root + "/.prefs.json"
        try #require(symlink(target, project) == 0)
        let refused = try box.runFailing(["set", "--project", "user", "a", "2"], status: 4, environment: ["PREFS_PROJECT_FILE": project])
        #expect(refused.stderr.contains("\(project) is not a regular file: not editing it"), "\(refused)")
        #expect(try Self.text(target) == original)
    }

    /// An edit that would make the file larger than the layer reads (8 MiB) is refused (exit 6)
    /// and the file keeps what it had: written, it would be skipped and every key in it gone.
    @Test func anEditTheLayerCouldNotReadIsRefused() throws {
        let box = try Sandbox(inProcess: true)
        let project = box.root + "/.prefs.json"
        let env = ["PREFS_PROJECT_FILE": project]
        try box.runOK(["set", "--project", "ci", "retries", "3"], environment: env)
        let before = try Self.text(project)
        let big = String(repeating: "x", count: 9_000_000)
        let refused = try box.runFailing(["set", "--project", "ci", "blob", "-"], status: 6, stdin: big, environment: env)
        #expect(refused.stderr.contains("\(project) would be 9000"), "\(refused.stderr.prefix(300))")
        #expect(refused.stderr.contains("more than the 8 MiB a project file may be"), "\(refused.stderr.prefix(300))")
        #expect(try Self.text(project) == before)
        #expect(try box.runOK(["get", "ci", "retries"], environment: env).stdout == "3\n")
    }

    /// Anyone who can read the directory can hold its lock: an edit waits as long as a store
    /// write would (`PREFS_BUSY_TIMEOUT`), then fails with exit 4, never forever.
    @Test func anEditGivesUpWhenTheDirectoryStaysLocked() throws {
        let box = try Sandbox(inProcess: true)
        let project = box.root + "/.prefs.json"
        let directory = open(box.root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        try #require(directory >= 0 && flock(directory, LOCK_EX) == 0)
        defer { close(directory) }
        let started = Date()
        let refused = try box.runFailing(
            ["set", "--project", "ci", "retries", "4"], status: 4,
            environment: ["PREFS_PROJECT_FILE": project, "PREFS_BUSY_TIMEOUT": "0.5"])
        #expect(refused.stderr == "prefs: the directory of \(project) is locked by another process; gave up waiting\n", "\(refused)")
        #expect(Date().timeIntervalSince(started) < 10)
        #expect(!FileManager.default.fileExists(atPath: project))
        // Once the holder lets go the edit lands.
        _ = flock(directory, LOCK_UN)
        try box.runOK(["set", "--project", "ci", "retries", "4"], environment: ["PREFS_PROJECT_FILE": project])
    }

    /// A current directory that was removed has no path (getcwd fails): the editor does not
    /// fall back to `/` (a root-owned `/.prefs.json` every user would then read).
    @Test func aRemovedCurrentDirectoryIsNoPlaceForAProjectFile() throws {
        #expect(throws: PrefsError.self) { try ProjectFile.target(variable: { _ in nil }, directory: "") }
        do {
            _ = try ProjectFile.target(variable: { _ in nil }, directory: "")
        } catch let error as PrefsError {
            #expect(error.exitCode == 4 && error.message.hasPrefix("cannot tell the current directory"), "\(error.message)")
        }
        let box = try Sandbox()
        let gone = box.root + "/gone"
        try FileManager.default.createDirectory(atPath: gone, withIntermediateDirectories: false)
        let result = try Sandbox.exec(
            "/bin/sh",
            ["-c", "cd \"$1\" && rmdir \"$1\" && exec \"$0\" --store \"$2\" set --project ci a 1", Sandbox.binary, gone, box.store],
            stdin: nil, environment: box.environment())
        #expect(result.status == 4 && result.stderr.contains("cannot tell the current directory"), "\(result)")
    }
}
