import ArgumentParser
import FoundationEssentials
import PrefsCore

extension Prefs {
    struct FlagListCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List flags: KEY, STATE, TYPE, DEFAULT VARIANT, TARGETING (yes/no), VARIANTS, tab-separated.")

        @OptionGroup var global: GlobalOptions

        @Flag(help: "Print one JSON object per line.")
        var json = false

        func run() throws {
            let stack = try global.openStack()
            let version = try stack.flags.fractionalVersionSetting() ?? .default
            let flags = try stack.flags.flagSet(fractionalVersion: version)
            for key in flags.flags.keys.sorted(by: { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }) {
                guard let flag = flags.flags[key] else { continue }
                let type = flag.isStatic ? flag.definition.typeName : flag.variantType
                if json {
                    let object: JSONValue = .object([
                        .init("key", .string(key)), .init("state", .string(flag.state)), .init("type", .string(type)),
                        .init("static", .bool(flag.isStatic)),
                        .init("variants", .array(flag.isStatic ? [.string(FlagSet.staticVariant)] : flag.variants.map { .string($0.key) })),
                        .init(
                            "defaultVariant",
                            flag.isStatic ? .string(FlagSet.staticVariant) : flag.defaultVariant.map(JSONValue.string) ?? .null),
                        .init("targeting", .bool(flag.hasTargeting)), .init("metadata", .object(flag.metadata)),
                        .init("fractionalVersion", .number(String(version.rawValue))),
                    ])
                    Output.standard.write(object.compactText + "\n")
                } else {
                    let fields = [
                        key, flag.state, type, flag.isStatic ? FlagSet.staticVariant : (flag.defaultVariant ?? "-"),
                        flag.hasTargeting ? "yes" : "no",
                        flag.isStatic ? flag.definition.compactText : flag.variants.map(\.key).joined(separator: ","),
                    ]
                    Output.standard.write(fields.joined(separator: "\t") + "\n")
                }
            }
        }
    }
}
