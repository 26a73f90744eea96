import Foundation
import PrefsTestSupport
import Testing

/// Every repository path the docs write in backticks exists, so a move or a rename cannot
/// leave a pointer to nothing (issue 39: decisions.md named `PrefsCore/Input/JSONParser.swift`).
@Suite("paths named in the docs", .timeLimit(.minutes(5)))
struct DocPathTests {
    /// The documents read: docs/, CONTRIBUTING.md, README.md and the DocC catalog.
    static func documents() throws -> [String] {
        let manager = FileManager.default
        var found = ["CONTRIBUTING.md", "README.md"]
        found += try manager.contentsOfDirectory(atPath: repositoryRoot + "/docs").filter { $0.hasSuffix(".md") }.map { "docs/" + $0 }
        let catalog = "Sources/PrefsCore/PrefsCore.docc"
        if let walker = manager.enumerator(atPath: repositoryRoot + "/" + catalog) {
            for case let name as String in walker where name.hasSuffix(".md") { found.append(catalog + "/" + name) }
        }
        return found.sorted()
    }

    /// Where a written path may start: the repository's top, or (as the docs write source
    /// paths) below `Sources/`, a target of it, or `Tests/`.
    static let bases = ["", "Sources/", "Sources/PrefsCLI/", "Sources/PrefsCore/", "Tests/"]

    /// The backticked words that look like repository paths: a known top folder, or
    /// `Folder/…/File.swift|md`; globs, placeholders and variables are not paths.
    static func paths(in text: String) -> [String] {
        let tops = [
            "Sources/", "Tests/", "scripts/", "docs/", "examples/", "Examples/", "packaging/", "man/", "completions/",
            "Benchmarks/", "Fuzz/", ".ci/",
        ]
        var result: [String] = []
        for (index, piece) in text.components(separatedBy: "`").enumerated() where index % 2 == 1 {
            guard !piece.contains(where: { $0 == " " || $0 == "*" || $0 == "$" || $0 == "<" || $0 == "{" || $0 == "\n" }) else {
                continue
            }
            var path = String(piece.split(separator: ":", maxSplits: 1).first ?? "")
            while path.hasSuffix(".") || path.hasSuffix(",") { path.removeLast() }
            let components = path.split(separator: "/")
            let isSource =
                components.count > 1 && components[0].first?.isUppercase == true
                && (path.hasSuffix(".swift") || path.hasSuffix(".md"))
            // `Fuzz/corpus/TARGET/`: a placeholder in capitals stands for any name.
            let placeholder = components.contains { $0.count > 1 && $0.allSatisfy { $0.isUppercase || $0 == "_" } }
            if (tops.contains(where: { path.hasPrefix($0) }) || isSource) && !placeholder { result.append(path) }
        }
        return result
    }

    @Test func theDocsHavePathsToCheck() throws {
        let text = try String(contentsOfFile: repositoryRoot + "/docs/decisions.md", encoding: .utf8)
        #expect(Self.paths(in: text).contains("PrefsJSON/JSONParser.swift"))
        #expect(Self.paths(in: "`Nowhere/Missing.swift` and `scripts/bench startup`") == ["Nowhere/Missing.swift"])
    }

    @Test func everyPathTheDocsNameExists() throws {
        var missing: [String] = []
        for document in try Self.documents() {
            let text = try String(contentsOfFile: repositoryRoot + "/" + document, encoding: .utf8)
            for path in Self.paths(in: text)
            where !Self.bases.contains(where: { FileManager.default.fileExists(atPath: repositoryRoot + "/" + $0 + path) }) {
                missing.append("\(document): `\(path)`")
            }
        }
        #expect(missing.isEmpty, "paths the docs name that do not exist:\n\(missing.joined(separator: "\n"))")
    }
}
