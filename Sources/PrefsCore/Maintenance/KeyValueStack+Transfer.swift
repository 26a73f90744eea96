import FoundationEssentials
import Glibc

/// What an import changes (or, for a dry run, would change).
public struct ImportPlan: Sendable, Equatable {
    /// One change of one key.
    public struct Change: Sendable, Equatable {
        /// What happens to the key.
        public enum Action: String, Sendable {
            /// The key is new.
            case add
            /// The key exists with another value.
            case change
            /// The key is removed (``KeyValueStack/importDocument(_:replace:dryRun:)`` with
            /// `replace`).
            case remove
        }

        /// What happens.
        public var action: Action
        /// The domain.
        public var domain: Domain
        /// The key.
        public var key: String
        /// The new value's compact JSON; nil for a removal.
        public var json: String?
    }

    /// The changes in domain, then key order.
    public var changes: [Change] = []
    /// How many keys are left as they are.
    public var unchanged = 0

    /// Appends changes; takes the array itself when there are none yet (no copy of a large plan).
    mutating func append(contentsOf more: [Change]) {
        if changes.isEmpty { changes = more } else { changes += more }
    }

    /// The number of changes of one kind.
    public func count(_ action: Change.Action) -> Int {
        changes.reduce(0) { $0 + ($1.action == action ? 1 : 0) }
    }
}

extension KeyValueStack {
    /// Writes the contents of `domains` (default: every persistent domain that holds a key)
    /// as one compact JSON object `{"domain":{"key":value}}`, domains and keys sorted.
    ///
    /// ```swift
    /// let json = try stack.exportJSON()       // {"user":{"theme":"dark"}}
    /// ```
    /// - Throws: `PrefsError` when the store cannot be read, of kind `storeUnreadable` when
    ///   a stored value is not valid JSON (nothing is returned then).
    public func exportJSON(_ domains: [Domain]? = nil) throws -> String {
        var whole: [UInt8] = []
        try exportJSON(domains, chunkSize: 1 << 20) { whole.append(contentsOf: $0) }
        return String(decoding: whole, as: UTF8.self)
    }

    /// Writes what ``exportJSON(_:)`` returns in pieces of about `chunkSize` bytes, in
    /// order, so the whole document is never held: its memory does not grow with the store.
    ///
    /// ```swift
    /// try stack.exportJSON(chunkSize: 65_536) { piece in print(String(decoding: piece, as: UTF8.self), terminator: "") }
    /// ```
    /// The whole document is read in one read transaction of the store file, so it is one
    /// state of the store; `write` runs inside it and must not use this stack (a read joins
    /// the transaction, a write would wait for it), and a slow `write` keeps the store's
    /// write-ahead log from being checkpointed until the export ends.
    ///
    /// - Throws: what `write` throws; `PrefsError` when the store cannot be read, of kind
    ///   `storeUnreadable` when a stored value is not valid JSON (the pieces before it have
    ///   been written then).
    public func exportJSON(_ domains: [Domain]? = nil, chunkSize: Int, write: ([UInt8]) throws -> Void) throws {
        // One read transaction for every domain of the store file: the document is one state
        // of the store, never domains from before and after another process's commit. (Only
        // `memory` named: the store file is not read.)
        guard domains?.contains(where: \.isPersistent) ?? true, let reader = try main.reader() else {
            return try exportEntries(domains, chunkSize: chunkSize, write: write)
        }
        do {
            try reader.read { _ in try exportEntries(domains, chunkSize: chunkSize, write: write) }
        } catch let error as DatabaseError {
            throw PrefsError.database(error, path: path, writing: false)
        }
    }

    private func exportEntries(_ domains: [Domain]?, chunkSize: Int, write: ([UInt8]) throws -> Void) throws {
        var out: [UInt8] = [UInt8(ascii: "{")]
        out.reserveCapacity(min(chunkSize, 1 << 20) + 4096)
        let explicit = domains != nil
        let selected = try domains ?? self.domains().filter(\.isPersistent)
        var firstDomain = true
        for domain in Array(Set(selected)).sorted() {
            // An explicit domain is written even when empty; others from their first key.
            var opened = explicit
            if explicit { Self.openDomain(domain, first: &firstDomain, into: &out) }
            var firstKey = true
            // Each row's bytes go straight into the buffer: no `String` per key or value. (No
            // local function captures these variables: that would check every access to them
            // at run time.)
            try forEachRow(in: domain) { _, key, json in
                if !opened {
                    Self.openDomain(domain, first: &firstDomain, into: &out)
                    opened = true
                }
                if !firstKey { out.append(UInt8(ascii: ",")) }
                firstKey = false
                JSONWriter.writeString(bytes: key, into: &out)
                out.append(UInt8(ascii: ":"))
                try Entry.appendCheckedJSON(json, domain: domain, key: key, to: &out)
                if out.count >= chunkSize {
                    try write(out)
                    out.removeAll(keepingCapacity: true)
                }
            }
            if opened { out.append(UInt8(ascii: "}")) }
        }
        out.append(UInt8(ascii: "}"))
        try write(out)
    }

