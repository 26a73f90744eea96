import Foundation
import PrefsTestSupport
import Testing

/// What repeated use leaves behind: state that must not grow with the number of runs.
@Suite(.timeLimit(.minutes(5))) struct GrowthTests {
    /// `doctor --all` reads every memory-tier file's owner to find orphans. Reading must not leave a
    /// `-wal` and a 32 KiB `-shm` beside each file (in RAM until reboot), run after run.
    @Test func doctorLeavesNothingBesideTheMemoryFilesItReads() throws {
        let box = try Sandbox()
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
        let box = try Sandbox()
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
        let box = try Sandbox()
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
}
