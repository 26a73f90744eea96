import Foundation
import PrefsCore
import Testing

/// Every Swift block of docs/library.md, the DocC catalog and PrefsCore's doc comments is
/// compiled with the tests (scripts/doc-examples writes them into *.generated.swift); the
/// blocks that are whole programs run here.
@Suite("Doc examples", .timeLimit(.minutes(5)))
struct DocExamplesTests {
    /// The directories the programs make under the temporary directory (removed afterwards).
    static let scratchPrefixes = ["prefs-tour-", "prefs-json-tour-", "prefs-docc-"]

    @Test func theDocsHaveProgramsToRun() {
        #expect(DocExamplePrograms.all.contains { $0.place.hasPrefix("docs/library.md:") })
        #expect(DocExamplePrograms.all.contains { $0.place.hasPrefix("Sources/PrefsCore/PrefsCore.docc/") })
    }

    /// One after the other, so the scratch directories each leaves are its own.
    @Test func everyProgramRuns() async throws {
        let temporary = FileManager.default.temporaryDirectory.path
        for program in DocExamplePrograms.all {
            let before = Set(try FileManager.default.contentsOfDirectory(atPath: temporary))
            do {
                try await program.run()
            } catch {
                Issue.record("\(program.place): \(error)")
            }
            let made = Set(try FileManager.default.contentsOfDirectory(atPath: temporary)).subtracting(before)
            for name in made where Self.scratchPrefixes.contains(where: { name.hasPrefix($0) }) {
                try FileManager.default.removeItem(atPath: temporary + "/" + name)
            }
        }
    }
}
