import ArgumentParser
import PrefsCore

extension Prefs {
    struct ExportCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export",
            abstract: "Write domains as one JSON object {\"domain\":{\"key\":value}}.",
            discussion: """
                Without DOMAIN, every persistent domain that holds a key; memory only when named. \
                Domains and keys are sorted, so the output is stable. A stored value that is not \
                valid JSON stops the export (exit 3): -o FILE is left as it was, and standard output \
                gets nothing unless the document is over 2 MiB (it is written as it is read). --format env \
                prints one DOMAIN's keys as shell assignments (export NAME='value') that a script \
                can eval; --format dotenv as NAME='value' lines for a .env file that sh (set -a; \
                . FILE), python-dotenv and docker compose read alike (double quotes with \\ and \\" \
                escapes for a value with ' or a backslash pair; a value no form keeps is refused); \
                --format github as the NAME<<DELIMITER blocks that GitHub Actions reads from \
                $GITHUB_ENV and $GITHUB_OUTPUT (the value verbatim, line breaks included; the \
                delimiter never occurs in it). \
                NAME is --name-prefix and the key in upper case with every character other than \
                A-Z and 0-9 replaced by _ (without a prefix, _ before a leading digit); strings \
                are written raw, other values as compact JSON. dynamic, switch, a refreshed or a \
                synced domain need --name-prefix: servers and peers write their keys. Two keys \
                with the same NAME, an unprefixed NAME that changes how the shell or programs run \
                (PATH, IFS, PS1, LD_*, GIT_*, BASH*, LESS*, PREFS_* and the like), a key with \
                non-ASCII characters or a value with a NUL character are refused with exit 6, and \
                nothing is printed. A DOMAIN that does not exist (not built in, never written to, \
                named by no override or schema) is exit 1 with the nearest domain's name, unless \
                --allow-missing.
                """)

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The domains to export (default: all persistent domains).")
        var domains: [String] = []

        @Option(
            name: .short,
            help: ArgumentHelp("Write to this file (mode 0600) instead of standard output (- for standard output).", valueName: "file"),
            completion: .file())
        var output: String?

        @Flag(help: "Indent the JSON.")
        var pretty = false

        @Option(help: ArgumentHelp("json (default), env, dotenv or github.", valueName: "format"))
        var format: ExportFormat = .json

        @Option(help: ArgumentHelp("With --format env|dotenv|github: start every NAME with this ([A-Z_][A-Z0-9_]*).", valueName: "prefix"))
        var namePrefix: String?

        @Flag(help: "Export what reads answer: overrides and registered defaults included.")
        var effective = false

        @Flag(help: "A DOMAIN that does not exist is exported as an empty one (exit 0), not exit 1.")
        var allowMissing = false

        func validate() throws {
            if let namePrefix {
                if format == .json { throw ValidationError("--name-prefix is for --format env, dotenv or github") }
                if let problem = Self.namePrefixProblem(namePrefix) { throw ValidationError(problem) }
            }
            if format != .json && domains.count != 1 { throw ValidationError("--format \(format.rawValue) takes exactly one DOMAIN") }
            if format != .json && pretty { throw ValidationError("--pretty is for --format json") }
        }

        func run() throws {
            let selected = try domains.map(parseDomain)
            let stack = try global.openStack()
            if !allowMissing { try requireExisting(selected, in: stack) }
            if format != .json {
                try emit(try assignments(stack, selected[0]))
                return
            }
            if !effective && !pretty {
                try stream(stack, selected.isEmpty ? nil : selected)
                return
            }
            var text = effective ? try effectiveJSON(stack, selected) : try stack.exportJSON(selected.isEmpty ? nil : selected)
            if pretty { text = try JSONValue(parsing: text, wrappingLevels: 2).prettyText }
            try emit(text + "\n")
        }

        /// How much of a document standard output holds back: an export this size or smaller is
        /// written only once every value has been read (a damaged one writes nothing); a
        /// larger one is written as it is read, so its memory does not grow with the store.
        static let heldBack = 2 << 20

        /// The stored document, written as it is read: to a private temporary file renamed to
        /// `-o FILE` at the end (nothing is left when a value is damaged), or to standard output
        /// after the first ``heldBack`` bytes.
        private func stream(_ stack: KeyValueStack, _ domains: [Domain]?) throws {
            if let output, !PrivateFile.meansStandardOutput(output) {
                try PrivateFile.write(to: output, purpose: "export", store: global.storePath) { write in
                    try stack.exportJSON(domains, chunkSize: 1 << 16, write: write)
                    try write([UInt8(ascii: "\n")])
                }
                return
            }
            var held: [UInt8] = []
            var streaming = false
            try stack.exportJSON(domains, chunkSize: 1 << 16) { piece in
                if streaming {
                    Output.standard.write(bytes: piece)
                    try Output.standard.checkWritten()
                    return
                }
                held.append(contentsOf: piece)
                if held.count > Self.heldBack {
                    streaming = true
                    Output.standard.write(bytes: held)
                    held = []
                }
            }
            held.append(UInt8(ascii: "\n"))
            Output.standard.write(bytes: held)
        }

        /// Writes the whole text to `-o FILE`, or to standard output (no `-o`, or `-o -`).
        private func emit(_ text: String) throws {
            if let output, !PrivateFile.meansStandardOutput(output) {
                try PrivateFile.write(Array(text.utf8), to: output, purpose: "export", store: global.storePath)
            } else {
                Output.standard.write(text)
            }
        }
    }
}

