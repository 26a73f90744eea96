import ArgumentParser
import FoundationEssentials
import PrefsCore

/// Shell completion of domains and keys: the completion scripts call the binary back
/// (`prefs ---completion …`), which reads the store named on the command line (or by
/// `PREFS_STORE`, as for any command) and prints the candidates. A store that cannot be read
/// completes nothing; nothing is ever created.
enum Completions {
    /// At most this many keys are offered (a prefix narrows them; the store reads in key order).
    static let keyLimit = 1000

    /// Options that take a value, so their value is not taken for a domain or key.
    static let valued: Swift.Set<String> = [
        "--store", "--actor", "--override", "--type", "--ttl", "--if-version", "--if-value", "--prefix", "--default",
        "--limit", "--since", "--retain", "--by", "--window", "--context", "--targeting-key", "--fractional-version",
        "--from", "--header", "--header-file", "--every", "-o", "--contexts", "--synthetic", "--seed", "--examples",
        "--document", "--format",
    ]

    static let domain = CompletionKind.custom { words, index, prefix in
        let shell = Shell.requesting
        return shell.listed(domains(words: words.map(shell.unquoted), prefix: shell.unquoted(prefix)))
    }

    static let key = CompletionKind.custom { words, index, prefix in
        let shell = Shell.requesting
        return shell.listed(keys(words: words.map(shell.unquoted), index: index, prefix: shell.unquoted(prefix)))
    }

    /// The flags of `switch`: its keys without `$evaluators` and `$metadata`.
    static let flag = CompletionKind.custom { words, index, prefix in
        let shell = Shell.requesting
        return shell.listed(flags(words: words.map(shell.unquoted), prefix: shell.unquoted(prefix)))
    }

    /// `set DOMAIN KEY TAB`: the values the schema allows for the key (its `enum`), strings as
    /// their text and other values as JSON, as `set` reads them back.
    static let value = CompletionKind.custom { words, index, prefix in
        let shell = Shell.requesting
        return shell.listed(values(words: words.map(shell.unquoted), index: index, prefix: shell.unquoted(prefix)))
    }

    static func values(words: [String], index: Int, prefix: String) -> [String] {
        let positionals = positionalWords(words, before: index)
        // positionals: [set, domain, key].
        guard positionals.count == 3, let domain = try? Domain(positionals[1]), let stack = open(words),
            let allowed = (try? stack.schema())?.spec(in: domain, forKey: positionals[2])?.allowed
        else { return [] }
        return allowed.map { $0.stringValue ?? $0.compactText }.filter { $0.hasPrefix(prefix) }
    }

    static func domains(words: [String], prefix: String) -> [String] {
        guard let stack = open(words) else { return [] }
        return ((try? stack.domains()) ?? Domain.builtInPersistent + [.memory]).map(\.name).filter { $0.hasPrefix(prefix) }
    }

    /// Keys of the domain that comes before the word being completed.
    static func keys(words: [String], index: Int, prefix: String) -> [String] {
        let positionals = positionalWords(words, before: index)
        // positionals: [command, domain, ...] (a group's subcommand comes first for flags).
        let domainName: String
        if positionals.first == "flag" {
            domainName = Domain.switch.name
        } else if positionals.count >= 2 {
            domainName = positionals[1]
        } else {
            return []
        }
        guard let domain = try? Domain(domainName), let stack = open(words) else { return [] }
        var keys: [String] = []
        struct Enough: Error {}
        do {
            try stack.forEachEntry(in: domain, prefix: prefix.isEmpty ? nil : prefix) { entry in
                keys.append(entry.key)
                if keys.count >= keyLimit { throw Enough() }
            }
        } catch {}
        return keys
    }

    /// Flag names: the keys of `switch` that are not its `$evaluators` or `$metadata`.
    static func flags(words: [String], prefix: String) -> [String] {
        guard let stack = open(words) else { return [] }
        var flags: [String] = []
        struct Enough: Error {}
        do {
            try stack.forEachEntry(in: .switch, prefix: prefix.isEmpty ? nil : prefix) { entry in
                guard entry.key != FlagSet.evaluatorsKey, entry.key != FlagSet.metadataKey else { return }
                flags.append(entry.key)
                if flags.count >= keyLimit { throw Enough() }
            }
        } catch {}
        return flags
    }

