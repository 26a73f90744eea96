import ArgumentParser
import FoundationEssentials
import PrefsCore

#if canImport(Glibc)
    import Glibc
#endif

extension Prefs {
    struct EditCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "edit",
            abstract: "Edit a key's value, or a whole domain, in $VISUAL or $EDITOR.",
            discussion: """
                The value (or the domain as one JSON object {"key":value}) is written pretty-printed \
                to a private temporary file and opened in $VISUAL, else $EDITOR, else vi. What you \
                save is checked as JSON (exit 6, nothing written) and written with compare-and-set: \
                when another process changed a key meanwhile, nothing is written and the command \
                exits 5. Saving an empty file removes the key; removing a key from the object \
                removes it. A key keeps the rest of its time to live. An editor that exits with an \
                error changes nothing (exit 1); when the saved text cannot be written (invalid JSON, \
                a schema violation, a change by another process), the file is kept and named.
                """)

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The domain.", completion: Completions.domain)
        var domain: String

        @Argument(help: "The key (without it: the whole domain).", completion: Completions.key)
        var key: String?

        func run() throws {
            let domain = try parseDomain(domain)
            if let key { try KeyName.validate(key) }
            let stack = try global.openStack()
            if let key {
                try editKey(stack, domain: domain, key: key)
            } else {
                try editDomain(stack, domain: domain)
            }
        }

        private func editKey(_ stack: KeyValueStack, domain: Domain, key: String) throws {
            let entry = try stack.entry(in: domain, forKey: key)
            let before = try entry.map { try $0.value().prettyText + "\n" } ?? ""
            guard let (after, file) = try Self.edit(before, name: key) else { return }
            try Self.keepingFile(file) {
                let condition: KeyValueStack.Precondition = entry.map { .version($0.version) } ?? .absent
                if after.allSatisfy(\.isWhitespace) {
                    guard entry != nil else { return }
                    try stack.perform([.init(.remove, in: domain, forKey: key, if: condition)])
                    return
                }
                let value = try Self.parse(after)
                try stack.perform([.init(.set(value, expiresIn: Self.remaining(entry)), in: domain, forKey: key, if: condition)])
            }
        }

        private func editDomain(_ stack: KeyValueStack, domain: Domain) throws {
            var entries: [Entry] = []
            try stack.forEachEntry(in: domain) { entries.append($0) }
            let current = JSONValue.object(try entries.map { JSONValue.Member($0.key, try $0.value()) })
            guard let (after, file) = try Self.edit(current.prettyText + "\n", name: domain.name) else { return }
            try Self.keepingFile(file) {
                guard case .object(let members) = try Self.parse(after) else {
                    throw PrefsError(.invalidValue, "expected a JSON object {\"key\":value} for domain \(domain.name)")
                }
                var operations: [KeyValueStack.Operation] = []
                var seen = Swift.Set<[UInt8]>()
                // Keys compare bytewise, as the store does; one lookup per key (a domain may hold
                // 100,000 keys).
                let stored = Dictionary(entries.map { (Array($0.key.utf8), $0) }, uniquingKeysWith: { first, _ in first })
                for member in members {
                    try KeyName.validate(member.key)
                    guard seen.insert(Array(member.key.utf8)).inserted else {
                        throw PrefsError(.invalidValue, "key \(member.key) appears twice")
                    }
                    if let old = stored[Array(member.key.utf8)] {
                        if try old.value().isEquivalent(to: member.value) { continue }
                        operations.append(
                            .init(
                                .set(member.value, expiresIn: Self.remaining(old)), in: domain, forKey: member.key,
                                if: .version(old.version)))
                    } else {
                        operations.append(.init(.set(member.value), in: domain, forKey: member.key, if: .absent))
                    }
                }
                for old in entries where !seen.contains(Array(old.key.utf8)) {
                    operations.append(.init(.remove, in: domain, forKey: old.key, if: .version(old.version)))
                }
                if !operations.isEmpty { try stack.perform(operations) }
            }
        }

        /// Runs `body`; removes the edit file when it succeeds, keeps it and names it when not.
        static func keepingFile(_ file: String, _ body: () throws -> Void) throws {
            do {
                try body()
                unlink(file)
            } catch let error as PrefsError {
                throw PrefsError(error.kind, error.message + " (your edit is kept in \(file))")
            }
        }

        /// What is left of an entry's time to live (nil: it does not expire).
        static func remaining(_ entry: Entry?) -> Duration? {
            guard let expiresAt = entry?.expiresAt else { return nil }
            let now = WallClock.nowMilliseconds()
            return .milliseconds(max(expiresAt - now, 1))
        }

        static func parse(_ text: String) throws -> JSONValue {
            do {
                return try JSONValue(parsing: text, wrappingLevels: 1)
            } catch let error as PrefsError {
                throw PrefsError(.invalidValue, "the edited text is not valid JSON (\(error.message)); nothing was written")
            }
        }

        /// Opens `text` in the user's editor; the saved text and the file holding it, or nil
        /// when nothing changed. SIGINT and SIGQUIT go to the editor only, as git does.
        static func edit(_ text: String, name: String) throws -> (String, String)? {
            let directory = ProcessEnvironment.value("TMPDIR").flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
            let safe = String(name.map { $0.isLetter || $0.isNumber ? $0 : "-" }.prefix(40))
            let (fd, file) = try PrivateFile.makeTemporary(nextTo: directory + "/prefs-edit-\(safe).json", purpose: "edit file")
            let bytes = Array(text.utf8)
            let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            Glibc.close(fd)
            guard written == bytes.count else {
                unlink(file)
                throw PrefsError(.cannotWrite, "cannot write the edit file \(file)")
            }
            let environment = ProcessEnvironment.current()
            let editor = [environment["VISUAL"], environment["EDITOR"]].compactMap { $0 }.first { !$0.isEmpty } ?? "vi"
            // The editor may carry arguments (`code --wait`): a shell splits it, the file is "$1".
            // The binary ignores SIGINT and SIGQUIT meanwhile; a run in a test's process leaves
            // the test's signals alone and gives the editor the run's streams.
            let streams = ForegroundStreams()
            let previous = CommandContext.active == nil ? (signal(SIGINT, SIG_IGN), signal(SIGQUIT, SIG_IGN)) : nil
            defer {
                if let previous {
                    signal(SIGINT, previous.0)
                    signal(SIGQUIT, previous.1)
                }
            }
            var child: ChildProcess
            do {
                child = try ChildProcess(
                    ["/bin/sh", "-c", editor + " \"$1\"", "sh", file], standardInput: streams.standardInput,
                    standardOutput: streams.standardOutput, standardError: streams.standardError, defaultSignals: [SIGINT, SIGQUIT],
                    directory: CommandContext.runDirectory)
            } catch {
                unlink(file)
                throw PrefsError(.usage, "cannot run the editor \(editor)")
            }
            let termination = child.wait()
            streams.collect()
            guard termination == .exited(0) else {
                unlink(file)
                // "exited with status N" or "ended by signal N".
                throw PrefsError(.notFound, "the editor \(editor) \(termination); nothing was changed")
            }
            guard access(file, F_OK) == 0 else {
                throw PrefsError(.notFound, "the editor \(editor) removed \(file); nothing was changed")
            }
            guard let data = FileManager.default.contents(atPath: file), let after = String(validating: data, as: UTF8.self) else {
                throw PrefsError(.invalidValue, "the edited file \(file) is not UTF-8 text; nothing was written (the file is kept)")
            }
            if after == text {
                unlink(file)
                return nil
            }
            return (after, file)
        }
    }
}
