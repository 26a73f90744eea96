#if DEBUG
    import ArgumentParser
    import PrefsCore

    #if canImport(Glibc)
        import Glibc
    #endif

    /// What `scripts/generate` needs besides the parser's own description of the commands to
    /// write ``CommandTable``: each command's Swift type and the names of its argument
    /// properties in declaration order (option groups expanded), as JSON on standard output.
    /// Debug builds only: `PREFS_DUMP_PROPERTIES=1 prefs`.
    enum PropertyDump {
        /// Prints the dump and returns true when `PREFS_DUMP_PROPERTIES` asks for it.
        static func printIfRequested() -> Bool {
            guard let flag = ProcessEnvironment.value("PREFS_DUMP_PROPERTIES"), !flag.isEmpty else { return false }
            var commands: [String] = []
            visit(Prefs.self, path: [], into: &commands)
            print("[\n" + commands.joined(separator: ",\n") + "\n]")
            return true
        }

        private static func visit(_ type: any ParsableCommand.Type, path: [String], into commands: inout [String]) {
            let entries = properties(of: type.init())
            commands.append(
                "{\"path\": \(json(path)), \"type\": \(quote(typeName(type))), \"group\": \(type.configuration.subcommands.isEmpty ? "false" : "true"), \"properties\": [\(entries.joined(separator: ", "))]}"
            )
            for child in type.configuration.subcommands {
                visit(child, path: path + [child.configuration.commandName ?? ""], into: &commands)
            }
        }

        /// `{"label": …, "wrapper": Option|Flag|Argument}` or `{"label": …, "wrapper": "OptionGroup",
        /// "properties": […]}` for each property wrapper of the parser.
        private static func properties(of value: Any) -> [String] {
            Mirror(reflecting: value).children.compactMap { child -> String? in
                guard var label = child.label else { return nil }
                if label.hasPrefix("_") { label.removeFirst() }
                if let group = child.value as? any OptionGroupType {
                    let inner = properties(of: group.groupType.init())
                    return "{\"label\": \(quote(label)), \"wrapper\": \"OptionGroup\", \"properties\": [\(inner.joined(separator: ", "))]}"
                }
                let wrapper = String(reflecting: type(of: child.value))
                for kind in ["Option", "Flag", "Argument"] where wrapper.hasPrefix("ArgumentParser.\(kind)<") {
                    return "{\"label\": \(quote(label)), \"wrapper\": \"\(kind)\"}"
                }
                return nil
            }
        }

        private static func typeName(_ type: Any.Type) -> String {
            let name = String(reflecting: type)
            return name.hasPrefix("prefs.") ? String(name.dropFirst("prefs.".count)) : name
        }

        /// A JSON array of names (identifiers and command names: nothing to escape).
        private static func json(_ strings: [String]) -> String {
            "[" + strings.map(quote).joined(separator: ", ") + "]"
        }

        private static func quote(_ name: String) -> String {
            "\"" + name + "\""
        }
    }

    /// Lets ``PropertyDump`` look inside an `@OptionGroup`.
    protocol OptionGroupType {
        var groupType: any ParsableArguments.Type { get }
    }

    extension OptionGroup: OptionGroupType {
        var groupType: any ParsableArguments.Type { Value.self }
    }
#endif
