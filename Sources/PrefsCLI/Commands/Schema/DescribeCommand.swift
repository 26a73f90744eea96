import ArgumentParser
import PrefsCore

extension Prefs {
    struct DescribeCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "describe",
            abstract: "Show a key's type, default, constraints, description and current value with its origin.")

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The domain.", completion: Completions.domain)
        var domain: String

        @Argument(help: "The key.", completion: Completions.key)
        var key: String

        @Flag(help: "Print one JSON object.")
        var json = false

        func run() throws {
            let domain = try parseDomain(domain)
            try KeyName.validate(key)
            let stack = try global.openStack()
            let spec = try stack.schema().spec(in: domain, forKey: key)
            let resolved = try stack.resolve(in: domain, forKey: key)
            let unset = PrefsError(.notFound, "\(domain.name)/\(key) is not set and has no default")
            // Nothing to describe: as `get`, exit 1 (a key the schema declares still shows its rules).
            if resolved == nil && spec == nil { throw unset }
            var fields: [(String, JSONValue)] = [("domain", .string(domain.name)), ("key", .string(key))]
            fields.append(("type", .string(spec?.type.rawValue ?? "any")))
            if let spec, spec.isPrefix { fields.append(("declaredBy", .string(spec.key + "*"))) }
            if let value = try stack.defaultValue(in: domain, forKey: key) { fields.append(("default", value)) }
            if let allowed = spec?.allowed { fields.append(("enum", .array(allowed))) }
            if let minimum = spec?.minimum { fields.append(("minimum", .number(minimum))) }
            if let maximum = spec?.maximum { fields.append(("maximum", .number(maximum))) }
            if let pattern = spec?.pattern { fields.append(("pattern", .string(pattern))) }
            if let deprecated = spec?.deprecated { fields.append(("deprecated", deprecated)) }
            if let description = spec?.description { fields.append(("description", .string(description))) }
            if let resolved {
                fields.append(("value", resolved.value))
                fields.append(
                    ("origin", .string(originText(resolved.origin, stack.layerFile(of: resolved.origin, in: domain, forKey: key)))))
            }
            if spec == nil { fields.append(("inSchema", .bool(false))) }
            defer { if resolved == nil { Output.standard.flush() } }
            if json {
                Output.standard.write(JSONValue.object(fields.map { JSONValue.Member($0.0, $0.1) }).compactText + "\n")
                if resolved == nil { throw unset }
                return
            }
            for (name, value) in fields {
                let shown: String
                switch (name, value) {
                case ("enum", .array(let items)): shown = items.map(\.compactText).joined(separator: ", ")
                case (_, .string(let text)) where name != "default" && name != "value": shown = text
                default: shown = value.compactText
                }
                Output.standard.write("\(name):\t\(shown)\n")
            }
            if resolved == nil { throw unset }
        }

    }
}