/// `export --format`.
enum ExportFormat: String, ExpressibleByArgument, CaseIterable {
    case json, env, dotenv, github
}

extension Prefs.ExportCommand {
    /// The name a key gets in `--format env|dotenv`: `prefix` (when given) and the key in upper
    /// case with every character other than A-Z and 0-9 replaced by `_`; without a prefix, `_`
    /// goes before a leading digit. nil when the key has non-ASCII characters.
    static func variableName(_ key: String, prefix: String? = nil) -> String? {
        guard key.utf8.allSatisfy({ $0 < 0x80 }) else { return nil }
        let name = String(key.uppercased().map { ($0 >= "A" && $0 <= "Z") || ($0 >= "0" && $0 <= "9") ? $0 : "_" })
        if let prefix { return prefix + name }
        if let first = name.first, first >= "0" && first <= "9" { return "_" + name }
        return name
    }

    /// Names an assignment without `--name-prefix` must not set, `*` standing for any text:
    /// they change how the shell, the dynamic linker, the C library or programs started later
    /// behave (a value could run code), or are read-only or special in bash.
    static let dangerousNames: [String] = [
        // The shell.
        "PATH", "IFS", "ENV", "HOME", "CDPATH", "PS*", "PROMPT*", "SHELLOPTS", "BASH*", "SHELL", "UID", "EUID", "PPID",
        "GROUPS", "GLOBIGNORE", "EXECIGNORE", "MAIL", "MAILPATH", "FPATH", "HIST*", "INPUTRC", "ZDOTDIR", "POSIXLY_CORRECT",
        "TMPDIR", "TERM", "TERMCAP", "TERMINFO*", "OPTIND", "OPTARG", "FUNCNEST", "SECONDS", "RANDOM", "LINENO",
        // The dynamic linker and the C library.
        "LD_*", "DYLD_*", "GCONV_PATH", "GLIBC_TUNABLES", "LOCPATH", "NLSPATH", "HOSTALIASES", "RES_OPTIONS", "MALLOC_*",
        "LANG", "LANGUAGE", "LC_*", "TZ", "TZDIR",
        // Interpreters, tools and the programs they start.
        "PYTHON*", "NODE_*", "PERL*", "RUBY*", "*JAVA*OPTIONS", "GIT_*", "LESS*", "MORE", "PAGER", "MANPAGER", "*_PAGER",
        "MANPATH", "MANOPT", "EDITOR", "VISUAL", "*_EDITOR", "BROWSER", "OPENSSL_*", "SSL_*", "CURL_*", "WGETRC", "*_PROXY",
        "SSH_*", "GNUPGHOME", "GPG_*", "XDG_*", "SYSTEMD_*", "DOCKER_*", "GOFLAGS", "GOPROXY", "GOTOOLCHAIN", "CARGO_*",
        "RUSTC_WRAPPER", "RUSTFLAGS", "NPM_CONFIG_*", "PIP_*", "MAKEFLAGS", "CC", "CXX", "PREFS_*",
        // CI runners (GitHub Actions reads these from $GITHUB_ENV for every later step).
        "GITHUB_*", "RUNNER_*", "ACTIONS_*",
    ]

    /// Real names in the families that start with `*`: a `--name-prefix` that could begin one
    /// of them is refused (the families themselves would refuse every prefix).
    static let dangerousSuffixedNames: [String] = [
        "HTTP_PROXY", "HTTPS_PROXY", "FTP_PROXY", "ALL_PROXY", "NO_PROXY", "SOCKS_PROXY", "RSYNC_PROXY", "_JAVA_OPTIONS",
        "JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS", "JAVA_OPTIONS", "SYSTEMD_PAGER", "GIT_PAGER", "SYSTEMD_EDITOR", "GIT_EDITOR",
        "SVN_EDITOR", "KUBE_EDITOR",
    ]

