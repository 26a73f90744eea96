import ArgumentParser
import PrefsCore

extension Prefs {
    struct ApplyCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "apply",
            abstract: "Apply a JSON array of operations in one transaction: all or none.",
            discussion: """
                Each element: {"op":"set","domain":D,"key":K,"value":V[,"ttl":"30s"]}, \
                {"op":"rm","domain":D,"key":K} or {"op":"incr","domain":D,"key":K[,"by":N]}, each with \
                optional "ifVersion":N, "ifAbsent":true or "ifValue":V. A failed precondition changes \
                nothing and exits 5 naming the operation; an invalid document exits 6.
                """)

        @OptionGroup var global: GlobalOptions

        @Argument(help: ArgumentHelp("The file to read, or - for standard input.", valueName: "file"), completion: .file())
        var file: String = "-"

        @Flag(help: "Skip the schema's checks (with a warning).")
        var force = false

        func run() throws {
            let source = file == "-" ? "standard input" : file
            let document: JSONValue
            do {
                document = try JSONValue(parsingUTF8: try readInput(file), wrappingLevels: 2)
            } catch let error as PrefsError where error.kind == .invalidValue {
                throw PrefsError(.invalidValue, "\(source): \(error.message)")
            }
            let operations: [KeyValueStack.Operation]
            do {
                operations = try parseOperations(document)
            } catch let error as PrefsError {
                throw PrefsError(.invalidValue, "\(source): \(error.message)")
            }
            let stack = try global.openStack(force: force)
            try stack.perform(try typedBySchema(operations, schema: stack.schema()))
        }
    }
}

/// The operations with each set's value read as `prefs set` reads its VALUE, from the
/// value's JSON text (``Schema/value(fromText:in:forKey:)``): `12345` is the string "12345"
/// for a key whose schema type is string.
func typedBySchema(_ operations: [KeyValueStack.Operation], schema: Schema) throws -> [KeyValueStack.Operation] {
    try operations.map { operation in
        guard case .set(let value, let lifetime) = operation.action, schema.spec(in: operation.domain, forKey: operation.key) != nil
        else { return operation }
        var typed = operation
        typed.action = .set(
            try schema.value(fromText: value.compactText, in: operation.domain, forKey: operation.key), expiresIn: lifetime)
        return typed
    }
}

/// Parses an `apply` document; errors name the JSON path of the problem.
func parseOperations(_ document: JSONValue) throws -> [KeyValueStack.Operation] {
    guard case .array(let items) = document else {
        throw PrefsError(.invalidValue, "expected a JSON array of operations, got \(document.typeName)")
    }
    return try items.enumerated().map { index, item in
        let path = "$[\(index)]"
        func fail(_ message: String) -> PrefsError { PrefsError(.invalidValue, "\(path)\(message)") }
        guard let members = item.objectMembers else { throw fail(": expected an object") }
        guard let op = item["op"]?.stringValue else { throw fail(".op: expected \"set\", \"rm\" or \"incr\"") }
        let allowed: Set<String>
        switch op {
        case "set": allowed = ["op", "domain", "key", "value", "ttl", "ifVersion", "ifAbsent", "ifValue"]
        case "rm": allowed = ["op", "domain", "key", "ifVersion", "ifAbsent", "ifValue"]
        case "incr": allowed = ["op", "domain", "key", "by", "ifVersion", "ifAbsent", "ifValue"]
        default: throw fail(".op: unknown operation \(JSONValue.string(op).compactText)")
        }
        if let unknown = members.first(where: { !allowed.contains($0.key) }) {
            throw fail("\(JSONPath.member(unknown.key)): not allowed for \(op)")
        }
        guard let domainName = item["domain"]?.stringValue else { throw fail(".domain: expected a string") }
        guard Domain.isValidName(domainName), let domain = try? Domain(domainName) else { throw fail(".domain: invalid domain name") }
        guard let key = item["key"]?.stringValue else { throw fail(".key: expected a string") }
        do {
            try KeyName.validate(key)
        } catch let error as PrefsError {
            throw fail(".key: \(error.message)")
        }
        var conditions: [KeyValueStack.Precondition] = []
        if let version = item["ifVersion"] {
            guard case .number(let text) = version, let number = Int64(text) else { throw fail(".ifVersion: expected an integer") }
            conditions.append(.version(number))
        }
        if let absent = item["ifAbsent"] {
            guard absent == .bool(true) || absent == .bool(false) else { throw fail(".ifAbsent: expected true or false") }
            if absent == .bool(true) { conditions.append(.absent) }
        }
        if let value = item["ifValue"] { conditions.append(.value(value)) }
        if conditions.count > 1 { throw fail(": use one of ifVersion, ifAbsent, ifValue") }
        let action: KeyValueStack.Operation.Action
        switch op {
        case "set":
            guard let value = item["value"] else { throw fail(".value: missing") }
            var lifetime: Duration?
            if let ttl = item["ttl"] {
                guard let text = ttl.stringValue, let duration = parseDuration(text), duration > .zero else {
                    throw fail(".ttl: expected a duration such as \"30s\"")
                }
                lifetime = duration
            }
            action = .set(value, expiresIn: lifetime)
        case "rm":
            action = .remove
        default:
            var delta: Int64 = 1
            if let by = item["by"] {
                guard case .number(let text) = by, let number = Int64(text) else { throw fail(".by: expected an integer") }
                delta = number
            }
            action = .increment(by: delta)
        }
        return KeyValueStack.Operation(action, in: domain, forKey: key, if: conditions.first)
    }
}
