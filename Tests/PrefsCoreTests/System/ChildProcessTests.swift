import Foundation
import Glibc
import Synchronization
import Testing

@testable import PrefsCore

@Suite("Child processes (posix_spawn)", .timeLimit(.minutes(5)))
struct ChildProcessTests {
    @Test func exitStatusAndSignal() throws {
        var ok = try ChildProcess(["sh", "-c", "exit 0"])
        #expect(ok.wait() == .exited(0))
        #expect(ok.status == 0)
        var three = try ChildProcess(["sh", "-c", "exit 3"])
        #expect(three.wait() == .exited(3))
        #expect(three.wait() == .exited(3))  // a second call answers the same
        #expect(three.status == 3 << 8)
        var killed = try ChildProcess(["sh", "-c", "kill -TERM $$"])
        #expect(killed.wait() == .signaled(SIGTERM))
        #expect(ChildProcess.Termination.signaled(9).description == "ended by signal 9")
        #expect(ChildProcess.Termination.exited(2).description == "exited with status 2")
    }

    @Test func missingOrNonExecutableProgram() throws {
        #expect(throws: FileIO.Failure(ENOENT)) { try ChildProcess(["prefs-no-such-program-\(getpid())"]) }
        #expect(throws: FileIO.Failure(ENOENT)) { try ChildProcess(["/nonexistent/prefs-program"]) }
        #expect(throws: FileIO.Failure(ENOENT)) { try ChildProcess([]) }
        #expect(FileIO.Failure(ENOENT).message == "No such file or directory")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("prefs-child-\(getpid())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let script = directory + "/not-executable"
        try "#!/bin/sh\nexit 0\n".write(toFile: script, atomically: true, encoding: .utf8)
        chmod(script, 0o644)
        #expect(throws: FileIO.Failure(EACCES)) { try ChildProcess.find("not-executable", environment: ["PATH": directory]) }
        chmod(script, 0o755)
        #expect(try ChildProcess.find("not-executable", environment: ["PATH": "/nonexistent:" + directory]) == script)
        // A directory of the program's name on PATH is skipped.
        try FileManager.default.createDirectory(atPath: directory + "/sub/not-executable", withIntermediateDirectories: true)
        #expect(try ChildProcess.find("not-executable", environment: ["PATH": directory + "/sub:" + directory]) == script)
    }

    @Test func pipesAndEnvironment() throws {
        var child = try ChildProcess(
            ["sh", "-c", "read line; echo \"out:$line:$PREFS_CHILD_TEST\"; echo err >&2; exit 4"],
            environment: ["PREFS_CHILD_TEST": "x y", "PATH": "/usr/bin:/bin"], standardInput: .pipe, standardOutput: .pipe,
            standardError: .pipe)
        let input = try #require(child.standardInput)
        try FileIO.write(input, Array("hello\n".utf8))
        child.closeStandardInput()
        #expect(child.standardInput == nil)
        let output = try #require(child.standardOutput)
        let errors = try #require(child.standardError)
        #expect(String(decoding: try FileIO.readToEnd(output), as: UTF8.self) == "out:hello:x y\n")
        #expect(String(decoding: try FileIO.readToEnd(errors), as: UTF8.self) == "err\n")
        FileIO.close(output)
        FileIO.close(errors)
        #expect(child.wait() == .exited(4))
    }

    @Test func inheritsTheEnvironmentByDefault() throws {
        setenv("PREFS_CHILD_INHERITED", "yes", 1)
        defer { unsetenv("PREFS_CHILD_INHERITED") }
        var child = try ChildProcess(["sh", "-c", "printf %s \"$PREFS_CHILD_INHERITED\""], standardOutput: .pipe)
        let output = try #require(child.standardOutput)
        #expect(try FileIO.readToEnd(output) == Array("yes".utf8))
        FileIO.close(output)
        #expect(child.wait() == .exited(0))
    }

    @Test func onlyTheStandardDescriptorsReachTheChild() throws {
        // A descriptor this process has without close-on-exec (as one inherited from a shell
        // with `9>file` would be) is closed in the child; 0, 1 and 2 are not.
        let leaked = open("/dev/null", O_RDONLY)
        #expect(leaked > 2)
        defer { close(leaked) }
        var child = try ChildProcess(
            ["sh", "-c", "for fd in 0 1 2 \(leaked); do [ -e /proc/$$/fd/$fd ] && printf '%s ' $fd; done; true"], standardOutput: .pipe)
        let output = try #require(child.standardOutput)
        #expect(String(decoding: try FileIO.readToEnd(output), as: UTF8.self) == "0 1 2 ")
        FileIO.close(output)
        #expect(child.wait() == .exited(0))
    }

