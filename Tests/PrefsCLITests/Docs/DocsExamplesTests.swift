import Foundation
import PrefsTestSupport
import Testing

/// Every shell example of the README and of `docs/` runs as written: the ```sh blocks of one
/// page run in order, in a scratch directory holding a copy of `examples/` and a scratch
/// store, and each command exits and prints as its comment says (`# exit N`, `# → TEXT`).
/// A block whose fence reads ```` ```sh postgres ```` runs with a PostgreSQL server the test
/// starts (PGHOST, PGPORT, PGUSER and PGDATABASE set); one whose fence reads ```` ```sh ci ````
/// (the README's install: system packages, a release build, the test suite itself) is what
/// `.ci/run` does, which a test checks instead; ```` ```sh serve ```` blocks start a server that
/// runs until stopped, and `ServeTests.theDocsExamplesRun` runs them against one; ```` ```sh system ````
/// blocks change the machine (install the Debian package, enable systemd user units):
/// `scripts/package-check` installs the package, and a test checks that the units they name
/// are the package's. A ```` ```console ```` block is a transcript: each `$ COMMAND` line runs
/// (in page order with the ```sh blocks, exiting as its `# exit N` says) and the lines after
/// it, up to the next `$ `, are its whole standard output, compared in full (```` ```console tty ````
/// runs the commands on a terminal, for output that differs there). Other fences
/// (```` ```text ````, JSON, Swift) are not shell examples.
@Suite("docs examples", .timeLimit(.minutes(5)), .ownThreads)
struct DocsExamplesTests {
    static let repository = repositoryRoot

    /// The pages whose shell examples run: the README and every page of docs/.
    static let pages: [String] = {
        let docs = ((try? FileManager.default.contentsOfDirectory(atPath: repository + "/docs")) ?? [])
            .filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
        return ["README.md"] + docs
    }()

    /// The pages with a ```sh postgres block: they run only where PostgreSQL is installed.
    static let postgresPages: [String] = pages.filter {
        ((try? blocks(of: $0)) ?? []).contains { $0.tags.contains("postgres") }
    }

    /// One ```sh block: where it starts, the words after `sh` in its fence, its lines.
    struct Block {
        var line: Int
        var tags: [String]
        var lines: [(number: Int, text: String)]

        /// Whether it is a ```console transcript (commands and their whole output).
        var isTranscript = false

        /// Whether `everyShellExampleRunsAsItsCommentSays` runs it (not ci, serve or system).
        var runsHere: Bool { !tags.contains("ci") && !tags.contains("serve") && !tags.contains("system") }
    }

    /// The commands of a ```console block, each with the whole output shown after it.
    static func transcript(of block: Block, page: String) -> [(command: Command, output: String)] {
        var entries: [(command: Command, output: String)] = []
        var current: Command?
        var output: [String] = []
        func flush() {
            if let current { entries.append((current, output.isEmpty ? "" : output.joined(separator: "\n") + "\n")) }
            output = []
        }
        for (number, text) in block.lines {
            if text.hasPrefix("$ ") {
                flush()
                current = Command(page: page, line: number, text: String(text.dropFirst(2)))
            } else {
                output.append(text)
            }
        }
        flush()
        return entries
    }

    /// One command of a block: a line, or the lines of a construct the shell reads as one
    /// (`if … fi`, a line ending in `\`).
    struct Command {
        var page: String
        var line: Int
        var text: String

        /// The exit status its comment promises: a comment on its first line that starts
        /// with `exit N`, else 0.
        var expectedStatus: Int32 {
            let first = text.prefix { $0 != "\n" }
            guard let hash = first.range(of: " # exit ") else { return 0 }
            return Int32(first[hash.upperBound...].prefix { $0.isNumber }) ?? 0
        }

        /// The output its comment promises: `# → TEXT` is exactly TEXT and a newline.
        var expectedOutput: String? {
            let first = text.prefix { $0 != "\n" }
            guard let arrow = first.range(of: " # → ") else { return nil }
            return first[arrow.upperBound...].trimmingCharacters(in: .whitespaces) + "\n"
        }
    }

