import Foundation
import PrefsCore
import Testing

/// Other users on the same machine (issue 16, findings 3, 4, 7, 11): files they prepared are
/// refused, files prefs writes are private, and hostile environment values fail cleanly.
@Suite("other local users", .timeLimit(.minutes(5)), .ownThreads)
struct LocalUserTests {
    /// An unprivileged user id other than the caller's.
    static let otherUser: uid_t = getuid() == 65534 ? 65533 : 65534

    static func mode(_ path: String) -> mode_t {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mode & 0o7777 : 0
    }

    @Test func aNewStoreAndItsWalAndShmArePrivate() throws {
        let box = try Sandbox()
        let result = try Sandbox.exec(
            "/bin/sh", ["-c", "umask 000; exec \"$0\" --store \"$1\" set user k v", Sandbox.binary, box.store], stdin: nil,
            environment: box.environment())
        #expect(result.status == 0, "\(result)")
        // A watcher under umask 000 keeps the store open: -wal and -shm exist while it runs.
        let (watch, _) = try Running.watch(["--store", box.store, "watch"], box: box, umask: true)
        for file in [box.store, box.store + "-wal", box.store + "-shm"] {
            #expect(Self.mode(file) == 0o600, "\(file) has mode \(String(Self.mode(file), radix: 8))")
        }
        #expect(Self.mode((box.store as NSString).deletingLastPathComponent) == 0o700)
        let watched = watch.finish(signal: SIGTERM)
        #expect(watched.status == 0, "\(watched)")
    }

    @Test(arguments: ["", "-wal", "-shm"])
    func aFileWritableByOthersIsRefused(_ suffix: String) throws {
        let box = try Sandbox()
        try box.runOK(["set", "user", "k", "v"])
        let file = box.store + suffix
        if !FileManager.default.fileExists(atPath: file) {
            #expect(FileManager.default.createFile(atPath: file, contents: nil))
        }
        #expect(chmod(file, 0o666) == 0)
        for arguments in [["get", "user", "k"], ["set", "user", "k", "w"], ["list"], ["export"]] {
            let result = try box.runFailing(arguments, status: 3)
            expectFailure(result, 3, contains: "refusing \(file): owned by uid \(getuid()) with mode 0666")
        }
        #expect(chmod(file, 0o600) == 0)
        let after = try box.runOK(["get", "user", "k"])
        #expect(after.stdout == "v\n", "the victim's value was never written to the refused file: \(after)")
    }

    @Test(.enabled(if: getuid() == 0, "changing a file's owner needs root"), arguments: ["", "-wal", "-shm"])
    func aFileOwnedByAnotherUserIsRefused(_ suffix: String) throws {
        let box = try Sandbox()
        let directory = (box.store as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        // The other user prepares the file first (mode 0600, so only the owner check catches it).
        let file = box.store + suffix
        #expect(FileManager.default.createFile(atPath: file, contents: nil, attributes: [.posixPermissions: 0o600]))
        #expect(chown(file, Self.otherUser, Self.otherUser) == 0)
        let result = try box.runFailing(["set", "user", "secret", "hunter2"], status: 3)
        expectFailure(result, 3, contains: "refusing \(file): owned by uid \(Self.otherUser) with mode 0600")
        let attributes = try FileManager.default.attributesOfItem(atPath: file)
        #expect((attributes[.size] as? Int) == 0, "nothing was written into the other user's file")
    }

    @Test func backupIsPrivateAndNamesAMissingDirectory() throws {
        let box = try Sandbox()
        try box.runOK(["set", "user", "k", "v"])
        let destination = box.root + "/out/b.db"
        let missing = try box.runFailing(["backup", destination], status: 4)
        expectFailure(missing, 4, contains: "cannot write backup \(destination): directory \(box.root)/out does not exist")
        #expect(!missing.stderr.contains(".tmp-") && !missing.stderr.contains("/.b.db."), "no temporary name is shown: \(missing)")
        #expect(mkdir(box.root + "/out", 0o755) == 0)
        let result = try Sandbox.exec(
            "/bin/sh", ["-c", "umask 000; exec \"$0\" --store \"$1\" backup \"$2\"", Sandbox.binary, box.store, destination],
            stdin: nil, environment: box.environment())
        #expect(result.status == 0, "\(result)")
        #expect(Self.mode(destination) == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: box.root + "/out") == ["b.db"], "no temporary file is left")
        let read = try box.runOK(["--store", destination, "get", "user", "k"], store: false)
        #expect(read.stdout == "v\n", "\(read)")
    }

    @Test func backupOntoTheStoreItselfIsRefused() throws {
        let box = try Sandbox()
        try box.runOK(["set", "user", "k", "v"])
        let result = try box.runFailing(["backup", box.store, "--force"], status: 4)
        expectFailure(result, 4, contains: "is the store itself")
        #expect(try box.runOK(["get", "user", "k"]).stdout == "v\n")
    }

    @Test func backupOntoALinkIsRefusedWithoutForce() throws {
        // A dangling link counts as an existing file: without --force it stays, and nothing is
        // written where it points.
        let box = try Sandbox()
        try box.runOK(["set", "user", "k", "v"])
        let link = box.root + "/out.db"
        let target = box.root + "/elsewhere.db"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        let result = try box.runFailing(["backup", link], status: 4)
        expectFailure(result, 4, contains: "exists; use --force to overwrite it")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == target)
        #expect(!FileManager.default.fileExists(atPath: target))
        try box.runOK(["backup", link, "--force"])
        #expect(try FileManager.default.attributesOfItem(atPath: link)[.type] as? FileAttributeType == .typeRegular)
        #expect(!FileManager.default.fileExists(atPath: target))
    }