    @Test func ignoredSignalsCanBeResetForTheChild() throws {
        let previous = signal(SIGINT, SIG_IGN)
        defer { signal(SIGINT, previous) }
        // Inherited: SIGINT stays ignored and the shell exits normally.
        var ignoring = try ChildProcess(["sh", "-c", "kill -INT $$; exit 7"])
        #expect(ignoring.wait() == .exited(7))
        var resetting = try ChildProcess(["sh", "-c", "kill -INT $$; exit 7"], defaultSignals: [SIGINT])
        #expect(resetting.wait() == .signaled(SIGINT))
    }

    @Test func fileIOReportsErrno() throws {
        #expect(throws: FileIO.Failure(ENOENT)) { try FileIO.openForReading("/nonexistent/prefs-file") }
        let fd = try FileIO.openForReading("/")
        defer { FileIO.close(fd) }
        #expect(throws: FileIO.Failure(EISDIR)) { try FileIO.read(fd, upTo: 10) }
        // A connected pair made close-on-exec at once: a child another test starts meanwhile
        // must not inherit the reading end (with a pipe(2), one did, and the write succeeded).
        var fds: [Int32] = [-1, -1]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0)
        FileIO.close(fds[0])
        // Ignored for good, as the CLI tests do: restoring the default here could undo their
        // setting while another test writes to a child that has ended (SIGPIPE ends the runner).
        signal(SIGPIPE, SIG_IGN)
        #expect(throws: FileIO.Failure(EPIPE)) { try FileIO.write(fds[1], [1, 2, 3]) }
        FileIO.close(fds[1])
    }

    /// Children started at the same time from several threads get only their own pipes: no
    /// child holds, above descriptor 2, a pipe that another ChildProcess made. (Descriptors the
    /// test runner leaves inheritable are not ChildProcess's and are ignored.)
    @Test(.timeLimit(.minutes(1)))
    func concurrentChildrenDoNotInheritEachOthersPipes() {
        @Sendable func pipeName(_ path: String) -> String? {
            var buffer = [CChar](repeating: 0, count: 256)
            let count = readlink(path, &buffer, buffer.count - 1)
            guard count > 0 else { return nil }
            let name = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return name.hasPrefix("pipe:") ? name : nil
        }
        struct Seen: Sendable {
            var made: Set<String> = []
            var inherited: [String] = []
            var failures: [String] = []
        }
        let seen = Mutex(Seen())
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for _ in 0..<10 {
                do {
                    var child = try ChildProcess(["ls", "-l", "/proc/self/fd"], standardInput: .pipe, standardOutput: .pipe)
                    let made = [child.standardInput, child.standardOutput].compactMap { $0 }.compactMap { pipeName("/proc/self/fd/\($0)") }
                    child.closeStandardInput()
                    let output = child.standardOutput ?? -1
                    let listed = String(decoding: try FileIO.readToEnd(output), as: UTF8.self)
                    FileIO.close(output)
                    let end = child.wait()
                    // "lr-x------ 1 root root 64 … 5 -> pipe:[123]": the descriptors above 2.
                    let inherited = listed.split(separator: "\n").compactMap { line -> String? in
                        let parts = line.split(separator: " ")
                        guard let arrow = parts.firstIndex(of: "->"), arrow > 0, let fd = Int(parts[arrow - 1]), fd > 2,
                            arrow + 1 < parts.count, parts[arrow + 1].hasPrefix("pipe:")
                        else { return nil }
                        return String(parts[arrow + 1])
                    }
                    seen.withLock {
                        $0.made.formUnion(made)
                        $0.inherited += inherited
                        if end != .exited(0) || made.count != 2 { $0.failures.append("\(worker): \(end), pipes \(made)") }
                    }
                } catch {
                    seen.withLock { $0.failures.append("\(worker): \(error)") }
                }
            }
        }
        let result = seen.withLock { $0 }
        #expect(result.failures.isEmpty, "\(result.failures)")
        #expect(result.made.count == 160, "every child's two pipes are distinct")
        let leaked = result.inherited.filter { result.made.contains($0) }
        #expect(leaked.isEmpty, "children held other children's pipes: \(leaked)")
    }
}
