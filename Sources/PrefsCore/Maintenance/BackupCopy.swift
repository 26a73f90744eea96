import Glibc

/// A backup read as data for `restore`: only its rows are taken, each checked as `import`
/// checks a document, into a new store that prefs made itself. None of the backup's SQL
/// objects (tables, triggers, views, indexes) is taken over; one prefs did not make is
/// named in the report. Refresh sources and the sync remote (with its pending operations,
/// clock, per-key state and the store id) come along only with `withSources`: a backup
/// written by someone else must not choose where this user's tokens and writes go.
struct BackupCopy {
    /// The backup's path, for messages.
    let source: String
    /// Restore refresh sources and the sync remote too.
    let withSources: Bool

    /// Opens `source` read-only and immutable: SQLite writes nothing next to it (no `-wal`
    /// or `-shm` beside a WAL-mode backup) and reads the file as it is.
    static func open(_ source: String) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.readonly = true
        configuration.foreignKeysEnabled = false
        return try DatabaseQueue(path: StoreDatabase.immutableURI(source) + "&mode=ro", configuration: configuration)
    }

    private func refused(_ reason: String) -> PrefsError {
        PrefsError(.storeUnreadable, "\(source) cannot be restored: \(reason)")
    }

    /// Untrusted text for a message: JSON-quoted (control characters escaped).
    static func quoted(_ value: DatabaseValue) -> String {
        switch value {
        case .text(let text): JSONValue.string(text).compactText
        default: value.description
        }
    }

    /// Compact JSON of a stored value, or nil when it is not one JSON value.
    static func compactJSON(_ value: DatabaseValue) -> String? {
        guard case .text(let text) = value, let parsed = try? JSONValue(parsing: text) else { return nil }
        return parsed.compactText
    }

    private static func integer(_ value: DatabaseValue) -> Int64? {
        if case .integer(let number) = value { return number }
        return nil
    }

    private static func text(_ value: DatabaseValue) -> String? {
        if case .text(let text) = value { return text }
        return nil
    }

    /// Copies the backup `backup` (schema `version`, inside a read transaction) into
    /// `target` (a new store, inside its write transaction); counts what it takes and notes
    /// what it leaves in `report`. Returns the last change-log number restored (0: none).
    ///
    /// - Throws: ``PrefsError`` of kind `storeUnreadable` for a domain, key, value or
    ///   version that is not one prefs writes (nothing is restored then).
    func copy(_ backup: Database, version: Int, into target: Database, report: inout RestoreReport) throws -> Int64 {
        let found = try SchemaInventory.read(backup)
        func isTable(_ name: String) -> Bool { found.objects[.init(type: "table", name: name)] != nil }
        guard isTable("meta"), isTable("domains") else { throw refused("it has no meta or domains table") }
        try ChangeLog.enableTriggers(target, false)
        defer { try? ChangeLog.enableTriggers(target, true) }

        var domains: [Domain] = []
        for row in try Row.fetchAll(backup, sql: "SELECT name, created_at FROM domains") {
            guard let name = Self.text(row.values[0]), Domain.isValidName(name), let domain = try? Domain(name), domain.isPersistent
            else { throw refused("domain name \(Self.quoted(row.values[0])) is not valid") }
            guard let created = Self.integer(row.values[1]) else { throw refused("domain \(name): created_at is not an integer") }
            try copyTable(backup, domain, into: target, found: found, shared: version >= 4 && DomainTable.isShared(domain), report: &report)
            try target.execute(sql: "UPDATE domains SET created_at = ? WHERE name = ?", arguments: [created, name])
            domains.append(domain)
        }
        report.domains = domains.count
        try copyMeta(backup, into: target, report: &report)
        let last = isTable("changelog") ? try copyLog(backup, into: target, report: &report) : 0
        if isTable("refresh_sources") { try copySources(backup, into: target, report: &report) }
        if isTable("sync_config") { try copySync(backup, into: target, found: found, report: &report) }

        let expected = try SchemaInventory.expected(domains: domains)
        // Before version 4 each custom domain had its own table, expiry index and triggers;
        // before version 5 every domain table had its change-log triggers in the store.
        var legacy: Set<String> = ["grdb_migrations"]
        if version < 5 {
            legacy.insert("write_context")  // log_context since version 5
            legacy.formUnion(ChangeLog.persistentTriggerNames(DomainTable.sharedTableName))
            for domain in domains {
                let name = "kv_" + domain.name
                legacy.formUnion(ChangeLog.persistentTriggerNames(name))
                if version < 4 && DomainTable.isShared(domain) { legacy.formUnion([name, name + "_expiry"]) }
            }
        }
        for difference in found.differences(from: expected, namesOnly: version < StoreDatabase.schemaVersion) {
            switch difference {
            case .unknown(let object) where !legacy.contains(object.name):
                report.dropped.append("\(object.description) (prefs did not make it)")
            case .altered(let object):
                report.dropped.append("\(object.description) as the backup has it (it differs from the one prefs makes)")
            case .unknown, .missing:
                break  // prefs' own is in the new store
            }
        }
        return last
    }

    /// Copies one domain's keys, each checked as `import` checks it: from the domain's own
    /// table, or (`shared`: a custom domain of a store of schema version 4 and later) from
    /// its rows of the shared table.
    private func copyTable(
        _ backup: Database, _ domain: Domain, into target: Database, found: SchemaInventory, shared: Bool, report: inout RestoreReport
    ) throws {
        let name = shared ? DomainTable.sharedTableName : "kv_" + domain.name
        guard found.objects[.init(type: "table", name: name)] != nil else {
            throw refused("domain \(domain.name) has no table \(name)")
        }
        var columns: [String: Int64] = [:]
        for row in try Row.fetchAll(backup, sql: "PRAGMA table_info(\(name.quotedDatabaseIdentifier))") {
            if let column = Self.text(row.values[1]) { columns[column] = Self.integer(row.values[5]) ?? 0 }
        }
        let keyed = shared ? columns["domain"] == 1 && columns["key"] == 2 : columns["key"] == 1
        guard keyed, columns.values.filter({ $0 != 0 }).count == (shared ? 2 : 1),
            ["value", "version", "updated_at", "expires_at"].allSatisfy({ columns[$0] != nil })
        else {
            throw refused(
                "table \(name) is not the table prefs makes (\(shared ? "domain and key" : "key"), the primary key, with value, version, updated_at, expires_at)"
            )
        }
        try DomainTable.create(target, domain)
        let table = DomainTable(domain)
        let (column, literal) = table.isShared ? ("domain, ", "'\(domain.name)', ") : ("", "")
        let insert = try target.makeStatement(
            sql: "INSERT INTO \(table.table) (\(column)key, value, version, updated_at, expires_at) VALUES (\(literal)?, ?, ?, ?, ?)")
        let source = name.quotedDatabaseIdentifier + (shared ? " WHERE domain = ?" : "")
        let rows = try Row.fetchCursor(
            backup, sql: "SELECT key, value, version, updated_at, expires_at FROM \(source)", arguments: shared ? [domain.name] : [])
        while let row = try rows.next() {
            guard let key = Self.text(row.values[0]), (try? KeyName.validate(key)) != nil else {
                throw refused("domain \(domain.name): key \(Self.quoted(row.values[0])) is not a valid key")
            }
            let at = "\(domain.name) \(JSONValue.string(key).compactText)"
            guard let json = Self.compactJSON(row.values[1]) else { throw refused("\(at): the value is not JSON") }
            guard let version = Self.integer(row.values[2]), version >= 0 else {
                throw refused("\(at): the version \(Self.quoted(row.values[2])) is not an integer of 0 or more")
            }
            guard let updatedAt = Self.integer(row.values[3]) else { throw refused("\(at): updated_at is not an integer") }
            let expiresAt = Self.integer(row.values[4])
            guard expiresAt != nil || row.values[4].isNull else { throw refused("\(at): expires_at is not an integer") }
            try insert.execute(arguments: [key, json, version, updatedAt, expiresAt])
            report.keys += 1
        }
    }

    /// Copies the meta keys prefs reads, each checked; the store id only with the sync state.
    private func copyMeta(_ backup: Database, into target: Database, report: inout RestoreReport) throws {
        for row in try Row.fetchAll(backup, sql: "SELECT key, value FROM meta ORDER BY key") {
            let name = Self.quoted(row.values[0])
            guard let text = Self.text(row.values[0]), let value = Self.text(row.values[1]) else {
                report.dropped.append("meta key \(name) (not text)")
                continue
            }
            switch StoreMeta.Key(rawValue: text) {
            case .schemaVersion, .kind, .storePath:
                continue  // the new store's own
            case .logRetain:
                guard let count = Int(value), count >= 0 else {
                    report.dropped.append("the change-log retention \(Self.quoted(row.values[1])) (not a count)")
                    continue
                }
                try StoreMeta.set(target, .logRetain, String(count))
            case .schema:
                guard let document = try? JSONValue(parsing: value), (try? Schema(parsing: document)) != nil else {
                    report.dropped.append("the schema document (it is not a valid schema)")
                    continue
                }
                try StoreMeta.set(target, .schema, document.compactText)
            case .flagFractionalVersion:
                guard let number = Int(value), FractionalVersion(rawValue: number) != nil else {
                    report.dropped.append("the fractional hashing version \(Self.quoted(row.values[1]))")
                    continue
                }
                try StoreMeta.set(target, .flagFractionalVersion, String(number))
            case .storeID, .syncSkipped:
                // The sync node's identity and counter travel with the sync state.
                guard withSources else { continue }
                let valid =
                    text == StoreMeta.Key.storeID.rawValue
                    ? value.utf8.count == 36
                        && value.utf8.allSatisfy { $0 == UInt8(ascii: "-") || ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) }
                    : Int(value).map { $0 >= 0 } ?? false
                guard valid else {
                    report.dropped.append("meta key \(name) \(Self.quoted(row.values[1]))")
                    continue
                }
                try target.execute(sql: "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", arguments: [text, value])
            case nil:
                report.dropped.append("meta key \(name) (prefs does not use it)")
            }
        }
    }

    /// Copies the change log when every record passes the checks; otherwise none of it
    /// (history that cannot be trusted is left behind whole, and the report says why). Only
    /// the newest records retention keeps (the meta keys are copied first): not those
    /// beyond it that wait for a batch prune, which `prefs log` did not show.
    private func copyLog(_ backup: Database, into target: Database, report: inout RestoreReport) throws -> Int64 {
        let insert = try target.makeStatement(
            sql: "INSERT INTO changelog (seq, at, domain, key, op, old, new, actor) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
        let rows = try Row.fetchCursor(
            backup,
            sql: """
                SELECT seq, at, domain, key, op, old, new, actor FROM changelog
                WHERE seq > (SELECT max(seq) FROM changelog) - ? ORDER BY seq
                """, arguments: [try ChangeLog.retention(target)])
        var count = 0
        var last: Int64 = 0
        var problem: String?
        while let row = try rows.next() {
            problem = Self.checkRecord(row)
            if problem != nil { break }
            let old = row.values[5].isNull ? nil : Self.compactJSON(row.values[5])
            let new = row.values[6].isNull ? nil : Self.compactJSON(row.values[6])
            try insert.execute(arguments: [
                row.values[0], row.values[1], row.values[2], row.values[3], row.values[4], old, new, row.values[7],
            ])
            last = Self.integer(row.values[0]) ?? last
            count += 1
        }
        if let problem {
            try target.execute(sql: "DELETE FROM changelog")
            report.dropped.append("the change log (\(problem))")
            return 0
        }
        report.logRecords = count
        return last
    }

    /// Why a change-log record is not one prefs writes, or nil.
    static func checkRecord(_ row: Row) -> String? {
        let values = row.values
        guard let seq = integer(values[0]), seq > 0, seq < ChangeLog.sequenceLimit else {
            return "record number \(quoted(values[0])) is out of range"
        }
        guard integer(values[1]) != nil else { return "record \(seq): its time is not an integer" }
        guard let domain = text(values[2]), let key = text(values[3]),
            (domain.isEmpty && key.isEmpty) || (Domain.isValidName(domain) && (try? KeyName.validate(key)) != nil)
        else { return "record \(seq): invalid domain or key" }
        guard let op = text(values[4]), LogOperation(rawValue: op) != nil else {
            return "record \(seq): unknown operation \(quoted(values[4]))"
        }
        for index in [5, 6] where !values[index].isNull && compactJSON(values[index]) == nil {
            return "record \(seq): a value is not JSON"
        }
        guard let actor = text(values[7]), actor.unicodeScalars.count <= SyncOperation.maximumActorLength,
            !actor.unicodeScalars.contains(where: SyncOperation.isControl)
        else { return "record \(seq): invalid actor" }
        return nil
    }

    /// Refresh sources: named in the report, restored only with `withSources`.
    private func copySources(_ backup: Database, into target: Database, report: inout RestoreReport) throws {
        let rows = try Row.fetchAll(
            backup,
            sql: """
                SELECT domain, source, headers, etag, last_modified, last_success_at, copy_at, last_failure_at, last_failure
                FROM refresh_sources ORDER BY domain
                """)
        for row in rows {
            let what = "the refresh source of domain \(Self.quoted(row.values[0])), \(Self.quoted(row.values[1]))"
            guard withSources else {
                report.dropped.append(what + " (--with-sources restores it)")
                continue
            }
            let v = row.values
            guard let name = Self.text(v[0]), Domain.isValidName(name), name != Domain.memory.name, Self.text(v[1]) != nil,
                Self.compactJSON(v[2]) != nil, [3, 4, 8].allSatisfy({ v[$0].isNull || Self.text(v[$0]) != nil }),
                [5, 6, 7].allSatisfy({ v[$0].isNull || Self.integer(v[$0]) != nil })
            else {
                report.dropped.append(what + " (not a source prefs writes)")
                continue
            }
            try target.execute(
                sql: """
                    INSERT INTO refresh_sources (domain, source, headers, etag, last_modified, last_success_at, copy_at, last_failure_at, last_failure)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """, arguments: StatementArguments(v))
            report.restored.append(what)
        }
    }

    /// The sync remote, its clock, pending operations and per-key state: named in the
    /// report, restored only with `withSources`.
    private func copySync(_ backup: Database, into target: Database, found: SchemaInventory, report: inout RestoreReport) throws {
        guard let config = try Row.fetchOne(backup, sql: "SELECT url, domains, last_remote_seq FROM sync_config WHERE id = 1") else {
            return
        }
        let hasPending = found.objects[.init(type: "table", name: "sync_pending")] != nil
        let pending = hasPending ? try Int.fetchOne(backup, sql: "SELECT count(*) FROM sync_pending") ?? 0 : 0
        let what = "the sync remote \(Self.quoted(config.values[0])) with \(pending) pending operation(s)"
        guard withSources else {
            report.dropped.append(what + " (--with-sources restores it)")
            return
        }
        let v = config.values
        let domainsValid =
            v[1].isNull
            || (Self.text(v[1])?.split(separator: ",", omittingEmptySubsequences: false).allSatisfy { Domain.isValidName(String($0)) }
                ?? false)
        guard Self.text(v[0]) != nil, domainsValid, let remoteSeq = Self.integer(v[2]), remoteSeq >= 0 else {
            report.dropped.append(what + " (not a remote prefs writes)")
            return
        }
        try target.execute(
            sql: "INSERT INTO sync_config (id, url, domains, last_remote_seq) VALUES (1, ?, ?, ?)", arguments: [v[0], v[1], v[2]])
        if let hlc = try Int64.fetchOne(backup, sql: "SELECT hlc FROM sync_clock WHERE id = 1 AND typeof(hlc) = 'integer'") {
            try target.execute(sql: "UPDATE sync_clock SET hlc = ?", arguments: [hlc])
        }
        if hasPending {
            let rows = try Row.fetchCursor(
                backup, sql: "SELECT op_id, domain, key, value, expires_at, hlc, node, actor FROM sync_pending ORDER BY seq")
            while let row = try rows.next() {
                let p = row.values
                guard Self.text(p[0]) != nil, let domain = Self.text(p[1]), Domain.isValidName(domain), let key = Self.text(p[2]),
                    (try? KeyName.validate(key)) != nil, p[3].isNull || Self.compactJSON(p[3]) != nil,
                    p[4].isNull || Self.integer(p[4]) != nil, Self.integer(p[5]) != nil, Self.text(p[6]) != nil, Self.text(p[7]) != nil
                else { throw refused("a pending sync operation is not one prefs writes") }
                let value = p[3].isNull ? nil : Self.compactJSON(p[3])
                try target.execute(
                    sql:
                        "INSERT INTO sync_pending (op_id, domain, key, value, expires_at, hlc, node, actor) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    arguments: [p[0], p[1], p[2], value, p[4], p[5], p[6], p[7]])
            }
        }
        if found.objects[.init(type: "table", name: "sync_keys")] != nil {
            let rows = try Row.fetchCursor(backup, sql: "SELECT domain, key, hlc, node FROM sync_keys")
            while let row = try rows.next() {
                let k = row.values
                guard let domain = Self.text(k[0]), Domain.isValidName(domain), let key = Self.text(k[1]),
                    (try? KeyName.validate(key)) != nil,
                    Self.integer(k[2]) != nil, Self.text(k[3]) != nil
                else { throw refused("the sync state of a key is not one prefs writes") }
                try target.execute(
                    sql: "INSERT OR REPLACE INTO sync_keys (domain, key, hlc, node) VALUES (?, ?, ?, ?)", arguments: StatementArguments(k))
            }
        }
        report.restored.append(what)
    }
}