    /// Whether `pattern` (`*` for any text) matches all of `name`; linear backtracking.
    static func matches(_ pattern: String, _ name: String) -> Bool {
        let p = Array(pattern.utf8)
        let n = Array(name.utf8)
        let star = UInt8(ascii: "*")
        var i = 0
        var j = 0
        var lastStar = -1
        var mark = 0
        while j < n.count {
            if i < p.count && p[i] == star {
                lastStar = i
                mark = j
                i += 1
            } else if i < p.count && p[i] == n[j] {
                i += 1
                j += 1
            } else if lastStar >= 0 {
                i = lastStar + 1
                mark += 1
                j = mark
            } else {
                return false
            }
        }
        while i < p.count && p[i] == star { i += 1 }
        return i == p.count
    }

    /// Whether `name` (in any case) is one of ``dangerousNames``.
    static func isDangerousName(_ name: String) -> Bool {
        let upper = name.uppercased()
        return dangerousNames.contains { matches($0, upper) }
    }

    /// Why `prefix` cannot be a `--name-prefix`, or nil when it can: it must be a valid start
    /// of a name, and no name it starts may be a dangerous one (`L` could make `LD_PRELOAD`).
    static func namePrefixProblem(_ prefix: String) -> String? {
        let bytes = Array(prefix.utf8)
        func isUpper(_ b: UInt8) -> Bool { (b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z")) || b == UInt8(ascii: "_") }
        guard let first = bytes.first, isUpper(first), bytes.allSatisfy({ isUpper($0) || ($0 >= 0x30 && $0 <= 0x39) }) else {
            return "--name-prefix must match [A-Z_][A-Z0-9_]*, not \(JSONValue.string(prefix).compactText)"
        }
        var starts: [String] = []
        for pattern in dangerousNames where !pattern.hasPrefix("*") {
            let head = pattern.split(separator: "*", omittingEmptySubsequences: false)[0]
            if head.hasPrefix(prefix) || (pattern.hasSuffix("*") && prefix.hasPrefix(head)) { starts.append(pattern) }
        }
        for name in dangerousSuffixedNames where name.hasPrefix(prefix) { starts.append(name) }
        guard let example = starts.first else { return nil }
        return "--name-prefix \(prefix) could make \(example), a name that changes how the shell or programs run; "
            + "choose a prefix of your own, such as APP_"
    }

    /// Why another party can write `domain` (so its keys may name any variable), or nil:
    /// `dynamic` and `switch` are written by servers and peers, a domain with a refresh
    /// source by that source, a synced domain by every store of the remote.
    static func writtenByOthers(_ stack: KeyValueStack, _ domain: Domain) throws -> String? {
        if domain == .dynamic || domain == .switch { return "\(domain.name) is written by servers and sync peers" }
        if try stack.refresher.status().contains(where: { $0.domain == domain }) {
            return "\(domain.name) is refreshed from a source"
        }
        if let remote = try stack.sync.remote(), remote.syncs(domain) { return "\(domain.name) is synced with \(remote.url)" }
        return nil
    }

    /// `text` in the dotenv form that `set -a; . FILE` (sh, bash), python-dotenv and docker
    /// compose (by its documented rules) all read back as `text`.
    ///
    /// Single quotes when the text has no `'` and no backslash that python-dotenv would take
    /// as an escape (`\\`, or one at the end); else double quotes with `\\` and `\"` escapes
    /// when it has no `$`, `` ` `` or line break (which one reader or another would expand
    /// there). Anything else has no common form and is refused.
    static func dotenvValue(_ text: String, _ what: @autoclosure () -> String) throws -> String {
        func refuse(_ why: String) -> PrefsError {
            PrefsError(
                .invalidValue,
                "\(what()): the value has \(why), so no dotenv quoting reads back the same in sh, python-dotenv and docker compose; "
                    + "use --format env or json")
        }
        if text.contains("\r") { throw refuse("a carriage return (python-dotenv reads it as a line break)") }
        if text.contains("${") { throw refuse("${ (python-dotenv expands ${NAME} in every form of quoting)") }
        if !text.contains("'") && !text.contains("\\\\") && !text.hasSuffix("\\") { return "'" + text + "'" }
        if text.contains("$") || text.contains("`") || text.contains("\n") {
            throw refuse("' or \\ together with $, ` or a line break")
        }
        var escaped = "\""
        for character in text {
            if character == "\\" || character == "\"" { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped + "\""
    }

    /// `NAME<<DELIMITER`, the value's lines and the delimiter: the multi-line form that GitHub
    /// Actions reads from `$GITHUB_ENV` and `$GITHUB_OUTPUT`, used for every value so that no
    /// value is read as another form. The delimiter is `PREFS_EOF`, with `_1`, `_2`, ... added
    /// until it does not occur anywhere in the value, so no line of the value can end the block.
    static func githubBlock(_ name: String, _ text: String) -> String {
        var delimiter = "PREFS_EOF"
        var attempt = 0
        while text.contains(delimiter) {
            attempt += 1
            delimiter = "PREFS_EOF_\(attempt)"
        }
        return "\(name)<<\(delimiter)\n\(text)\n\(delimiter)"
    }

    /// Every key of `domain` as shell, dotenv or GitHub Actions assignments; refuses collisions and
    /// unrepresentable keys or values before printing anything.
    func assignments(_ stack: KeyValueStack, _ domain: Domain) throws -> String {
        var lines: [String] = []
        for variable in try Self.variables(stack, domain, namePrefix: namePrefix, effective: effective) {
            let (name, key, text) = (variable.name, variable.key, variable.text)
            switch format {
            case .env: lines.append("export \(name)='" + text.replacingLiteral("'", with: "'\\''") + "'")
            case .github:
                if text.contains("\r") {
                    throw PrefsError(
                        .invalidValue,
                        "\(domain.name)/\(key): the value has a carriage return, which GitHub Actions reads as a line break; "
                            + "use --format env or json")
                }
                lines.append(Self.githubBlock(name, text))
            default: lines.append(name + "=" + (try Self.dotenvValue(text, "\(domain.name)/\(key)")))
            }
        }
        return lines.map { $0 + "\n" }.joined()
    }

    /// Every key of `domain` as an environment variable (NAME, key, value as text), with the
    /// checks of every `--format env|dotenv|github` (and of `prefs exec`): a domain others write
    /// needs a prefix; a non-ASCII key, an unprefixed dangerous NAME, two keys with one NAME
    /// and a value with a NUL character are refused (`invalidValue`).
    static func variables(_ stack: KeyValueStack, _ domain: Domain, namePrefix: String?, effective: Bool) throws -> [(
        name: String, key: String, text: String
    )] {
        if namePrefix == nil, let reason = try writtenByOthers(stack, domain) {
            throw PrefsError(
                .invalidValue,
                "\(reason), so its keys could name any variable: give --name-prefix PREFIX (such as --name-prefix APP_) "
                    + "and every NAME starts with it")
        }
        var variables: [(name: String, key: String, text: String)] = []
        var names: [String: String] = [:]
        let read: (Entry) throws -> Void = { entry in
            guard let name = variableName(entry.key, prefix: namePrefix) else {
                throw PrefsError(
                    .invalidValue, "\(domain.name)/\(entry.key): the key has non-ASCII characters, which no variable name can hold")
            }
            // A prefixed name is outside every family by construction (the prefix was checked).
            if namePrefix == nil && isDangerousName(name) {
                throw PrefsError(
                    .invalidValue,
                    "\(domain.name)/\(entry.key) would set \(name), which changes how the shell or programs run; rename the key "
                        + "or give --name-prefix PREFIX")
            }
            if let other = names[name] {
                throw PrefsError(.invalidValue, "\(domain.name)/\(other) and \(domain.name)/\(entry.key) would both be \(name)")
            }
            names[name] = entry.key
            let value = try entry.value()
            let text = value.stringValue ?? value.compactText
            if text.utf8.contains(0) {
                throw PrefsError(.invalidValue, "\(domain.name)/\(entry.key): the value has a NUL character, which a variable cannot hold")
            }
            variables.append((name, entry.key, text))
        }
        if effective {
            try stack.forEachEffectiveEntry(in: domain) { entry, _ in try read(entry) }
        } else {
            try stack.forEachEntry(in: domain, read)
        }
        return variables
    }
}

/// `export --effective`: `{domain:{key:value}}` of what reads answer.
func effectiveJSON(_ stack: KeyValueStack, _ domains: [Domain]) throws -> String {
    var members: [JSONValue.Member] = []
    for domain in domains.isEmpty ? [nil] : Array(Set(domains)).sorted().map(Optional.some) {
        try stack.forEachEffectiveEntry(in: domain) { entry, _ in
            guard entry.domain.isPersistent || domain != nil else { return }
            let value = try entry.value()
            if let last = members.last, last.key == entry.domain.name, case .object(var keys) = last.value {
                keys.append(JSONValue.Member(entry.key, value))
                members[members.count - 1].value = .object(keys)
            } else {
                members.append(JSONValue.Member(entry.domain.name, .object([JSONValue.Member(entry.key, value)])))
            }
        }
        if let domain, !members.contains(where: { $0.key == domain.name }) {
            members.append(JSONValue.Member(domain.name, .object([])))
        }
    }
    return JSONValue.object(members).compactText
}
