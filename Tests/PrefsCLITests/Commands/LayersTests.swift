import Foundation
import PrefsTestSupport
import Testing

/// The project and system layers and the system locks, as a user sees them: the lookup order
/// (override → store → project → system → default, a lock answering the system value), every
/// write path refusing a locked key with the store unchanged, untrusted and oversized files.
@Suite("LayersTests", .timeLimit(.minutes(5)), .ownThreads)
struct LayersTests {
    static let isRoot = getuid() == 0

    /// A sandbox with a system directory (two JSON files, one lock file), a git repository
    /// holding `.prefs.json` (with a subdirectory and a nested repository), and a store.
    final class Layout: Sendable {
        let box: Sandbox
        let system: String
        let repository: String
        let project: String
        let lockFile: String
        let schema: String

        init() throws {
            box = try Sandbox(inProcess: true)
            system = box.root + "/etc-prefs"
            repository = box.root + "/repo"
            project = repository + "/.prefs.json"
            lockFile = system + "/locks/00-admin"
            schema = box.root + "/schema.json"
            let files = FileManager.default
            for directory in [
                system + "/locks", repository + "/.git", repository + "/sub/deeper", repository + "/nested/.git", box.root + "/elsewhere",
            ] {
                try files.createDirectory(atPath: directory, withIntermediateDirectories: true)
            }
            #expect(chmod(system, 0o755) == 0 && chmod(system + "/locks", 0o755) == 0)
            try Self.write(
                system + "/10-base.json",
                #"{"user":{"a":"sys","b":"sys","c":"sys","d":"sys","lk":"sys-locked","lp.x":"sys-lp","f2":"sys"},"switch":{"kill":false}}"#)
            try Self.write(system + "/20-more.json", #"{"user":{"b":"sys2"}}"#)
            try Self.write(lockFile, "# pinned by the admin\nuser/lk\nuser/lp.*   # every lp. key\n\nswitch/kill\n")
            try Self.write(project, #"{"user":{"a":"proj","c":"proj","e":"proj","lk":"proj","f":"proj"},"switch":{"new-ui":true}}"#)
            try Self.write(
                schema,
                #"{"user":{"f":{"type":"string","default":"schema"},"f2":{"type":"string","default":"schema"},"g":{"type":"string","default":"schema"}}}"#
            )
            // The store, written before the locks apply (no system directory): values for
            // locked keys too, as a sync pull or an old store would hold them.
            let unlocked = ["PREFS_SYSTEM_DIR": box.root + "/none", "PREFS_PROJECT_FILE": ""]
            try box.runOK(["schema", "load", schema], environment: unlocked)
            for (key, value) in [("a", "store"), ("d", "store"), ("lk", "store"), ("lp.y", "store"), ("g", "store")] {
                try box.runOK(["set", "user", key, value], environment: unlocked)
            }
            try box.runOK(["set", "switch", "kill", "true"], environment: unlocked)
        }

        static func write(_ path: String, _ text: String, mode: mode_t = 0o644) throws {
            try text.write(toFile: path, atomically: false, encoding: .utf8)
            #expect(chmod(path, mode) == 0)
        }

        /// The environment of the layers: system directory and project discovery (or a file).
        func environment(project setting: String? = nil, system: String? = nil) -> [String: String] {
            var env = ["PREFS_SYSTEM_DIR": system ?? self.system]
            if let setting { env["PREFS_PROJECT_FILE"] = setting }
            return env
        }

        /// Runs `prefs --store STORE ARGS` in `directory` (project discovery starts there).
        @discardableResult
        func run(
            _ arguments: [String], in directory: String, expecting status: Int32, environment extra: [String: String],
            binary: Bool = false, sourceLocation: SourceLocation = #_sourceLocation
        ) throws -> RunResult {
            try box.run(arguments, in: directory, expecting: status, environment: extra, binary: binary, sourceLocation: sourceLocation)
        }
    }

    /// The lookup order as (directory, arguments, environment, exit status, stdout).
    static func lookupCases(_ layout: Layout) -> [(String, [String], [String: String], Int32, String)] {
        let repo = layout.repository
        let sys = layout.system
        let here = layout.environment()
        let noProject = layout.environment(project: "")
        let emptySystem = layout.environment(system: layout.box.root + "/elsewhere")
        // (directory, arguments, environment, exit status, stdout)
        let cases: [(String, [String], [String: String], Int32, String)] = [
            (repo, ["get", "--show-origin", "user", "a"], here, 0, "store\tstore\n"),
            (repo, ["--override", "user:a=ov", "get", "--show-origin", "user", "a"], here, 0, "override\tov\n"),
            (repo, ["get", "--show-origin", "user", "c"], here, 0, "project:\(repo)/.prefs.json\tproj\n"),
            (repo, ["get", "--show-origin", "user", "e"], here, 0, "project:\(repo)/.prefs.json\tproj\n"),
            (repo, ["--override", "user:e=ov", "get", "--show-origin", "user", "e"], here, 0, "override\tov\n"),
            (repo, ["get", "--show-origin", "user", "b"], here, 0, "system:\(sys)/20-more.json\tsys2\n"),
            (repo, ["get", "--show-origin", "user", "d"], here, 0, "store\tstore\n"),
            (repo, ["get", "--show-origin", "user", "lk"], here, 0, "locked:\(sys)/locks/00-admin\tsys-locked\n"),
            (
                repo, ["--override", "user:lk=ov", "get", "--show-origin", "user", "lk"], here, 0,
                "locked:\(sys)/locks/00-admin\tsys-locked\n"
            ),
            (repo, ["get", "--show-origin", "user", "lp.x"], here, 0, "locked:\(sys)/locks/00-admin\tsys-lp\n"),
            (repo, ["get", "user", "lp.y"], here, 1, ""),
            (repo, ["get", "--show-origin", "user", "f"], here, 0, "project:\(repo)/.prefs.json\tproj\n"),
            (repo, ["get", "--show-origin", "user", "f2"], here, 0, "system:\(sys)/10-base.json\tsys\n"),
            (repo, ["get", "--show-origin", "user", "g"], here, 0, "store\tstore\n"),
            (repo, ["get", "--show-origin", "user", "h"], here, 1, ""),
            (repo, ["get", "user", "a"], here, 0, "store\n"),
            (repo, ["get", "user", "lk"], here, 0, "sys-locked\n"),
            (repo, ["get", "--show-origin", "user", "c"], noProject, 0, "system:\(sys)/10-base.json\tsys\n"),
            (repo, ["get", "--show-origin", "user", "f"], noProject, 0, "schema\tschema\n"),
            (repo, ["get", "user", "e"], noProject, 1, ""),
            (repo, ["get", "--show-origin", "user", "c"], emptySystem, 0, "project:\(repo)/.prefs.json\tproj\n"),
            (repo, ["get", "--show-origin", "user", "lk"], emptySystem, 0, "store\tstore\n"),
            (repo, ["get", "user", "b"], emptySystem, 1, ""),
            (repo + "/sub/deeper", ["get", "--show-origin", "user", "c"], here, 0, "project:\(repo)/.prefs.json\tproj\n"),
            (repo + "/nested", ["get", "--show-origin", "user", "c"], here, 0, "system:\(sys)/10-base.json\tsys\n"),
            (layout.box.root + "/elsewhere", ["get", "--show-origin", "user", "e"], here, 1, ""),
            (
                layout.box.root + "/elsewhere", ["get", "--show-origin", "user", "e"], layout.environment(project: layout.project), 0,
                "project:\(repo)/.prefs.json\tproj\n"
            ),
            (
                repo, ["describe", "--json", "user", "c"], here, 0,
                #"{"domain":"user","key":"c","type":"any","value":"proj","origin":"project:"# + repo + #"/.prefs.json","inSchema":false}"#
                    + "\n"
            ),
            (repo, ["flag", "enabled", "new-ui"], here, 0, ""),
            (repo, ["flag", "enabled", "kill"], here, 1, ""),
            (repo, ["flag", "enabled", "kill"], emptySystem, 0, ""),
            (repo, ["writable", "user", "a"], here, 0, ""),
            (repo, ["writable", "user", "lp.anything"], here, 1, "locked by \(sys)/locks/00-admin\n"),
            (
                repo, ["list", "--show-origin", "user", "--prefix", "l"], here, 0,
                "locked:\(sys)/locks/00-admin\tlk\t\"sys-locked\"\nlocked:\(sys)/locks/00-admin\tlp.x\t\"sys-lp\"\n"
            ),
            (
                repo, ["list", "--show-origin", "user"], noProject, 0,
                "store\ta\t\"store\"\nsystem:\(sys)/20-more.json\tb\t\"sys2\"\nsystem:\(sys)/10-base.json\tc\t\"sys\"\nstore\td\t\"store\"\n"
                    + "schema\tf\t\"schema\"\nsystem:\(sys)/10-base.json\tf2\t\"sys\"\nstore\tg\t\"store\"\n"
                    + "locked:\(sys)/locks/00-admin\tlk\t\"sys-locked\"\nlocked:\(sys)/locks/00-admin\tlp.x\t\"sys-lp\"\n"
            ),
        ]
        return cases
    }

    @Test func lookupOrderTable() throws {
        let layout = try Layout()
        let repo = layout.repository
        let here = layout.environment()
        let cases = Self.lookupCases(layout)
        #expect(cases.count >= 25)
        for (directory, arguments, environment, status, stdout) in cases {
            let result = try layout.run(arguments, in: directory, expecting: status, environment: environment)
            #expect(result.stdout == stdout, "prefs \(arguments.joined(separator: " ")) in \(directory) with \(environment)")
            #expect(result.stderr.isEmpty || status != 0, "\(result.stderr)")
        }
        // The export of what reads answer follows the same order.
        let export = try layout.run(["export", "--effective", "user"], in: repo, expecting: 0, environment: here)
        #expect(export.stdout.contains(#""lk":"sys-locked""#) && export.stdout.contains(#""c":"proj""#), "\(export)")
    }

    @Test func everyWritePathRefusesALockedKey() throws {
        let layout = try Layout()
        let box = layout.box
        let env = layout.environment(project: "")
        let backup = box.root + "/backup.db"
        try box.runOK(["backup", backup], environment: env)
        let editor = box.root + "/editor.sh"
        try Layout.write(editor, "#!/bin/sh\necho '\"edited\"' > \"$1\"\n", mode: 0o755)
        let opsFile = box.root + "/ops.json"
        try Layout.write(
            opsFile, #"[{"op":"set","domain":"user","key":"ok","value":1},{"op":"set","domain":"user","key":"lk","value":"x"}]"#)
        let importFile = box.root + "/import.json"
        try Layout.write(importFile, #"{"user":{"ok":1,"lp.z":2}}"#)
        let before = try box.storeSnapshot()
        let refusals: [([String], String?, [String: String])] = [
            (["set", "user", "lk", "mine"], nil, [:]),
            (["set", "user", "lp.new", "mine"], nil, [:]),
            (["set", "user", "lk", "mine", "--if-absent"], nil, [:]),
            (["rm", "user", "lk"], nil, [:]),
            (["rm", "user", "lp.y", "--must-exist"], nil, [:]),
            (["incr", "user", "lp.count"], nil, [:]),
            (["apply", opsFile], nil, [:]),
            (["batch"], "set user lk 2\n", [:]),
            (["import", importFile], nil, [:]),
            (["edit", "user", "lk"], nil, ["EDITOR": editor, "VISUAL": editor]),
            (["reset", "user", "lk"], nil, [:]),
            (["restore", backup, "--force"], nil, [:]),
        ]
        for (arguments, stdin, extra) in refusals {
            let result = try box.runFailing(arguments, status: 4, stdin: stdin, environment: env.merging(extra) { $1 })
            #expect(result.stderr.contains("is locked by \(layout.lockFile)"), "prefs \(arguments.joined(separator: " ")): \(result)")
            #expect(try box.storeSnapshot() == before, "prefs \(arguments.joined(separator: " ")) changed the store")
        }
        // An unlocked key is still written.
        try box.runOK(["set", "user", "free", "1"], environment: env)
    }

    /// A restore replaces every row: it is refused when the backup holds a locked key of a
    /// custom domain (kept in the shared table), and when it would remove a locked key the store
    /// holds (the backup does not have it) — as `import --replace` refuses the same removal.
    @Test func aRestoreThatWouldWriteOrRemoveALockedKeyIsRefused() throws {
        let box = try Sandbox(inProcess: true)
        let system = box.root + "/etc-prefs"
        try FileManager.default.createDirectory(atPath: system + "/locks", withIntermediateDirectories: true)
        #expect(chmod(system, 0o755) == 0 && chmod(system + "/locks", 0o755) == 0)
        let env = ["PREFS_SYSTEM_DIR": system, "PREFS_PROJECT_FILE": ""]
        // A custom domain's locked key in the backup, another value in the store.
        try box.runOK(["set", "ci", "retries", "5"], environment: env)
        try box.runOK(["backup", box.root + "/pre.db"], environment: env)
        try box.runOK(["set", "ci", "retries", "7"], environment: env)
        try Layout.write(system + "/locks/site", "ci/retries\n")
        var before = try box.storeSnapshot()
        let written = try box.runFailing(["restore", "--force", box.root + "/pre.db"], status: 4, environment: env)
        #expect(written.stderr == "prefs: ci/retries is locked by \(system)/locks/site\n", "\(written)")
        #expect(try box.storeSnapshot() == before)
        // A backup without the locked key, restored over a store that holds it.
        try FileManager.default.removeItem(atPath: system + "/locks/site")
        try box.runOK(["rm", "ci", "retries"], environment: env)
        try box.runOK(["set", "user", "other", "1"], environment: env)
        try box.runOK(["backup", box.root + "/nolock.db"], environment: env)
        try box.runOK(["set", "user", "telemetry", "mine"], environment: env)
        try Layout.write(system + "/locks/site", "user/telemetry\n")
        before = try box.storeSnapshot()
        let removed = try box.runFailing(["restore", "--force", box.root + "/nolock.db"], status: 4, environment: env)
        #expect(removed.stderr == "prefs: user/telemetry is locked by \(system)/locks/site\n", "\(removed)")
        #expect(try box.storeSnapshot() == before)
        try Layout.write(box.root + "/doc.json", #"{"user":{"other":1}}"#)
        try box.runFailing(["import", "--replace", box.root + "/doc.json"], status: 4, environment: env)
        // Without a locked row on either side the restore goes through.
        try FileManager.default.removeItem(atPath: system + "/locks/site")
        try Layout.write(system + "/locks/site", "user/elsewhere\n")
        try box.runOK(["restore", "--force", box.root + "/nolock.db"], environment: env)
        #expect(try box.runOK(["get", "user", "other"], environment: env).stdout == "1\n")
    }

    /// A lock file saved with CRLF line ends or a UTF-8 byte-order mark still locks: a lock lost
    /// to an editor's way of saving would let every write through (exit 0).
    @Test(arguments: ["\u{FEFF}user/crlf\r\nuser/bom\r\n", "\u{FEFF}user/crlf\nuser/bom\n"])
    func aLockFileWithCRLFOrABOMStillLocks(text: String) throws {
        let layout = try Layout()
        try Layout.write(layout.system + "/locks/10-windows", text)
        let env = layout.environment(project: "")
        for key in ["crlf", "bom"] {
            let refused = try layout.box.runFailing(["set", "user", key, "mine"], status: 4, environment: env)
            #expect(refused.stderr.contains("user/\(key) is locked by \(layout.system)/locks/10-windows"), "\(refused)")
            #expect(!refused.stderr.contains("ignoring"), "\(refused)")
        }
    }

    /// Only LF, CRLF and CR end a lock line: a U+2028, U+0085 or vertical tab inside a line
    /// does not split it into a lock on the part before (`user/motd`).
    @Test func aLineSeparatorInsideALockLineDoesNotSplitIt() throws {
        let layout = try Layout()
        try Layout.write(layout.system + "/locks/20-odd", "user/motd\u{2028}banner\nuser/tab\u{0B}x\nuser/nel\u{85}y\n")
        let env = layout.environment(project: "")
        for key in ["motd", "tab", "nel"] {
            let result = try layout.box.runOK(["set", "user", key, "mine"], environment: env)
            #expect(!result.stderr.contains("locked"), "\(key): \(result)")
        }
    }

    @Test(.enabled(if: isRoot, "needs root to give a file to another user"))
    func aProjectFileOfAnotherUserIsIgnored() throws {
        let layout = try Layout()
        #expect(chown(layout.project, 65534, 65534) == 0)
        let env = layout.environment()
        let ignored = try layout.run(["get", "--show-origin", "user", "c"], in: layout.repository, expecting: 0, environment: env)
        #expect(ignored.stdout == "system:\(layout.system)/10-base.json\tsys\n")
        #expect(ignored.stderr.contains("warning: ignoring \(layout.project): owned by uid 65534"), "\(ignored)")
        // Named in PREFS_PROJECT_FILE it is trusted (the opt-in).
        let named = try layout.run(
            ["get", "user", "c"], in: layout.repository, expecting: 0, environment: layout.environment(project: layout.project))
        #expect(named.stdout == "proj\n" && named.stderr.isEmpty, "\(named)")
        // A system file writable by others, or owned by another user, is ignored too.
        #expect(chmod(layout.system + "/20-more.json", 0o666) == 0)
        #expect(chown(layout.system + "/10-base.json", 65534, 65534) == 0)
        let system = try layout.run(["get", "user", "b"], in: layout.box.root, expecting: 1, environment: env)
        #expect(system.stderr.contains("ignoring \(layout.system)/20-more.json: writable by group or others"), "\(system)")
        #expect(system.stderr.contains("ignoring \(layout.system)/10-base.json: owned by uid 65534"), "\(system)")
    }

    @Test func aHugeOrDeepProjectFileIsIgnored() throws {
        let layout = try Layout()
        let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        try Layout.write(layout.project, #"{"user":{"c":"# + deep + "}}")
        let deepRun = try layout.run(["get", "user", "c"], in: layout.repository, expecting: 0, environment: layout.environment())
        #expect(deepRun.stdout == "sys\n")
        #expect(
            deepRun.stderr.contains("warning: ignoring \(layout.project): ") && deepRun.stderr.contains("nested deeper than 512"),
            "\(deepRun)")
        let huge = #"{"user":{"c":""# + String(repeating: "x", count: 9 << 20) + #""}}"#
        try Layout.write(layout.project, huge)
        let hugeRun = try layout.run(["get", "user", "c"], in: layout.repository, expecting: 0, environment: layout.environment())
        #expect(hugeRun.stdout == "sys\n")
        #expect(hugeRun.stderr.contains("warning: ignoring \(layout.project): larger than 8 MiB"), "\(hugeRun)")
        let doctor = try layout.run(["doctor"], in: layout.repository, expecting: 0, environment: layout.environment())
        #expect(doctor.stdout.contains("ok\tlayers\tsystem: \(layout.lockFile): 3 lock(s)"), "\(doctor)")
        #expect(doctor.stdout.contains("warning\tlayers\tignoring \(layout.project): larger than 8 MiB"), "\(doctor)")
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/git"), "needs git"))
    func aCIScriptReadsTheRepositorysPrefsFile() throws {
        let box = try Sandbox(inProcess: true)
        let repo = box.root + "/checkout"
        let script = """
            set -eu
            git init -q "$REPO"
            cd "$REPO"
            cat > .prefs.json <<'JSON'
            {"ci": {"retries": 3, "region": "eu-west"},
             "switch": {"deploy-frozen": false, "new-checkout": true}}
            JSON
            mkdir -p build && cd build
            test "$(prefs get ci retries)" = 3
            echo "region $(prefs get ci region)"
            if prefs flag enabled deploy-frozen; then echo frozen; exit 1; fi
            prefs flag enabled new-checkout && echo "checkout on"
            prefs get --show-origin ci region
            """
        let binDirectory = (Sandbox.binary as NSString).deletingLastPathComponent
        var env = box.environment(["REPO": repo, "PREFS_STORE": box.store, "PREFS_SYSTEM_DIR": box.root + "/no-system"])
        env["PATH"] = binDirectory + ":" + (env["PATH"] ?? "/usr/bin:/bin")
        let result = try Sandbox.exec("/bin/bash", ["-c", script], stdin: nil, environment: env)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == "region eu-west\ncheckout on\nproject:\(repo)/.prefs.json\teu-west\n", "\(result)")
    }

    /// A plain `get` (with `--json` or `--show-origin`) is answered on the start-up path with
    /// layer files too, exactly as the full command answers it (`PREFS_QUICK_GET=0`): every
    /// `get` of the lookup table, both ways, the same stdout, stderr and exit status. The
    /// cases it must answer itself (`PREFS_REQUIRE_QUICK=1`: exit 97 when it did not) are those
    /// a layer or the store answers without an override; a default, an override, a layer file
    /// skipped with a warning and a missing key are left to the full command.
    @Test func aPlainGetReadsTheLayersOnItsStartUpPathAsTheFullCommandDoes() throws {
        let layout = try Layout()
        let fullOnly = ["PREFS_QUICK_GET": "0"]
        let required = ["PREFS_REQUIRE_QUICK": "1"]
        func same(_ quick: RunResult, _ full: RunResult) -> Bool {
            quick.stdout == full.stdout && quick.stderr == full.stderr && quick.status == full.status
        }
        var answered = 0
        for (directory, arguments, environment, status, _) in Self.lookupCases(layout) where arguments.contains("get") {
            var origin = ""
            for line in [arguments, arguments + ["--json"]] {
                let full = try layout.run(
                    line, in: directory, expecting: status, environment: environment.merging(fullOnly) { $1 }, binary: true)
                let quick = try layout.run(line, in: directory, expecting: status, environment: environment, binary: true)
                #expect(same(quick, full), "prefs \(line.joined(separator: " ")) in \(directory) with \(environment): \(quick) vs \(full)")
                origin = String(full.stdout.split(separator: "\t").first ?? "")
            }
            let byLayerOrStore = status == 0 && !arguments.contains("--override") && !["schema", "default"].contains(origin)
            try layout.run(
                arguments, in: directory, expecting: byLayerOrStore ? 0 : 97, environment: environment.merging(required) { $1 },
                binary: true)
            if byLayerOrStore { answered += 1 }
        }
        #expect(answered >= 15)
        // No layer files: as before.
        let bare = layout.box.root + "/elsewhere/checkout"
        try FileManager.default.createDirectory(atPath: bare + "/.git", withIntermediateDirectories: true)
        let none = layout.environment(system: layout.box.root + "/none").merging(required) { $1 }
        #expect(try layout.run(["get", "user", "a"], in: bare, expecting: 0, environment: none, binary: true).stdout == "store\n")
        // A layer file skipped with a warning: the full command answers, and warns.
        #expect(chmod(layout.system + "/20-more.json", 0o666) == 0)
        let here = layout.environment()
        let warned = try layout.run(["get", "user", "a"], in: layout.repository, expecting: 0, environment: here, binary: true)
        let full = try layout.run(
            ["get", "user", "a"], in: layout.repository, expecting: 0, environment: here.merging(fullOnly) { $1 }, binary: true)
        #expect(warned.stdout == "store\n" && warned.stderr.contains("ignoring \(layout.system)/20-more.json: writable by group or others"))
        #expect(same(warned, full), "\(warned) vs \(full)")
        try layout.run(
            ["get", "user", "a"], in: layout.repository, expecting: 97, environment: here.merging(required) { $1 }, binary: true)
    }
}