    /// The words before `index` that are not options or option values (the program name
    /// left out).
    static func positionalWords(_ words: [String], before index: Int) -> [String] {
        var result: [String] = []
        var position = 1
        while position < min(index, words.count) {
            let word = words[position]
            if valued.contains(word) {
                position += 2
                continue
            }
            if !word.hasPrefix("-") { result.append(word) }
            position += 1
        }
        return result
    }

    /// The store the command line names, opened without creating anything.
    static func open(_ words: [String]) -> KeyValueStack? {
        var explicit: String?
        for (position, word) in words.enumerated() {
            if word == "--store", position + 1 < words.count { explicit = unquoted(words[position + 1]) }
            if word.hasPrefix("--store=") { explicit = unquoted(String(word.dropFirst("--store=".count))) }
        }
        let environment = ProcessEnvironment.current()
        var options = KeyValueStack.Options(memoryTier: .shared, environment: environment)
        options.busyTimeout = 0.2
        return try? KeyValueStack(path: StoreLocation.resolve(explicit: explicit, environment: environment), options: options)
    }

    /// Shell words arrive verbatim: drop one level of surrounding quotes and expand `~/`.
    static func unquoted(_ word: String) -> String {
        var text = word
        if text.count >= 2, let first = text.first, first == text.last, first == "'" || first == "\"" {
            text = String(text.dropFirst().dropLast())
        }
        if text.hasPrefix("~/"), let home = ProcessEnvironment.value("HOME") {
            text = home + text.dropFirst()
        }
        return text
    }
}

extension Completions {
    /// The shell asking (`SAP_SHELL`, set by the completion scripts): how it hands over the
    /// words of the command line and how it reads the candidates back.
    enum Shell {
        /// bash and zsh pass the words as typed (`'a b'`, `a\ b`); fish 4 too (`--tokens-raw`).
        case typed
        /// fish 3 passes the words as the program would receive them (`commandline -o`).
        case fish3
        /// zsh reads candidates as `_describe` entries, where `:` and `\` are escaped.
        case zsh

        static var requesting: Shell {
            let shell = CompletionShell.requesting
            if shell == .zsh { return .zsh }
            guard shell == .fish else { return .typed }
            let major = CompletionShell.requestingVersion.flatMap { Int($0.prefix { $0.isNumber }) } ?? 3
            return major > 3 ? .typed : .fish3
        }

        /// A word of the command line as the program would receive it, without expanding
        /// anything: quotes removed, backslash escapes resolved; an unclosed quote counts as
        /// closed at the end (the word being completed).
        func unquoted(_ word: String) -> String {
            if self == .fish3 { return word }
            var result = ""
            var quote: Character?
            var escaped = false
            var characters = word.makeIterator()
            while let character = characters.next() {
                if escaped {
                    // Inside double quotes a backslash escapes only $ ` " \ (and a newline).
                    if quote == "\"", !"$`\"\\\n".contains(character) { result.append("\\") }
                    result.append(character)
                    escaped = false
                } else if quote == "'" {
                    if character == "'" { quote = nil } else { result.append(character) }
                } else if character == "\\" {
                    escaped = true
                } else if quote == "\"" {
                    if character == "\"" { quote = nil } else { result.append(character) }
                } else if character == "'" || character == "\"" {
                    quote = character
                } else {
                    result.append(character)
                }
            }
            return result
        }

        /// The candidates as the shell's script reads them: one per line, as stored (the
        /// bash and fish scripts quote what they insert); for zsh's `_describe`, `\` and `:`
        /// escaped so that a key is not split into a name and a description.
        func listed(_ candidates: [String]) -> [String] {
            guard self == .zsh else { return candidates }
            return candidates.map { $0.replacingLiteral("\\", with: "\\\\").replacingLiteral(":", with: "\\:") }
        }
    }
}
