import ArgumentParser
import PrefsCore

extension Prefs {
    struct Get: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the value of a key.",
            discussion: """
                Strings print raw, everything else as compact JSON, followed by a newline. \
                Exits 1 when the key does not exist and no --default is given.
                """)

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The domain: default, dynamic, switch, user, memory or a custom one.", completion: Completions.domain)
        var domain: String

        @Argument(help: "The key.", completion: Completions.key)
        var key: String

        @Option(
            name: .customLong("default"), parsing: .unconditional,
            help: ArgumentHelp("Print this value (typed as in 'set') when the key is missing; exit 0.", valueName: "value"))
        var defaultValue: String?

        @Flag(help: "Always print JSON (strings in quotes).")
        var json = false

        @Flag(help: "Print one JSON object with the value, version, updatedAt and expiresAt.")
        var showMeta = false

        @Flag(help: "Print where the value came from first: override, stored, default or fallback, then a tab.")
        var showOrigin = false

        func validate() throws {
            if showMeta && showOrigin { throw ValidationError("--show-meta and --show-origin cannot be used together") }
        }

        func run() throws {
            let domain = try parseDomain(domain)
            let stack = try global.openStack()
            if showMeta {
                if let value = stack.overrides[domain]?[key] {
                    Output.standard.write(metaJSON(value, entry: nil).compactText + "\n")
                } else if let entry = try stack.entry(in: domain, forKey: key) {
                    Output.standard.write(metaJSON(try entry.value(), entry: entry).compactText + "\n")
                } else if let registered = try stack.defaultValue(in: domain, forKey: key) {
                    Output.standard.write(metaJSON(registered, entry: nil).compactText + "\n")
                } else if let defaultValue {
                    Output.standard.write(metaJSON(try ValueType.auto.value(from: defaultValue), entry: nil).compactText + "\n")
                } else {
                    throw PrefsError(.notFound, "\(domain.name)/\(key) not found")
                }
                return
            }
            let answer: (value: JSONValue, origin: ValueOrigin)
            if let resolved = try stack.resolve(in: domain, forKey: key) {
                answer = resolved
            } else if let defaultValue {
                answer = (try ValueType.auto.value(from: defaultValue), .fallback)
            } else {
                throw PrefsError(.notFound, "\(domain.name)/\(key) not found")
            }
            if showOrigin { Output.standard.write(answer.origin.rawValue + "\t") }
            Output.standard.writeValue(answer.value, json: json)
        }
    }
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
