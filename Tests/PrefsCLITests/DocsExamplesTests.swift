import Foundation
import Testing

/// The README's tour runs as written, line by line and in order, in a scratch store, and
/// each line exits and prints as its comment says.
@Suite("docs examples")
struct DocsExamplesTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..")
        .standardized.path

    /// The command lines of the first ```sh block after the `## Tour` heading of README.md.
    static func tourLines() throws -> [String] {
        let readme = try String(contentsOfFile: repository + "/README.md", encoding: .utf8)
        var lines: [String] = []
        var state = 0  // 0: before the heading, 1: before the block, 2: inside it
        for line in readme.split(separator: "\n", omittingEmptySubsequences: false) {
            switch state {
            case 0: if line.hasPrefix("## Tour") { state = 1 }
            case 1: if line == "```sh" { state = 2 }
            default:
                if line == "```" { return lines }
                let command = line.trimmingCharacters(in: .whitespaces)
                if !command.isEmpty && !command.hasPrefix("#") { lines.append(command) }
            }
        }
        return lines
    }

    /// The exit status a line's comment promises: `# exit N…` anywhere in it, else 0.
    static func expectedStatus(_ line: String) -> Int32 {
        guard let hash = line.range(of: " # ") else { return 0 }
        let comment = line[hash.upperBound...]
        guard let exit = comment.range(of: "exit ") else { return 0 }
        return Int32(comment[exit.upperBound...].prefix { $0.isNumber }) ?? 0
    }

    /// The output a line's comment promises: `# → TEXT` is exactly TEXT and a newline.
    static func expectedOutput(_ line: String) -> String? {
        guard let hash = line.range(of: " # → ") else { return nil }
        return line[hash.upperBound...].trimmingCharacters(in: .whitespaces) + "\n"
    }

    @Test func theTourHasTenToTwentyLines() throws {
        let lines = try Self.tourLines()
        #expect((10...20).contains(lines.count), "\(lines)")
    }

    @Test func everyTourLineExitsAsItsCommentSays() throws {
        let box = try Sandbox()
        // A checkout-like directory: the tour reads examples/motd.txt and the like.
        let directory = box.root + "/tour"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Self.repository + "/examples", toPath: directory + "/examples")
        let binaries = URL(fileURLWithPath: Sandbox.binary).deletingLastPathComponent().path
        let environment = box.environment([
            "PATH": binaries + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"),
            "PREFS_STORE": box.store,
            "PREFS_TOUR_DIR": directory,
        ])
        let lines = try Self.tourLines()
        try #require(!lines.isEmpty, "no ```sh block after '## Tour' in README.md")
        for line in lines {
            let result = try Sandbox.exec(
                "/bin/sh", ["-c", "cd \"$PREFS_TOUR_DIR\" || exit 99\n" + line], stdin: nil, environment: environment)
            #expect(result.status == Self.expectedStatus(line), "\(line): \(result)")
            if let output = Self.expectedOutput(line) {
                #expect(result.stdout == output, "\(line): \(result)")
            }
            if result.status != 0 {
                #expect(result.stderr.hasPrefix("prefs: "), "\(line): \(result)")
            }
        }
    }
}
