import Foundation
import PrefsTestSupport
import Testing

/// The harness the other tests stand on: what a child process starts with, that a child that
/// hangs is killed with everything it started, and that there is no stale binary to test.
@Suite("test harness", .timeLimit(.minutes(5)), .ownThreads)
struct TestHarnessTests {
    /// The `SigBlk` and `SigIgn` masks of a `grep` started by each way tests start processes
    /// (all posix_spawn, `Spawn.swift`):
    /// a test thread blocks signals, and a child that inherited that (a tmux server, an
    /// interactive shell) ignores SIGTERM and outlives the run.
    @Test func childrenStartWithNoSignalBlockedOrIgnored() throws {
        let command = ["/usr/bin/grep", "-E", "^Sig(Blk|Ign):", "/proc/self/status"]
        let clean = "SigBlk:\t0000000000000000\nSigIgn:\t0000000000000000\n"
        /// The masks with glibc's own real-time signals (32, 33; posix_spawn cannot reset them) left out.
        func masks(_ text: String) -> String {
            text.split(separator: "\n").map { line in
                let parts = line.split(separator: "\t")
                guard parts.count == 2, let mask = UInt64(parts[1], radix: 16) else { return String(line) }
                return parts[0] + "\t" + String(mask & ~0x1_8000_0000, radix: 16).leftPadded(16)
            }.joined(separator: "\n") + "\n"
        }
        let box = try Sandbox()
        let exec = try Sandbox.exec(command[0], Array(command.dropFirst()), stdin: nil, environment: box.environment())
        #expect(exec.status == 0 && masks(exec.stdout) == clean, "Sandbox.exec: \(exec)")
        let running = try Running(Array(command.dropFirst()), environment: box.environment(), executable: command[0])
        let finished = running.finish()
        #expect(finished.status == 0 && masks(finished.stdout) == clean, "Running: \(finished)")
        let output = box.root + "/detached.txt"
        let status = waitForExit(try spawnDetached(command, output: output))
        let detached = try String(contentsOfFile: output, encoding: .utf8)
        #expect(status == 0 && masks(detached) == clean, "spawnDetached: \(detached)")
    }

    /// A child still running at its timeout is killed with its process group (here a shell and
    /// the `sleep` it started), and says so.
    @Test func aHangingChildIsKilledWithItsProcessGroup() throws {
        let started = Date()
        let child = try runChild(
            ["/bin/sh", "-c", "sleep 300 & echo $!; wait"], stdin: nil, environment: ProcessInfo.processInfo.environment, timeout: 1)
        #expect(child.timedOut && child.status == SIGKILL, "\(child)")
        #expect(Date().timeIntervalSince(started) < 10)
        let sleeper = try #require(pid_t(String(decoding: child.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)))
        var gone = false
        for _ in 0..<200 where !gone {
            gone = kill(sleeper, 0) != 0 && errno == ESRCH
            if !gone { usleep(10_000) }
        }
        #expect(gone, "the background sleep \(sleeper) outlived the timeout")
        // A background process that keeps the pipes open is killed too, at the deadline.
        let holder = try runChild(
            ["/bin/sh", "-c", "sleep 300 & echo started"], stdin: nil, environment: ProcessInfo.processInfo.environment, timeout: 1)
        #expect(holder.timedOut && holder.status == 0 && String(decoding: holder.stdout, as: UTF8.self) == "started\n", "\(holder)")
        // In time: the output, the status, no timeout.
        let quick = try runChild(["/bin/sh", "-c", "cat; echo err >&2; exit 3"], stdin: Array("in\n".utf8), environment: [:], timeout: 30)
        #expect(!quick.timedOut && quick.status == 3 && quick.stdout == Array("in\n".utf8) && quick.stderr == Array("err\n".utf8))
    }

    /// The tests run the binary built with them or none: a directory without one is an error
    /// that says where it looked, never another build's `.build/debug/prefs`.
    @Test func aMissingBinaryIsAnErrorNotAFallback() throws {
        let directory = try makeTemporaryDirectory(prefix: "prefs-no-binary")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let bundle = directory + "/a/b/c/PrefsPackageTests.xctest"
        switch Sandbox.locateBinary(testBundle: bundle, environment: [:]) {
        case .success(let path): Issue.record("found \(path)")
        case .failure(let missing):
            #expect(missing.searched.first == directory + "/a/b/c" && missing.description.contains("swift build --build-tests"))
        }
        guard case .failure = Sandbox.locateBinary(testBundle: bundle, environment: ["PREFS_TEST_BINARY": directory + "/prefs"]) else {
            Issue.record("PREFS_TEST_BINARY naming no file was accepted")
            return
        }
        #expect(try Sandbox.locateBinary(testBundle: CommandLine.arguments[0], environment: [:]).get() == Sandbox.binary)
    }
}

extension String {
    fileprivate func leftPadded(_ width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
