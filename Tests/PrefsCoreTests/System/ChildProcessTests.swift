import Foundation
import Glibc
import Testing

@testable import PrefsCore

@Suite("Child processes (posix_spawn)")
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
        var fds: [Int32] = [-1, -1]
        #expect(pipe(&fds) == 0)
        FileIO.close(fds[0])
        let previous = signal(SIGPIPE, SIG_IGN)
        defer { signal(SIGPIPE, previous) }
        #expect(throws: FileIO.Failure(EPIPE)) { try FileIO.write(fds[1], [1, 2, 3]) }
        FileIO.close(fds[1])
    }
}
