import ArgumentParser
import PrefsCore

#if canImport(Glibc)
    import Glibc
#endif

extension Prefs {
    struct GetCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "get",
            abstract: "Print the value of a key (or of several keys, or of every key with a prefix).",
            discussion: """
                Strings print raw, everything else as compact JSON, followed by a newline. \
                Exits 1 when the key does not exist and no --default is given. With several keys: \
                one value per line in the order given (control characters escaped), or one JSON \
                object with --json; a missing key \
                (without --default) prints nothing, and after the others the command exits 1 naming \
                it. With --prefix P: KEY<TAB>VALUE lines of every key starting with P, or one JSON \
                object with --json; exit 1 when none matches. With --path P (a JSON Pointer, RFC 6901: \
                /window/w, /tags/0, ~1 for / and ~0 for ~ in a name): the member at P of the value; exit 1 \
                when P does not exist in it.
                """)

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The domain: default, dynamic, switch, user, memory or a custom one.", completion: Completions.domain)
        var domain: String

        @Argument(help: "The key (several: one value each).", completion: Completions.key)
        var keys: [String] = []

        @Option(parsing: .unconditional, help: ArgumentHelp("Every key that starts with this text.", valueName: "prefix"))
        var prefix: String?

        /// The one key of the plain form.
        var key: String { keys.first ?? "" }

        @Option(
            name: .customLong("default"), parsing: .unconditional,
            help: ArgumentHelp("Print this value (typed as in 'set') when the key is missing; exit 0.", valueName: "value"))
        var defaultValue: String?

        @Flag(help: "Always print JSON (strings in quotes).")
        var json = false

        @Flag(help: "Print one JSON object with the value, version, updatedAt and expiresAt.")
        var showMeta = false

        @Flag(
            help:
                "Print where the value came from first: override, store, project:FILE, system:FILE, locked:LOCKFILE, default (registered in code), schema (the schema's default) or fallback (--default), then a tab."
        )
        var showOrigin = false

        @Option(
            parsing: .unconditional,
            help: ArgumentHelp("Print the member at this JSON Pointer inside the value (/window/w, /tags/0).", valueName: "pointer"))
        var path: String?

        func validate() throws {
            if showMeta && showOrigin { throw ValidationError("--show-meta and --show-origin cannot be used together") }
            if keys.isEmpty && prefix == nil { throw ValidationError("Missing expected argument '<keys>'") }
            if !keys.isEmpty && prefix != nil { throw ValidationError("give keys or --prefix, not both") }
            if (keys.count > 1 || prefix != nil) && (showMeta || showOrigin) {
                throw ValidationError("--show-meta and --show-origin take one key")
            }
            if prefix != nil && defaultValue != nil { throw ValidationError("--default takes keys, not --prefix") }
            if path != nil && (keys.count != 1 || showMeta) { throw ValidationError("--path takes one key, without --show-meta") }
        }

        func run() throws {
            if keys.count == 1, prefix == nil, path == nil, defaultValue == nil, !showMeta, global.override.isEmpty,
                !QuickGet.declinedAtStartUp.load(ordering: .relaxed),
                QuickGet.answer(store: global.store, domain: domain, key: key, json: json, showOrigin: showOrigin)
            {
                return
            }
            #if DEBUG
                // Tests check that the lookups they expect on the start-up path take it.
                if let flag = ProcessEnvironment.value("PREFS_REQUIRE_QUICK"), !flag.isEmpty {
                    Output.error("debug: not answered by the start-up path (PREFS_REQUIRE_QUICK)")
                    throw ExitCode(97)
                }
            #endif
            let domain = try parseDomain(domain)
            for key in keys { try KeyName.validate(key) }
            let pointer = try path.map { try JSONPointer($0) }
            let stack = try global.openStack()
            if let prefix {
                try printPrefix(stack, domain: domain, prefix: prefix)
                return
            }
            if keys.count > 1 {
                try printSeveral(stack, domain: domain)
                return
            }
            // One lookup (the library's order) answers the value, its origin and its metadata.
            var answer: (value: JSONValue, origin: ValueOrigin, entry: Entry?)
            if let resolved = try stack.resolution(in: domain, forKey: key, withEntry: showMeta) {
                answer = resolved
                if let pointer {
                    do {
                        answer.value = try pointer.value(in: resolved.value)
                    } catch let error as PrefsError where error.kind == .notFound {
                        guard let defaultValue else { throw error.prefixed("\(domain.name)/\(key): ") }
                        answer = (try ValueType.auto.value(from: defaultValue), .fallback, nil)
                    }
                }
            } else if let defaultValue {
                answer = (try ValueType.auto.value(from: defaultValue), .fallback, nil)
            } else {
                throw PrefsError(.notFound, "\(domain.name)/\(key) not found" + TypoHint.missingKey(key, in: domain, of: stack))
            }
            if showMeta {
                Output.standard.write(metaJSON(answer.value, entry: answer.entry).compactText + "\n")
                return
            }
            if showOrigin {
                Output.standard.write(originText(answer.origin, stack.layerFile(of: answer.origin, in: domain, forKey: key)) + "\t")
            }
            Output.standard.writeValue(answer.value, json: json)
        }

        private func printSeveral(_ stack: KeyValueStack, domain: Domain) throws {
            let fallback = try defaultValue.map { try ValueType.auto.value(from: $0) }
            var found: [JSONValue.Member] = []
            var missing: [String] = []
            for key in keys {
                if let value = try stack.resolve(in: domain, forKey: key)?.value ?? fallback {
                    found.append(JSONValue.Member(key, value))
                    // One line per key: a line break in a string is shown escaped.
                    if !json { Output.standard.write(TerminalText.escapingControls(value.stringValue ?? value.compactText) + "\n") }
                } else {
                    missing.append(key)
                }
            }
            if json { Output.standard.write(JSONValue.object(found).compactText + "\n") }
            if !missing.isEmpty {
                Output.standard.flush()
                throw PrefsError(.notFound, missing.map { "\(domain.name)/\($0)" }.joined(separator: ", ") + " not found")
            }
        }

        private func printPrefix(_ stack: KeyValueStack, domain: Domain, prefix: String) throws {
            var found: [JSONValue.Member] = []
            let out = Output.standard
            try stack.forEachEffectiveEntry(in: domain, prefix: prefix) { entry, _ in
                let value = try entry.value()
                found.append(JSONValue.Member(entry.key, value))
                if !json {
                    out.write(
                        TerminalText.escapingControls(entry.key) + "\t"
                            + TerminalText.escapingControls(value.stringValue ?? value.compactText) + "\n")
                }
            }
            if found.isEmpty {
                out.flush()
                throw PrefsError(.notFound, "no key of \(domain.name) starts with \(JSONValue.string(prefix).compactText)")
            }
            if json { out.write(JSONValue.object(found).compactText + "\n") }
        }
    }
}

/// An origin for `--show-origin`: its name, and `:FILE` for a layer's.
func originText(_ origin: ValueOrigin, _ file: String?) -> String {
    file.map { origin.rawValue + ":" + $0 } ?? origin.rawValue
}

/// `{"value":…,"version":N,"updatedAt":"…","expiresAt":"…"|null}` for `--show-meta`/`--meta`.
func metaJSON(_ value: JSONValue, entry: Entry?) -> JSONValue {
    .object([
        .init("value", value),
        .init("version", entry.map { .number(String($0.version)) } ?? .null),
        .init("updatedAt", entry.map { .string(ISOTime.format(milliseconds: $0.updatedAt)) } ?? .null),
        .init("expiresAt", entry?.expiresAt.map { .string(ISOTime.format(milliseconds: $0)) } ?? .null),
    ])
}
