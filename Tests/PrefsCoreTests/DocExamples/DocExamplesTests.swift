import PrefsCore
import Testing

/// Every Swift block of docs/library.md, the DocC catalog and PrefsCore's doc comments is
/// compiled with the tests (scripts/doc-examples writes them into *.generated.swift); the
/// blocks that are whole programs run here.
@Suite("Doc examples")
struct DocExamplesTests {
    @Test func theDocsHaveProgramsToRun() {
        #expect(DocExamplePrograms.all.contains { $0.place.hasPrefix("docs/library.md:") })
    }

    @Test(arguments: DocExamplePrograms.all.map(\.place))
    func programRuns(_ place: String) async throws {
        let program = try #require(DocExamplePrograms.all.first { $0.place == place })
        try await program.run()
    }
}
