import Foundation
import PrefsTestSupport
import Testing

/// What repeated use leaves behind: state that must not grow with the number of runs.
@Suite struct GrowthTests {
    /// `doctor` reads every memory-tier file's owner to find orphans. Reading must not leave a
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
            let doctor = try box.runOK(["doctor"])
            #expect(doctor.stdout.contains("warning\tmemory\torphaned memory-tier file"), "\(doctor)")
        }
        let after = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        #expect(after == before, "doctor left files in \(directory)")
        // The live memory tier still answers.
        #expect(try box.runOK(["get", "memory", "m"]).stdout == "1\n")
    }
}