    /// Starts a domain's member in an export: `"name":{`, after a comma unless it is the first.
    private static func openDomain(_ domain: Domain, first: inout Bool, into out: inout [UInt8]) {
        if !first { out.append(UInt8(ascii: ",")) }
        first = false
        JSONWriter.writeString(domain.name, into: &out)
        out.append(UInt8(ascii: ":"))
        out.append(UInt8(ascii: "{"))
    }

    /// Imports a document `{"domain":{"key":value}}`.
    ///
    /// The whole document is checked before anything changes. Keys whose value is already
    /// the same are left alone. With `replace`, each domain named in the document becomes
    /// exactly its content there (other keys of that domain are removed). The persistent
    /// domains change in one transaction; `memory`, if named, in another.
    ///
    /// ```swift
    /// let plan = try stack.importDocument(try JSONValue(parsing: text), replace: false, dryRun: true)
    /// print(plan.count(.add))
    /// ```
    /// - Returns: the changes made, or that would be made when `dryRun` is true.
    /// - Throws: `PrefsError`: `invalidValue` when the document is not an object of
    ///   objects, names an invalid domain or key (the message gives its JSON path);
    ///   `cannotWrite` when the store cannot be written.
    @discardableResult
    public func importDocument(_ document: JSONValue, replace: Bool = false, dryRun: Bool = false) throws -> ImportPlan {
        try importEntries(try Self.validateDocument(document), replace: replace, dryRun: dryRun)
    }

    /// Imports a document given as JSON text (UTF-8), as ``importDocument(_:replace:dryRun:)``
    /// does, without holding the whole document as a `JSONValue` tree: the memory it takes
    /// is about that of the keys and compact values themselves.
    ///
    /// - Throws: `PrefsError`: `invalidValue` for text that is not valid UTF-8 or JSON,
    ///   or a document that is not an object of objects, names an invalid domain or key;
    ///   `cannotWrite`.
    @discardableResult
    public func importDocument(utf8 bytes: consuming [UInt8], replace: Bool = false, dryRun: Bool = false) throws -> ImportPlan {
        let streamed = try? bytes.withUnsafeBufferPointer {
            try JSONParser.parseObjectOfObjects($0, wrappingLevels: 2)
        }
        guard let streamed else {
            // Not the plain shape, or bad JSON: the full parse reports it as it always has.
            return try importDocument(try JSONValue(parsingUTF8: bytes, wrappingLevels: 2), replace: replace, dryRun: dryRun)
        }
        bytes = []  // the text is not needed any more: give its memory back before writing
        return try importEntries(try Self.checkEntries(streamed), replace: replace, dryRun: dryRun)
    }

    private func importEntries(_ incoming: [(Domain, [(String, String)])], replace: Bool, dryRun: Bool) throws -> ImportPlan {
        _ = try main.reader()  // refuse a damaged or foreign store even when there is nothing to do
        if validatesWrites {
            let schema = try self.schema()
            for (domain, members) in incoming {
                for (key, json) in members {
                    try schema.validate(try JSONValue(parsing: json), in: domain, forKey: key)
                }
            }
        }
        if dryRun {
            return try Self.plan(incoming, replace: replace) { domain, body in try forEachEntry(in: domain, body) }
        }
        try flushSynchronously()
        var plan = ImportPlan()
        for persistent in [true, false] {
            let part = incoming.filter { $0.0.isPersistent == persistent }
            guard !part.isEmpty else { continue }
            let database = persistent ? main : memory
            // Plan and apply in one transaction, so the result is exactly the file's
            // content whatever other processes do meanwhile.
            let (partPlan, events) = try WriteTransaction.run(on: database, op: .import) { transaction in
                let db = transaction.db
                let now = WallClock.nowMilliseconds()
                for (domain, _) in part where try !DomainTable.mayExist(db, domain) {
                    try DomainTable.create(db, domain)
                }
                let partPlan = try Self.plan(part, replace: replace) { domain, body in
                    try DomainTable(domain).forEach(db, prefix: nil, now: now, body)
                }
                let changes = partPlan.changes.lazy.map {
                    (PendingKey(domain: $0.domain, key: $0.key), $0.json.map { PendingChange.set($0, expiresAt: nil) } ?? .remove)
                }
                // Without observers, sets take the bulk path (no read of the previous value).
                let events = try ChangeApplier(transaction).apply(
                    changes, op: .import, requireExisting: false, events: !observers.isEmpty
                ).events
                return (partPlan, events)
            }
            observers.deliver(events)
            plan.append(contentsOf: partPlan.changes)
            plan.unchanged += partPlan.unchanged
        }
        return plan
    }