    static func blocks(of page: String) throws -> [Block] {
        let text = try String(contentsOfFile: repository + "/" + page, encoding: .utf8)
        var blocks: [Block] = []
        var current: Block?
        var inOtherFence = false
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if var block = current {
                if trimmed == "```" {
                    blocks.append(block)
                    current = nil
                } else {
                    block.lines.append((index + 1, String(line)))
                    current = block
                }
            } else if inOtherFence {
                if trimmed == "```" { inOtherFence = false }
            } else if trimmed.hasPrefix("```") {
                let words = trimmed.dropFirst(3).split(separator: " ").map(String.init)
                if words.first == "sh" {
                    current = Block(line: index + 1, tags: Array(words.dropFirst()), lines: [])
                } else if words.first == "console" {
                    current = Block(line: index + 1, tags: Array(words.dropFirst()), lines: [], isTranscript: true)
                } else {
                    inOtherFence = true
                }
            }
        }
        return blocks
    }

    /// The commands of a block: lines joined until the shell's parser accepts them.
    static func commands(of block: Block, page: String) throws -> [Command] {
        var commands: [Command] = []
        var pending: (line: Int, text: String)?
        for (number, text) in block.lines {
            if pending == nil && text.trimmingCharacters(in: .whitespaces).isEmpty { continue }
            if pending == nil && text.trimmingCharacters(in: .whitespaces).hasPrefix("#") { continue }
            let joined = pending.map { $0.text + "\n" + text } ?? text
            let line = pending?.line ?? number
            let check = try Sandbox.exec("/bin/bash", ["-n", "-c", joined], stdin: nil, environment: [:])
            if check.status == 0 && !joined.hasSuffix("\\") {
                commands.append(Command(page: page, line: line, text: joined))
                pending = nil
            } else {
                pending = (line, joined)
            }
        }
        if let pending { commands.append(Command(page: page, line: pending.line, text: pending.text)) }
        return commands
    }

    @Test func theTourHasTenToTwentyLines() throws {
        let tour = try Self.blocks(of: "README.md").first(where: \.runsHere)
        let commands = try tour.map { try Self.commands(of: $0, page: "README.md") } ?? []
        #expect((10...20).contains(commands.count), "\(commands.map(\.text))")
    }

    @Test func everyPageHasItsExamplesFound() throws {
        // The extraction itself: the README and the guide have examples, and a page with a
        // ```sh block yields commands (a fence typo would silently skip a page).
        #expect(try !Self.blocks(of: "README.md").isEmpty)
        #expect(try !Self.blocks(of: "docs/guide.md").isEmpty)
        for page in Self.pages {
            for block in try Self.blocks(of: page) {
                if block.isTranscript {
                    #expect(
                        !Self.transcript(of: block, page: page).isEmpty, "\(page):\(block.line): a ```console block without a `$ ` line")
                    #expect(block.lines.first?.text.hasPrefix("$ ") == true, "\(page):\(block.line): output before the first `$ ` line")
                } else {
                    #expect(try !Self.commands(of: block, page: page).isEmpty, "\(page):\(block.line): empty ```sh block")
                }
            }
        }
    }

    @Test(arguments: pages.filter { !postgresPages.contains($0) })
    func everyShellExampleRunsAsItsCommentSays(page: String) throws {
        try runExamples(of: page)
    }

    @Test(
        .tags(.postgres), .enabled(if: TestPostgres.isAvailable, "PostgreSQL is not installed (apt-get install postgresql)"),
        arguments: postgresPages)
    func everyShellExampleRunsAsItsCommentSaysAgainstPostgreSQL(page: String) throws {
        try runExamples(of: page)
    }

    private func runExamples(of page: String) throws {
        let blocks = try Self.blocks(of: page)
        guard !blocks.isEmpty else { return }
        let box = try Sandbox()
        // A checkout-like directory: the examples read examples/motd.txt and the like.
        let directory = box.root + "/checkout"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Self.repository + "/examples", toPath: directory + "/examples")
        let binaries = URL(fileURLWithPath: Sandbox.binary).deletingLastPathComponent().path
        var extra = [
            "PATH": binaries + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"),
            "PREFS_STORE": box.store,
            "PREFS_DOCS_DIR": directory,
            "EDITOR": "true",  // `prefs edit` opens and closes the file unchanged
            "CI_PROJECT_DIR": directory,
            "CI_JOB_ID": "4242",
            "USER_ID": "user-1",
            "EMAIL": "ada@example.com",
        ]
        if blocks.contains(where: { $0.tags.contains("postgres") }) {
            let server = try TestPostgres.shared.get()
            let database = try server.createDatabase()
            extra["PGHOST"] = server.root
            extra["PGPORT"] = String(server.port)
            extra["PGUSER"] = "postgres"
            extra["PGDATABASE"] = database.name
        }
        let environment = box.environment(extra)
        for block in blocks where block.runsHere {
            if block.isTranscript {
                for (command, output) in Self.transcript(of: block, page: page) {
                    let location = "\(page):\(command.line): \(command.text)"
                    var script = command.text
                    if block.tags.contains("tty") {
                        // On a terminal (util-linux script), with its exit status; CR LF back to LF.
                        script = "script -qec " + Self.shellQuoted(command.text) + " /dev/null"
                    }
                    let result = try Sandbox.exec(
                        "/bin/bash", ["-c", "cd \"$PREFS_DOCS_DIR\" || exit 99\n" + script], stdin: nil, environment: environment)
                    let stdout = result.stdout.replacingOccurrences(of: "\r\n", with: "\n")
                    #expect(result.status == command.expectedStatus, "\(location)\n\(result)")
                    #expect(stdout == output, "\(location): the output shown is not the output printed\n\(result)")
                }
                continue
            }
            for command in try Self.commands(of: block, page: page) {
                let location = "\(page):\(command.line): \(command.text)"
                let result = try Sandbox.exec(
                    "/bin/bash", ["-c", "cd \"$PREFS_DOCS_DIR\" || exit 99\n" + command.text], stdin: nil,
                    environment: environment)
                #expect(result.status == command.expectedStatus, "\(location)\n\(result)")
                if let output = command.expectedOutput {
                    #expect(result.stdout == output, "\(location)\n\(result)")
                }
                if result.status != 0 && !result.stderr.isEmpty && command.text.hasPrefix("prefs ") {
                    #expect(result.stderr.hasPrefix("prefs: "), "\(location)\n\(result)")
                }
            }
        }
    }

    static func shellQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    @Test func flagsPageShowsOutputOnlyAsTranscripts() throws {
        // docs/flags.md shows what commands print only in ```console blocks, which the test
        // above compares in full: an output sample in a plain fence could drift unnoticed.
        let text = try String(contentsOfFile: Self.repository + "/docs/flags.md", encoding: .utf8)
        var inFence = false
        var plain: [Int] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix("```") else { continue }
            if !inFence && (trimmed == "```" || trimmed == "```text") { plain.append(index + 1) }
            inFence.toggle()
        }
        #expect(plain.isEmpty, "docs/flags.md: plain fences (output samples not compared) at lines \(plain)")
        let commentedOutput = text.split(separator: "\n").filter { $0.hasPrefix("# {") || $0.hasPrefix("# [") }
        #expect(commentedOutput.isEmpty, "docs/flags.md: output shown as a comment is not compared: \(commentedOutput)")
        let transcripts = try Self.blocks(of: "docs/flags.md").filter(\.isTranscript)
        #expect(transcripts.count >= 4, "explain, diff, stats and lint show their output as transcripts")
    }

    @Test func theInstallCommandsAreWhatCIRuns() throws {
        // `.ci/run` runs the README's install on a fresh machine, and packages it as
        // docs/packaging.md says: each step of a ```sh ci block that builds, installs, packages
        // or tests (`swift`, `scripts/…`) appears in it.
        let ci = try String(contentsOfFile: Self.repository + "/.ci/run", encoding: .utf8)
        // A command of .ci/run: a line that is the step, or starts with it and its arguments
        // (a mention in a comment does not count).
        let commands = ci.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        func runs(_ step: String) -> Bool { commands.contains { $0 == step || $0.hasPrefix(step + " ") } }
        #expect(try Self.blocks(of: "README.md").contains { $0.tags.contains("ci") }, "README.md has no ```sh ci block")
        var steps = 0
        for page in Self.pages {
            for block in try Self.blocks(of: page) where block.tags.contains("ci") {
                for (number, line) in block.lines {
                    for step in line.components(separatedBy: " && ") {
                        let words = step.split(separator: " ")
                        guard let first = words.first, first.hasPrefix("scripts/") || first == "swift" else { continue }
                        #expect(runs(step), "\(page):\(number): \(step) is not a command of .ci/run")
                        steps += 1
                    }
                }
            }
        }
        #expect(steps >= 4, "scripts/install, swift test, scripts/package and scripts/package-check")
    }

    @Test func theSystemBlocksNameWhatThePackageInstalls() throws {
        // A ```sh system block is not run: the units it enables are the package's
        // (packaging/systemd, installed in /usr/lib/systemd/user), and a package it installs is
        // what scripts/package writes.
        var checked = 0
        for page in Self.pages {
            for block in try Self.blocks(of: page) where block.tags.contains("system") {
                for command in try Self.commands(of: block, page: page) {
                    let words = command.text.split(whereSeparator: \.isWhitespace).map(String.init)
                    let location = "\(page):\(command.line): \(command.text)"
                    if let systemctl = words.firstIndex(of: "systemctl") {
                        #expect(words.dropFirst(systemctl + 1).first == "--user", "\(location): user units only")
                        let units = words.dropFirst(systemctl + 2).filter { !$0.hasPrefix("-") && $0.hasPrefix("prefs") }
                        #expect(!units.isEmpty, "\(location): names no prefs unit")
                        for unit in units {
                            let file = unit.hasSuffix(".service") ? unit : unit + ".service"
                            #expect(
                                FileManager.default.fileExists(atPath: Self.repository + "/packaging/systemd/" + file),
                                "\(location): packaging/systemd/\(file) does not exist")
                            checked += 1
                        }
                    } else if words.contains("apt") || words.contains("apt-get") || words.contains("dpkg") {
                        #expect(words.contains("./prefs_*_amd64.deb"), "\(location): not the .deb scripts/package writes")
                        checked += 1
                    } else {
                        Issue.record("\(location): a ```sh system block holds systemctl --user and package installs only")
                    }
                }
            }
        }
        #expect(checked >= 3, "README.md, docs/serve.md and docs/refresh-and-sync.md have ```sh system blocks")
    }

    @Test func helpTextsHaveNoStrayLineContinuation() throws {
        // A `\\` at the end of a line of a multi-line string literal prints a backslash.
        let manual = try String(contentsOfFile: Self.repository + "/man/prefs.1", encoding: .utf8)
        let stray = manual.split(separator: "\n").filter { $0.hasSuffix("\\e") }
        #expect(stray.isEmpty, "\(stray)")
    }
}