    @Test(arguments: ["3000000", "1e300", "inf", "nan", "-1", "5s", "0x10", "1e3"])
    func anInvalidBusyTimeoutIsAUsageError(_ value: String) throws {
        let box = try Sandbox()
        try box.runOK(["set", "user", "k", "v"])
        for arguments in [["set", "user", "k", "w"], ["get", "user", "k"], ["batch"]] {
            let result = try box.runFailing(arguments, status: 2, stdin: "", environment: ["PREFS_BUSY_TIMEOUT": value])
            expectFailure(result, 2, contains: "PREFS_BUSY_TIMEOUT must be a number of seconds from 0 to 86400")
        }
        let fine = try box.runOK(["set", "user", "k", "w"], environment: ["PREFS_BUSY_TIMEOUT": "86400"])
        #expect(fine.status == 0, "\(fine)")
    }

    /// Without XDG_RUNTIME_DIR the memory tier falls back to a RAM directory; another user
    /// who created `prefs-UID` there first does not block it.
    @Test(.enabled(if: getuid() == 0, "changing a directory's owner needs root"))
    func aClaimedMemoryDirectoryIsAvoided() throws {
        let box = try Sandbox()
        let shm = box.root + "/shm"
        #expect(mkdir(shm, 0o1777) == 0 && chmod(shm, 0o1777) == 0)
        let claimed = shm + "/prefs-\(getuid())"
        #expect(mkdir(claimed, 0o777) == 0 && chown(claimed, Self.otherUser, Self.otherUser) == 0)
        var environment = box.environment(["PREFS_TEST_SHM_ROOT": shm])
        environment.removeValue(forKey: "XDG_RUNTIME_DIR")
        let set = try Sandbox.exec(
            Sandbox.binary, ["--store", box.store, "set", "memory", "session", "abc"], stdin: nil, environment: environment)
        #expect(set.status == 0, "\(set)")
        let get = try Sandbox.exec(
            Sandbox.binary, ["--store", box.store, "get", "memory", "session"], stdin: nil, environment: environment)
        #expect(get.stdout == "abc\n", "\(get)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: claimed).isEmpty, "nothing went into the other user's directory")
        let used = try FileManager.default.contentsOfDirectory(atPath: shm).filter { $0 != "prefs-\(getuid())" }
        #expect(used.count == 1 && used[0].hasPrefix("prefs-\(getuid())-") && used[0].count == "prefs-\(getuid())-".count + 32, "\(used)")
        let token = box.root + "/data/prefs/memory-token"
        #expect(Self.mode(token) == 0o600)
        // After a reboot the other user claims the name they saw: a new token is made.
        try FileManager.default.removeItem(atPath: shm + "/" + used[0])
        #expect(mkdir(shm + "/" + used[0], 0o777) == 0 && chown(shm + "/" + used[0], Self.otherUser, Self.otherUser) == 0)
        let again = try Sandbox.exec(
            Sandbox.binary, ["--store", box.store, "set", "memory", "session", "def"], stdin: nil, environment: environment)
        #expect(again.status == 0, "\(again)")
        let now = try FileManager.default.contentsOfDirectory(atPath: shm).filter { $0 != "prefs-\(getuid())" && $0 != used[0] }
        #expect(now.count == 1 && now[0] != used[0], "\(now)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: shm + "/" + used[0]).isEmpty)
    }

    /// A -wal or -shm planted as a link to another file of the victim is refused, not written.
    @Test(arguments: ["-wal", "-shm"])
    func aLinkedCompanionFileIsRefused(_ suffix: String) throws {
        let box = try Sandbox()
        try box.runOK(["set", "user", "k", "v"])
        // The last connection to close checkpoints and removes -wal and -shm: now plant them.
        try DatabaseQueue(path: box.store).close()
        #expect(!FileManager.default.fileExists(atPath: box.store + suffix))
        let victim = box.root + "/victim.txt"
        #expect(FileManager.default.createFile(atPath: victim, contents: Data("precious".utf8), attributes: [.posixPermissions: 0o600]))
        #expect(symlink(victim, box.store + suffix) == 0)
        expectFailure(
            try box.runFailing(["set", "user", "k", "w"], status: 3), 3, contains: "refusing \(box.store + suffix): it is a link")
        expectFailure(try box.runFailing(["get", "user", "k"], status: 3), 3, contains: "it is a link")
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "precious")
        #expect(unlink(box.store + suffix) == 0 && Glibc.link(victim, box.store + suffix) == 0)
        expectFailure(try box.runFailing(["set", "user", "k", "w"], status: 3), 3, contains: "it is a link")
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "precious")
    }

    @Test func exportOntoTheStoreIsRefused() throws {
        let box = try Sandbox()
        try box.runOK(["set", "user", "k", "v"])
        for target in [box.store, box.store + "-wal"] {
            expectFailure(try box.runFailing(["export", "-o", target], status: 4), 4, contains: "is the store itself or one of its files")
        }
        #expect(try box.runOK(["get", "user", "k"]).stdout == "v\n")
    }
}