    /// Compares the document with the current content that `visit` reports.
    static func plan(
        _ incoming: [(Domain, [(String, String)])], replace: Bool,
        visit: (Domain, (Entry) throws -> Void) throws -> Void
    ) throws -> ImportPlan {
        var plan = ImportPlan()
        for (domain, members) in incoming {
            var current: [BytewiseString: String] = [:]
            var currentOrder: [String] = []
            try visit(domain) { entry in
                current[BytewiseString(entry.key)] = entry.json
                currentOrder.append(entry.key)
            }
            var seen = Set<BytewiseString>()
            var domainChanges: [ImportPlan.Change] = []
            domainChanges.reserveCapacity(members.count)
            for (key, json) in members {
                if replace { seen.insert(BytewiseString(key)) }
                if current.isEmpty {
                    domainChanges.append(.init(action: .add, domain: domain, key: key, json: json))
                } else if let old = current[BytewiseString(key)] {
                    if old.utf8.elementsEqual(json.utf8) {
                        plan.unchanged += 1
                    } else {
                        domainChanges.append(.init(action: .change, domain: domain, key: key, json: json))
                    }
                } else {
                    domainChanges.append(.init(action: .add, domain: domain, key: key, json: json))
                }
            }
            if replace {
                for key in currentOrder where !seen.contains(BytewiseString(key)) {
                    domainChanges.append(.init(action: .remove, domain: domain, key: key, json: nil))
                }
            }
            domainChanges.sortUnlessSorted { BytewiseString.precedes($0.key, $1.key) }
            plan.append(contentsOf: domainChanges)
        }
        return plan
    }

    /// Checks an import document; returns its domains (sorted) with keys and compact values.
    static func validateDocument(_ document: JSONValue) throws -> [(Domain, [(String, String)])] {
        try documentDomains(document).map { domain, members in (domain, members.map { ($0.key, $0.value.compactText) }) }
    }

    /// Checks an import document as ``validateDocument(_:)`` does (the same errors, found in
    /// the same order: every domain's name and shape first, then the keys); returns its
    /// domains (sorted) with their members as parsed, for readers that keep the values (the
    /// layers) without making their text and parsing it again.
    static func documentDomains(_ document: JSONValue) throws -> [(Domain, [JSONValue.Member])] {
        guard let domains = document.objectMembers else {
            throw PrefsError(.invalidValue, "import document must be a JSON object of domains, got \(document.typeName)")
        }
        var result: [(Domain, [JSONValue.Member])] = []
        result.reserveCapacity(domains.count)
        for member in domains {
            guard let domain = try? Domain(member.key) else {
                throw PrefsError(.invalidValue, "$\(JSONPath.member(member.key)): invalid domain name")
            }
            guard let keys = member.value.objectMembers else {
                throw PrefsError(.invalidValue, "$\(JSONPath.member(member.key)): expected an object of keys, got \(member.value.typeName)")
            }
            result.append((domain, keys))
        }
        for (domain, members) in result {
            for member in members {
                do {
                    try KeyName.validate(member.key)
                } catch let error as PrefsError {
                    throw PrefsError(.invalidValue, "$\(JSONPath.member(domain.name))\(JSONPath.member(member.key)): \(error.message)")
                }
            }
        }
        if result.count > 1 { result.sort { $0.0 < $1.0 } }
        return result
    }

    /// Checks the domain names and keys of an import document's entries (names with their
    /// keys and compact values); returns them by domain, sorted.
    static func checkEntries(_ raw: [(String, [(String, String)])]) throws -> [(Domain, [(String, String)])] {
        var result: [(Domain, [(String, String)])] = []
        for (name, entries) in raw {
            let path = "$" + JSONPath.member(name)
            guard Domain.isValidName(name), let domain = try? Domain(name) else {
                throw PrefsError(.invalidValue, "\(path): invalid domain name")
            }
            for (key, _) in entries {
                do {
                    try KeyName.validate(key)
                } catch let error as PrefsError {
                    throw PrefsError(.invalidValue, "\(path)\(JSONPath.member(key)): \(error.message)")
                }
            }
            result.append((domain, entries))
        }
        return result.sorted { $0.0 < $1.0 }
    }
}
