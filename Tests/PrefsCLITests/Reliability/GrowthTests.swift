import Foundation
import PrefsCore
import PrefsTestSupport
import Testing

/// What repeated use leaves behind: state that must not grow with the number of runs.
@Suite(.timeLimit(.minutes(5)), .ownThreads) struct GrowthTests {
    /// `doctor --all` reads every memory-tier file's owner to find orphans. Reading must not leave a
    /// `-wal` and a 32 KiB `-shm` beside each file (in RAM until reboot), run after run.
    @Test func doctorLeavesNothingBesideTheMemoryFilesItReads() throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["set", "memory", "m", "1"])
        try box.runOK(["set", "user", "u", "1"])
        let other = box.root + "/gone/prefs.db"
        try box.runOK(["--store", other, "set", "memory", "m", "1"], store: false)
        try box.runOK(["--store", other, "set", "user", "u", "1"], store: false)
        try FileManager.default.removeItem(atPath: box.root + "/gone")
        let directory = box.runtime + "/prefs"
        let before = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        #expect(before.count == 2 && before.allSatisfy { $0.hasPrefix("memory-") && $0.hasSuffix(".db") }, "\(before)")
        for _ in 0..<3 {
            let doctor = try box.runOK(["doctor", "--all"])
            #expect(doctor.stdout.contains("warning\tmemory-other\torphaned memory-tier file"), "\(doctor)")
        }
        let after = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        #expect(after == before, "doctor left files in \(directory)")
        // The live memory tier still answers.
        #expect(try box.runOK(["get", "memory", "m"]).stdout == "1\n")
    }

    /// The memory tier is RAM until reboot: 10,000 keys set and then removed must give their
    /// pages back, not keep the high-water mark (1.5 MiB) for good.
    @Test func theMemoryTierShrinksWhenItsKeysAreRemoved() throws {
        let box = try Sandbox(inProcess: true)
        let sets = (0..<10_000).map { "set memory key\($0) \"a value of some length, number \($0)\"" }
        let set = try box.runOK(["batch", "--window", "50ms"], stdin: sets.joined(separator: "\n") + "\n")
        #expect(set.status == 0, "\(set)")
        let directory = box.runtime + "/prefs"
        func size() throws -> Int {
            let names = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".db") }
            #expect(names.count == 1, "\(names)")
            return try names.reduce(0) {
                $0 + ((try FileManager.default.attributesOfItem(atPath: directory + "/" + $1)[.size] as? Int) ?? 0)
            }
        }
        let full = try size()
        #expect(full > 500_000, "\(full) bytes with 10,000 keys")
        let removes = (0..<10_000).map { "rm memory key\($0)" }
        let rm = try box.runOK(["batch", "--window", "50ms"], stdin: removes.joined(separator: "\n") + "\n")
        #expect(rm.status == 0, "\(rm)")
        #expect(try box.runOK(["list", "memory"]).stdout == "")
        let empty = try size()
        #expect(empty < 100_000, "\(empty) bytes after removing every key (\(full) with them)")
    }

    /// `memory` is not logged (`prefs log --help`): its file must not keep old and new values
    /// of every write (10,000 records of up to 16 MiB each, in RAM until reboot).
    @Test func rewritingAMemoryKeyDoesNotKeepItsOldValues() throws {
        let box = try Sandbox(inProcess: true)
        let big = String(repeating: "x", count: 100_000)
        let operations = (0..<50).map { #"{"op":"set","domain":"memory","key":"big","value":"\#(big)\#($0)"}"# }
        let applied = try box.runOK(["apply", "-"], stdin: "[" + operations.joined(separator: ",") + "]")
        #expect(applied.status == 0, "\(applied)")
        for value in 50..<60 {
            let set = try box.runOK(["set", "memory", "big", big + String(value)])
            #expect(set.status == 0, "\(set)")
        }
        #expect(try box.runOK(["get", "memory", "big"]).stdout == big + "59\n")
        let directory = box.runtime + "/prefs"
        let names = try FileManager.default.contentsOfDirectory(atPath: directory)
        let bytes = try names.reduce(0) {
            $0 + ((try FileManager.default.attributesOfItem(atPath: directory + "/" + $1)[.size] as? Int) ?? 0)
        }
        #expect(bytes < 1_000_000, "\(bytes) bytes in \(names) for one 100 KB value")
    }

    /// The numbers of the writes the writer of ``compactGivesAnOlderStoresSpaceBackWhileAnotherProcessWrites()`` was told succeeded.
    private func acknowledged(_ box: Sandbox) -> [Substring] {
        ((try? String(contentsOfFile: box.root + "/acknowledged", encoding: .utf8)) ?? "").split(separator: "\n")
    }

    /// The size of the store file, in bytes (after the last `prefs` closed it: checkpointed).
    private func storeBytes(_ box: Sandbox) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: box.store)[.size] as? Int) ?? 0
    }

    /// 100,000 keys set and removed again (`rm --domain`) must not leave 8.6 MB of free pages
    /// in the store for good: a store prefs makes gives them back as it removes them.
    @Test func aStoreGivesBackTheSpaceOfARemovedDomain() throws {
        let box = try Sandbox(inProcess: true)
        let sets = (0..<100_000).map { "set app key\($0) \"a value of some length, number \($0)\"" }
        try box.runOK(["batch"], stdin: sets.joined(separator: "\n") + "\n")
        try box.runOK(["set", "user", "kept", "1"])
        let full = try storeBytes(box)
        #expect(full > 5_000_000, "\(full) bytes with 100,000 keys")
        try box.runOK(["rm", "--domain", "app"])
        let after = try storeBytes(box)
        #expect(after < full / 5, "\(after) bytes after removing 100,000 keys (\(full) with them)")
        let doctor = try box.runOK(["doctor"])
        #expect(doctor.stdout.contains("ok\tspace\t"), "\(doctor)")
        #expect(try box.runOK(["get", "user", "kept"]).stdout == "1\n")
        // Removing key by key gives the pages back too.
        let again = (0..<20_000).map { "set app key\($0) \"a value of some length, number \($0)\"" }
        try box.runOK(["batch"], stdin: again.joined(separator: "\n") + "\n")
        let refilled = try storeBytes(box)
        let removes = (0..<20_000).map { "rm app key\($0)" }
        try box.runOK(["batch"], stdin: removes.joined(separator: "\n") + "\n")
        let emptied = try storeBytes(box)
        #expect(emptied < refilled / 2, "\(emptied) bytes after removing 20,000 keys one by one (\(refilled) with them)")
    }

    /// A store made before incremental auto-vacuum keeps its free pages until `prefs compact`,
    /// which gives them back and switches the store, while another process goes on writing:
    /// every write it was told succeeded is in the store afterwards.
    @Test func compactGivesAnOlderStoresSpaceBackWhileAnotherProcessWrites() throws {
        let box = try Sandbox(inProcess: true)
        let sets = (0..<100_000).map { "set app key\($0) \"a value of some length, number \($0)\"" }
        try box.runOK(["batch"], stdin: sets.joined(separator: "\n") + "\n")
        let keep = (0..<20_000).map { "set kept key\($0) \($0)" }
        try box.runOK(["batch"], stdin: keep.joined(separator: "\n") + "\n")
        // As an earlier prefs made it: no auto-vacuum.
        let queue = try DatabaseQueue(path: box.store)
        try queue.writeWithoutTransaction { try $0.execute(sql: "PRAGMA auto_vacuum = NONE; VACUUM") }
        try queue.close()
        try box.runOK(["rm", "--domain", "app"])
        let before = try storeBytes(box)
        #expect(before > 5_000_000, "an older store keeps its free pages: \(before) bytes")
        let warned = try box.runOK(["doctor"])
        #expect(warned.stdout.contains("warning\tspace\t"), "\(warned)")
        #expect(warned.stdout.contains("prefs compact"), "\(warned)")

        // A writer in another process, one `prefs set` after the other, stopping at the first failure.
        let environment = box.environment()
        let exports = ["XDG_RUNTIME_DIR", "XDG_DATA_HOME", "HOME", "PREFS_SYSTEM_DIR"].map {
            "export \($0)='\(environment[$0] ?? "")'"
        }
        let script =
            exports.joined(separator: "; ")
            + "; i=0; while [ $i -lt 150 ]; do '\(Sandbox.binary)' --store '\(box.store)' set live k$i $i || exit 9; "
            + "echo $i >> '\(box.root)/acknowledged'; i=$((i+1)); done"
        let writer = try spawnDetached(["/bin/sh", "-c", script], output: box.root + "/writer.log")
        var compactions = 0
        var reports: [String] = []
        repeat {
            reports.append(try box.runOK(["compact"]).stdout)
            compactions += 1
        } while compactions < 3 || (compactions < 30 && acknowledged(box).count < 150)
        let status = waitForExit(writer, timeout: 120)
        let log = (try? String(contentsOfFile: box.root + "/writer.log", encoding: .utf8)) ?? ""
        #expect(status == 0, "the writer: wait status \(String(describing: status)), \(log)")
        let first = reports.first?.split(separator: " ").compactMap { Int($0) } ?? []
        #expect(first.count == 2 && first[0] > 3 * first[1], "compact prints the size before and after: \(reports)")
        let after = try storeBytes(box)
        #expect(after < before / 3, "\(after) bytes after compact (\(before) before)")
        let live = try box.runOK(["list", "live"]).stdout
        let expected = acknowledged(box).map { "k\($0)\t\($0)" }.sorted().joined(separator: "\n")
        #expect(acknowledged(box).count == 150, "\(log)")
        #expect(live.split(separator: "\n").sorted().joined(separator: "\n") == expected)
        #expect(try box.runOK(["list", "kept"]).stdout.split(separator: "\n").count == 20_000)
        #expect(try box.runOK(["doctor"]).stdout.contains("ok\tspace\t"))
        // Switched: from now on its removals give their pages back by themselves.
        try box.runOK(["rm", "--domain", "kept"])
        #expect(try storeBytes(box) < after / 2)
    }
}
