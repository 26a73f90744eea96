import ArgumentParser
import PrefsCore

extension Prefs {
    struct RemoveCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rm",
            abstract: "Remove keys.",
            discussion: """
                Removing a missing key succeeds (exit 0) unless --must-exist is given; then \
                nothing is removed and the command exits 1. All keys go in one transaction. \
                prefs rm --domain NAME removes a custom domain with every key (each logged as rm) \
                in one transaction; a built-in domain only loses its keys, and only with --force. \
                With --project the keys are removed from the project file (as 'set --project' finds it) \
                instead of the store.
                """)

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The domain.", completion: Completions.domain)
        var domain: String

        @Argument(help: "The keys to remove.", completion: Completions.key)
        var keys: [String] = []

        @Option(parsing: .unconditional, help: ArgumentHelp("Remove every key that starts with this text.", valueName: "prefix"))
        var prefix: String?

        @Flag(help: "Exit 1 and remove nothing when a key does not exist.")
        var mustExist = false

        @Flag(name: .customLong("domain"), help: "Remove the whole domain (no keys given).")
        var wholeDomain = false

        @Flag(help: "With --domain: remove every key of a built-in domain.")
        var force = false

        @Option(
            parsing: .unconditional, help: ArgumentHelp("Remove only if the key is at this version (exit 5 otherwise).", valueName: "n"))
        var ifVersion: Int64?

        @Option(
            parsing: .unconditional,
            help: ArgumentHelp("Remove only if the key holds this JSON value (exit 5 otherwise).", valueName: "json"))
        var ifValue: String?

        @Flag(help: "Succeed only if the key does not exist (exit 5 otherwise); removes nothing.")
        var ifAbsent = false

        @Flag(help: "Remove the keys from the project file (.prefs.json) instead of the store.")
        var project = false

        func validate() throws {
            if project && (wholeDomain || force || prefix != nil || ifVersion != nil || ifValue != nil || ifAbsent) {
                throw ValidationError("--project takes keys (and --must-exist) only")
            }
            if wholeDomain {
                if !keys.isEmpty || prefix != nil || mustExist || ifVersion != nil || ifValue != nil || ifAbsent {
                    throw ValidationError("--domain takes only the domain name (and --force)")
                }
                return
            }
            if force { throw ValidationError("--force is for --domain") }
            let conditions = [ifVersion != nil, ifValue != nil, ifAbsent].filter { $0 }.count
            if conditions > 0 {
                if conditions > 1 { throw ValidationError("--if-version, --if-value and --if-absent cannot be used together") }
                if keys.count != 1 || prefix != nil {
                    throw ValidationError("--if-version, --if-value and --if-absent take exactly one key and no --prefix")
                }
            }
            if keys.isEmpty && prefix == nil { throw ValidationError("Missing expected argument '<keys>' (or --prefix)") }
            if prefix == "" { throw ValidationError("--prefix must not be empty") }
        }

        func run() throws {
            let domain = try parseDomain(domain)
            for key in keys { try KeyName.validate(key) }
            let stack = try global.openStack()
            if project {
                try stack.removeFromProject(in: domain, keys: keys, mustExist: mustExist, file: try projectFileTarget())
                return
            }
            if wholeDomain {
                try stack.removeDomain(domain, builtIn: force)
                return
            }
            if let ifVersion {
                try stack.remove(in: domain, forKey: keys[0], if: .version(ifVersion))
                return
            }
            if let ifValue {
                try stack.remove(in: domain, forKey: keys[0], if: .value(try ValueType.json.value(from: ifValue)))
                return
            }
            if ifAbsent {
                try stack.remove(in: domain, forKey: keys[0], if: .absent)
                return
            }
            var targets = keys
            if let prefix {
                let matching = try stack.entries(in: domain, prefix: prefix).map(\.key)
                if matching.isEmpty && mustExist {
                    throw PrefsError(.notFound, "no key in \(domain.name) starts with \(JSONValue.string(prefix).compactText)")
                }
                var seen = Swift.Set(keys.map { Array($0.utf8) })
                targets += matching.filter { seen.insert(Array($0.utf8)).inserted }
            }
            // One transaction for the keys and the prefix matches.
            try stack.remove(in: domain, keys: targets, mustExist: mustExist)
            try flushOrDiscard(stack)
        }
    }
}
