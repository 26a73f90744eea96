import FoundationEssentials
import PrefsCore

extension ServeCore {
    /// The inspector's read-only JSON: `/api/summary`, `/api/keys`, `/api/key`, `/api/flags`.
    func inspectorAPI(_ request: ServeRequest) -> ServeResponse {
        do {
            switch request.path {
            case "/api/summary": return .json(200, try summary().compactText)
            case "/api/keys": return .json(200, try keys(request.queryItems).compactText)
            case "/api/key": return try key(request.queryItems)
            case "/api/flags": return .json(200, flagList().compactText)
            default: return .json(404, OFREP.problem("no such path: \(Self.shortened(request.path))"))
            }
        } catch let error as PrefsError {
            return .json(error.kind == .usage || error.kind == .invalidValue ? 400 : 500, OFREP.problem(error.message))
        } catch {
            return .json(500, OFREP.problem("\(error)"))
        }
    }

    private static func number(_ value: some BinaryInteger) -> JSONValue { .number(String(value)) }

    func summary() throws -> JSONValue {
        var domains: [JSONValue] = []
        for domain in try stack.domains() {
            var count = 0
            try stack.forEachEntry(in: domain) { _ in count += 1 }
            domains.append(.object([.init("name", .string(domain.name)), .init("keys", Self.number(count))]))
        }
        let current = snapshot
        return .object([
            .init("store", .string(stack.path)), .init("domains", .array(domains)), .init("flags", Self.number(current.flags.flags.count)),
            .init("sequence", Self.number(current.logSequence)), .init("version", .string(PrefsVersion.current)),
        ])
    }

    /// Keys whose domain/key text contains `q` (case-insensitive), at most 500.
    func keys(_ query: [String: String]) throws -> JSONValue {
        let domain = try query["domain"].flatMap { $0.isEmpty ? nil : try Domain($0) }
        let needle = (query["q"] ?? "").lowercased()
        var rows: [JSONValue] = []
        var more = false
        try stack.forEachEntry(in: domain) { entry in
            guard !more else { return }
            if !needle.isEmpty && !"\(entry.domain.name)/\(entry.key)".lowercased().contains(needle) { return }
            guard rows.count < 500 else {
                more = true
                return
            }
            let preview = entry.json.count > 120 ? String(entry.json.prefix(120)) + "…" : entry.json
            rows.append(
                .object([.init("domain", .string(entry.domain.name)), .init("key", .string(entry.key)), .init("preview", .string(preview))])
            )
        }
        return .object([.init("keys", .array(rows)), .init("more", .bool(more))])
    }

    /// One key: its value and its newest 50 change-log records.
    func key(_ query: [String: String]) throws -> ServeResponse {
        guard let domainName = query["domain"], let key = query["key"] else {
            return .json(400, OFREP.problem("domain and key are required"))
        }
        let domain = try Domain(domainName)
        guard let entry = try stack.entry(in: domain, forKey: key) else {
            return .json(404, OFREP.problem("\(Self.shortened(domainName))/\(Self.shortened(key)) not found"))
        }
        let history = try stack.history(LogFilter(domain: domain, key: key), limit: 50).map { record -> JSONValue in
            .object([
                .init("seq", Self.number(record.seq)), .init("at", .string(ISOTime.format(milliseconds: record.at))),
                .init("op", .string(record.op)), .init("old", record.old.map(JSONValue.string) ?? .null),
                .init("new", record.new.map(JSONValue.string) ?? .null), .init("actor", .string(record.actor)),
            ])
        }
        let value = (try? entry.value()) ?? .string(entry.json)
        return .json(
            200,
            JSONValue.object([
                .init("domain", .string(domain.name)), .init("key", .string(entry.key)), .init("value", value),
                .init("updatedAt", .string(ISOTime.format(milliseconds: entry.updatedAt))),
                .init("expiresAt", entry.expiresAt.map { .string(ISOTime.format(milliseconds: $0)) } ?? .null),
                .init("history", .array(history)),
            ]).compactText)
    }

    /// Every flag with its state, variants, default variant, targeting and metadata.
    func flagList() -> JSONValue {
        let current = snapshot
        var flags: [JSONValue] = []
        for key in current.keys {
            guard let flag = current.flags.flags[key] else { continue }
            if flag.isStatic {
                flags.append(
                    .object([
                        .init("key", .string(key)), .init("static", .bool(true)), .init("value", flag.definition),
                        .init("variant", .string(FlagSet.staticVariant)),
                    ]))
                continue
            }
            flags.append(
                .object([
                    .init("key", .string(key)), .init("static", .bool(false)), .init("state", .string(flag.state)),
                    .init("variants", .object(flag.variants)),
                    .init("defaultVariant", flag.defaultVariant.map(JSONValue.string) ?? .null),
                    .init("targeting", flag.definition["targeting"] ?? .null), .init("metadata", .object(flag.metadata)),
                ]))
        }
        return .object([
            .init("flags", .array(flags)), .init("metadata", .object(current.flags.metadata)),
            .init("fractionalVersion", Self.number(current.flags.fractionalVersion.rawValue)),
        ])
    }

    /// One server-sent event telling the inspector the store moved.
    public func changeEvent() -> String {
        let current = snapshot
        return "event: change\ndata: {\"sequence\":\(current.logSequence),\"flags\":\"\(FNV1aText.hex(current.digest))\"}\n\n"
    }
}
