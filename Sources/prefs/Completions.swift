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
        domains(words: words, prefix: prefix)
    }

    static let key = CompletionKind.custom { words, index, prefix in
        keys(words: words, index: index, prefix: prefix)
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
