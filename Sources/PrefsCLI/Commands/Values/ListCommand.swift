import ArgumentParser
import PrefsCore

extension Prefs {
    struct ListCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List keys and values.",
            discussion: """
                One line per entry: DOMAIN<TAB>KEY<TAB>JSON, or KEY<TAB>JSON when a domain is \
                given. Sorted by domain, then key (bytewise). --json prints one object \
                {domain:{key:value}} (or {key:value} with a domain). A DOMAIN that does not \
                exist is exit 1 with the nearest domain's name, unless --allow-missing.
                """)

        @OptionGroup var global: GlobalOptions

        @Argument(help: "Only this domain.", completion: Completions.domain)
        var domain: String?

        @Option(parsing: .unconditional, help: ArgumentHelp("Only keys that start with this text.", valueName: "prefix"))
        var prefix: String?

        @Flag(help: "Print keys without values.")
        var keysOnly = false

        @Flag(help: "Print one JSON object.")
        var json = false

        @Flag(name: .customShort("z"), help: "End records with NUL instead of newline.")
        var nullTerminated = false

        @Flag(help: "With --json: each value as {value, version, updatedAt, expiresAt}.")
        var meta = false

        @Flag(
            help:
                "Start each line with the origin (override, store, project:FILE, system:FILE, locked:LOCKFILE, default or schema) and a tab; with --json, {value, origin}."
        )
        var showOrigin = false

        @Flag(help: "A DOMAIN that does not exist lists as an empty one (exit 0), not exit 1.")
        var allowMissing = false

        func validate() throws {
            if json && nullTerminated { throw ValidationError("--json and -z cannot be used together") }
            if meta && !json { throw ValidationError("--meta needs --json") }
            if meta && keysOnly { throw ValidationError("--meta and --keys-only cannot be used together") }
            if meta && showOrigin { throw ValidationError("--meta and --show-origin cannot be used together") }
        }

        func run() throws {
            let domain = try domain.map(parseDomain)
            let stack = try global.openStack()
            if let domain, !allowMissing { try requireExisting([domain], in: stack) }
            let out = Output.standard
            if json {
                try writeJSON(stack, domain: domain, out: out)
                return
            }
            let end = nullTerminated ? UInt8(0) : UInt8(ascii: "\n")
            // Options read once: each read of a property wrapper costs more than a row.
            let (showOrigin, keysOnly) = (self.showOrigin, self.keysOnly)
            let tab = UInt8(ascii: "\t")
            // Each line is made in the output's buffer from the bytes SQLite holds.
            try stack.forEachEffectiveRow(in: domain, prefix: prefix) { rowDomain, key, json, origin in
                out.write { line in
                    if showOrigin {
                        let file = stack.layerFile(of: origin, in: rowDomain, forKey: String(decoding: key, as: UTF8.self))
                        line.append(contentsOf: originText(origin, file).utf8)
                        line.append(tab)
                    }
                    if domain == nil {
                        line.append(contentsOf: rowDomain.name.utf8)
                        line.append(tab)
                    }
                    TerminalText.appendEscapingControls(key, to: &line)
                    if !keysOnly {
                        line.append(tab)
                        TerminalText.appendEscapingControls(json, to: &line)
                    }
                    line.append(end)
                }
            }
        }

        /// The whole object, built before anything is written: a stored value that is not
        /// valid JSON stops the command (exit 3) with nothing printed.
        private func writeJSON(_ stack: KeyValueStack, domain: Domain?, out: Output) throws {
            let (showOrigin, keysOnly, meta) = (self.showOrigin, self.keysOnly, self.meta)
            var text: [UInt8] = []
            func write(_ part: String) { text.append(contentsOf: part.utf8) }
            var current: Domain?
            var first = true
            let flatKeys = domain != nil && keysOnly
            write(flatKeys ? "[" : "{")
            // Opens the entry's domain's member when listing every domain, then its own.
            func startEntry(_ entryDomain: Domain) {
                if domain == nil && current != entryDomain {
                    if current != nil { write(keysOnly ? "]," : "},") }
                    current = entryDomain
                    first = true
                    write(JSONValue.string(entryDomain.name).compactText)
                    write(keysOnly ? ":[" : ":{")
                }
                if !first { write(",") }
                first = false
            }
            if !meta && !showOrigin {
                // Keys and values as the store holds them: no `String` per entry.
                try stack.forEachEffectiveRow(in: domain, prefix: prefix) { entryDomain, key, json, _ in
                    startEntry(entryDomain)
                    JSONWriter.writeString(bytes: key, into: &text)
                    if !keysOnly {
                        write(":")
                        try Entry.appendCheckedJSON(json, domain: entryDomain, key: key, to: &text)
                    }
                }
            } else {
                try stack.forEachEffectiveEntry(in: domain, prefix: prefix) { entry, origin in
                    startEntry(entry.domain)
                    write(JSONValue.string(entry.key).compactText)
                    if meta {
                        write(":")
                        write(metaJSON(try entry.value(), entry: origin == .store ? entry : nil).compactText)
                    } else if !keysOnly {
                        write(":")
                        let value = try entry.value()
                        let file = stack.layerFile(of: origin, in: entry.domain, forKey: entry.key)
                        write(JSONValue.object([.init("value", value), .init("origin", .string(originText(origin, file)))]).compactText)
                    }
                }
            }
            if current != nil { write(keysOnly ? "]" : "}") }
            write(flatKeys ? "]\n" : "}\n")
            out.write(bytes: text)
        }
    }
}
