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

        @Argument(help: "The domain: default, dynamic, switch, user, memory or a custom one.")
        var domain: String

        @Argument(help: "The key.")
        var key: String

        @Option(
            name: .customLong("default"),
            help: ArgumentHelp("Print this value (typed as in 'set') when the key is missing; exit 0.", valueName: "value"))
        var defaultValue: String?

        @Flag(help: "Always print JSON (strings in quotes).")
        var json = false

        @Flag(help: "Print one JSON object with the value, version, updatedAt and expiresAt.")
        var showMeta = false

        func run() throws {
            let domain = try parseDomain(domain)
            let stack = try global.openStack()
            if showMeta {
                if let entry = try stack.entry(in: domain, forKey: key) {
                    Output.standard.write(metaJSON(try entry.value(), entry: entry).compactText + "\n")
                } else if let defaultValue {
                    Output.standard.write(metaJSON(try ValueType.auto.value(from: defaultValue), entry: nil).compactText + "\n")
                } else {
                    throw PrefsError(.notFound, "\(domain.name)/\(key) not found")
                }
                return
            }
            if let value = try stack.value(in: domain, forKey: key) {
                Output.standard.writeValue(value, json: json)
            } else if let defaultValue {
                Output.standard.writeValue(try ValueType.auto.value(from: defaultValue), json: json)
            } else {
                throw PrefsError(.notFound, "\(domain.name)/\(key) not found")
            }
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
