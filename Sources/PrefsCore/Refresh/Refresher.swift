import FoundationEssentials
import Glibc

/// One HTTP GET for `refresh`: implemented with libcurl by the `PrefsRemote` library and by
/// the `prefs-http-get` helper the CLI runs, so the core and the `prefs` binary do not load an
/// HTTP stack (it would double the start-up cost of every `prefs get`).
public protocol HTTPFetcher: Sendable {
    /// Fetches `url`. Returns the status, the ETag and Last-Modified headers and the body.
    ///
    /// - Throws: `PrefsError` of kind `unreachable` naming the cause (timed out, connection
    ///   refused, host not found, …).
    func get(_ url: String, timeout: Duration, headers: [String: String]) async throws -> HTTPResponse
}

/// The parts of an HTTP response `refresh` uses.
public struct HTTPResponse: Sendable, Equatable {
    /// The status code.
    public var status: Int
    /// The ETag header.
    public var etag: String?
    /// The Last-Modified header.
    public var lastModified: String?
    /// The body.
    public var body: [UInt8]

    /// Creates a response.
    public init(status: Int, etag: String?, lastModified: String?, body: [UInt8]) {
        self.status = status
        self.etag = etag
        self.lastModified = lastModified
        self.body = body
    }
}

/// What `refresh` did.
public struct RefreshResult: Sendable, Equatable {
    /// What happened.
    public enum Outcome: String, Sendable {
        /// A new copy replaced the domain.
        case updated
        /// The server answered 304 Not Modified: the copy is current.
        case notModified
        /// The copy was younger than `maxAge`: nothing was fetched.
        case fresh
    }

    /// What happened.
    public var outcome: Outcome
    /// How many keys the domain holds now.
    public var keys: Int
}

/// The remembered source of a server-fed domain and how its last refreshes went.
public struct RefreshStatus: Sendable, Equatable {
    /// The domain.
    public var domain: Domain
    /// The URL or file.
    public var source: String
    /// When the last refresh succeeded (milliseconds since 1970).
    public var lastSuccessAt: Int64?
    /// When the copy in use was fetched (milliseconds since 1970).
    public var copyAt: Int64?
    /// When the last refresh failed.
    public var lastFailureAt: Int64?
    /// Why it failed.
    public var lastFailure: String?

    /// The status as one compact JSON object.
    public var json: String {
        func time(_ value: Int64?) -> JSONValue { value.map { .string(ISOTime.format(milliseconds: $0)) } ?? .null }
        return JSONValue.object([
            .init("domain", .string(domain.name)), .init("source", .string(source)), .init("lastSuccess", time(lastSuccessAt)),
            .init("lastFailure", time(lastFailureAt)), .init("lastFailureCause", lastFailure.map(JSONValue.string) ?? .null),
            .init("copyAgeSeconds", copyAt.map { .number(String(max(0, WallClock.nowMilliseconds() - $0) / 1000)) } ?? .null),
        ]).compactText
    }
}

/// Refreshing server-fed domains: replacing a domain's content with a document fetched from a
/// URL or read from a file, keeping the last good copy when anything fails, and the remembered
/// sources with how their refreshes went. Held apart from ``KeyValueStack`` (as GRDB keeps
/// `DatabaseMigrator` apart from `DatabaseQueue`): an app that only reads the refreshed keys
/// reads them from the stack.
///
/// ```swift
/// let sources = try Refresher(stack).status()   // or stack.refresher.status()
/// ```
public struct Refresher: Sendable {
    /// The stack whose domains are refreshed.
    public let stack: KeyValueStack

    /// The refresher of `stack`'s domains.
    public init(_ stack: KeyValueStack) {
        self.stack = stack
    }

    /// Refreshes a server-fed domain from a URL (http, https) or a file, keeping the last good
    /// copy when anything fails.
    ///
    /// The document — an object of key → value, or for `switch` also a flagd document — is
    /// validated completely (JSON, keys, the schema, flagd rules) before anything changes;
    /// then the domain's content is replaced in one transaction (logged as `refresh`). The
    /// ETag/Last-Modified of the last good copy are sent back; a 304 changes nothing. The
    /// source is remembered: pass nil to reuse it.
    ///
    /// ```swift
    /// try await stack.refresher.refresh(.dynamic, from: "https://config.example.com/app.json")
    /// ```
    /// - Parameters:
    ///   - headers: request headers, remembered with the source (the store is private to
    ///     its owner, mode 0600); empty: the remembered ones when the source is the same.
    ///   - unrememberedHeaders: request headers sent this time only and never stored (for
    ///     secrets kept elsewhere); they override `headers` of the same name.
    ///   - maxAge: do nothing when the copy was fetched less than this long ago.
    ///   - domain: the domain to replace (dynamic, switch or a custom one).
    ///   - source: a URL or a file path; nil reuses the remembered source.
    ///   - timeout: how long the whole refresh may take: the fetch, checking the document and
    ///     replacing the domain (past it, the domain keeps its copy).
    /// - Throws: `PrefsError`: `unreachable` (with the cause and the age of the copy in use)
    ///   when fetching or validating fails — the domain keeps its copy; `usage` when no
    ///   source is given or remembered, or when the URL holds a password (it would be stored
    ///   and shown; the message does not repeat it).
    /// - Parameter http: fetches http(s) sources; without one, only files can be refreshed
    ///   (`import PrefsRemote` for `CurlFetcher`).
    @discardableResult
    public func refresh(
        _ domain: Domain, from source: String? = nil, timeout: Duration = .seconds(5), headers: [String: String] = [:],
        unrememberedHeaders: [String: String] = [:], maxAge: Duration? = nil, http: (any HTTPFetcher)? = nil
    ) async throws -> RefreshResult {
        guard domain.isPersistent else { throw PrefsError(.usage, "the memory domain cannot be refreshed") }
        let deadline = RefreshDeadline(timeout)
        let remembered = try refreshRecord(domain)
        guard var source = source ?? remembered?.source else {
            throw PrefsError(.usage, "no source for \(domain.name): give --from URL|FILE the first time")
        }
        if !Self.isHTTP(source) && !source.lowercased().hasPrefix("file://") {
            source = StoreLocation.absolutePath(source)  // remembered: must not depend on the current directory
        }
        if Self.isHTTP(source) && Self.userInfo(of: source)?.contains(":") == true {
            throw PrefsError(
                .usage,
                "a refresh URL must not contain a password (it would be stored and shown): give --from again without it and send "
                    + "credentials in a header (--header-file FILE or PREFS_REFRESH_HEADER_AUTHORIZATION)")
        }
        let sameSource = remembered?.source == source
        let headers = headers.isEmpty && sameSource ? (remembered?.headers ?? [:]) : headers
        let requestHeaders = headers.merging(unrememberedHeaders) { $1 }
        if let maxAge, sameSource, let confirmed = remembered?.lastSuccessAt {
            let ageMilliseconds = WallClock.nowMilliseconds() - confirmed
            let limit = maxAge.components.seconds * 1000 + maxAge.components.attoseconds / 1_000_000_000_000_000
            if ageMilliseconds < limit { return RefreshResult(outcome: .fresh, keys: try stack.entries(in: domain).count) }
        }
        let fetched: Fetched
        do {
            fetched = try await Self.fetch(
                source, timeout: timeout, headers: requestHeaders, etag: sameSource ? remembered?.etag : nil,
                lastModified: sameSource ? remembered?.lastModified : nil, http: http)
        } catch let error as PrefsError {
            throw try refreshFailed(domain, source: source, headers: headers, cause: error.message, remembered: remembered)
        }
        guard let body = fetched.body else {
            guard sameSource, remembered?.lastSuccessAt != nil else {
                throw try refreshFailed(
                    domain, source: source, headers: headers, cause: "304 Not Modified without a copy to keep", remembered: remembered)
            }
            try recordRefresh(
                domain, source: source, headers: headers, etag: remembered?.etag, lastModified: remembered?.lastModified, changed: false)
            return RefreshResult(outcome: .notModified, keys: try stack.entries(in: domain).count)
        }
        let members: [JSONValue.Member]
        do {
            try deadline.check("before checking the document")
            members = try validateRefreshDocument(domain, body, deadline: deadline)
        } catch let error as PrefsError {
            let cause = error.kind == .unreachable ? error.message : "invalid document: \(error.message)"
            throw try refreshFailed(domain, source: source, headers: headers, cause: cause, remembered: remembered)
        }
        do {
            try stack.flushSynchronously()
            // The content and the validators it came with commit together, before the deadline
            // or not at all.
            try replaceDomain(domain, with: members) { db in
                try deadline.check("while replacing the domain")
                try self.recordRefresh(
                    db, domain, source: source, headers: headers, etag: fetched.etag, lastModified: fetched.lastModified, changed: true)
            }
        } catch let error as PrefsError where error.kind == .unreachable {
            throw try refreshFailed(domain, source: source, headers: headers, cause: error.message, remembered: remembered)
        }
        return RefreshResult(outcome: .updated, keys: members.count)
    }

    /// Every remembered source with its last success and failure.
    ///
    /// - Throws: `PrefsError` of kind `storeUnreadable`.
    public func status() throws -> [RefreshStatus] {
        try stack.main.read { db in
            try Row.fetchAll(
                db,
                sql:
                    "SELECT domain, source, last_success_at, copy_at, last_failure_at, last_failure FROM refresh_sources ORDER BY domain"
            ).compactMap { row in
                guard let domain = try? Domain(row[0] as String) else { return nil }
                return try RefreshStatus(
                    domain: domain, source: Self.redactingPassword(row[1]), lastSuccessAt: row[2], copyAt: row[3],
                    lastFailureAt: row[4], lastFailure: row[5])
            }
        } ?? []
    }

    // MARK: - Parts

    struct RefreshRecord {
        var source: String
        var headers: [String: String]
        var etag: String?
        var lastModified: String?
        var lastSuccessAt: Int64?
        var copyAt: Int64?
    }

    struct Fetched: Sendable {
        /// nil for 304 Not Modified.
        var body: [UInt8]?
        var etag: String?
        var lastModified: String?
    }

    func refreshRecord(_ domain: Domain) throws -> RefreshRecord? {
        try stack.main.read { db in
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: "SELECT source, headers, etag, last_modified, last_success_at, copy_at FROM refresh_sources WHERE domain = ?",
                    arguments: [domain.name])
            else { return nil }
            var headers: [String: String] = [:]
            if let members = (try? JSONValue(parsing: row[1] as String))?.objectMembers {
                for member in members { headers[member.key] = member.value.stringValue }
            }
            return try RefreshRecord(
                source: row[0], headers: headers, etag: row[2], lastModified: row[3], lastSuccessAt: row[4], copyAt: row[5])
        } ?? nil
    }

    private func headersJSON(_ headers: [String: String]) -> String {
        JSONValue.object(headers.keys.sorted().map { JSONValue.Member($0, .string(headers[$0] ?? "")) }).compactText
    }

    private func recordRefresh(
        _ domain: Domain, source: String, headers: [String: String], etag: String?, lastModified: String?, changed: Bool
    ) throws {
        try stack.main.write { db in
            try recordRefresh(db, domain, source: source, headers: headers, etag: etag, lastModified: lastModified, changed: changed)
        }
    }

    /// Records a success; a 304 confirms the copy, so its age starts again too.
    private func recordRefresh(
        _ db: Database, _ domain: Domain, source: String, headers: [String: String], etag: String?, lastModified: String?, changed: Bool
    ) throws {
        try db.execute(
            sql: """
                INSERT INTO refresh_sources (domain, source, headers, etag, last_modified, last_success_at, copy_at)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6)
                ON CONFLICT (domain) DO UPDATE SET source = ?2, headers = ?3, etag = ?4, last_modified = ?5,
                    last_success_at = ?6, copy_at = ?6
                """, arguments: [domain.name, source, headersJSON(headers), etag, lastModified, WallClock.nowMilliseconds()])
    }

    /// Records a failure and returns the error to throw (exit 7), naming the copy in use.
    private func refreshFailed(
        _ domain: Domain, source: String, headers: [String: String], cause: String, remembered: RefreshRecord?
    ) throws -> PrefsError {
        let now = WallClock.nowMilliseconds()
        // The failure is reported either way; a store that cannot record it still serves reads.
        _ = try? stack.main.write { db in
            try db.execute(
                sql: """
                    INSERT INTO refresh_sources (domain, source, headers, last_failure_at, last_failure) VALUES (?1, ?2, ?3, ?4, ?5)
                    ON CONFLICT (domain) DO UPDATE SET last_failure_at = ?4, last_failure = ?5,
                        source = CASE WHEN last_success_at IS NULL THEN ?2 ELSE source END
                    """, arguments: [domain.name, source, headersJSON(headers), now, source + ": " + cause])
        }
        let copy: String
        if let copyAt = remembered?.copyAt ?? remembered?.lastSuccessAt {
            copy = "using the copy from \(Self.describeAge(now - copyAt)) ago"
        } else {
            copy = "no copy fetched yet"
        }
        return PrefsError(.unreachable, "refresh of \(domain.name) from \(source) failed: \(cause); \(copy)")
    }

    static func describeAge(_ milliseconds: Int64) -> String {
        let seconds = max(0, milliseconds / 1000)
        if seconds < 120 { return "\(seconds)s" }
        if seconds < 7200 { return "\(seconds / 60)m" }
        if seconds < 172_800 { return "\(seconds / 3600)h" }
        return "\(seconds / 86400)d"
    }

    /// Checks a fetched document and returns the domain's new content.
    ///
    /// - Throws: ``PrefsError`` of kind `invalidValue` for the first problem, or `unreachable`
    ///   when `deadline` passes first.
    func validateRefreshDocument(_ domain: Domain, _ body: [UInt8], deadline: RefreshDeadline = .none) throws -> [JSONValue.Member] {
        let document = try JSONValue(parsingUTF8: body, wrappingLevels: 4)
        let members: [JSONValue.Member]
        if domain == .switch, document["flags"] != nil {
            members = try FlagDocument.validate(document)
        } else {
            guard let object = document.objectMembers else {
                throw PrefsError(.invalidValue, "$: expected an object of key → value, got \(document.typeName)")
            }
            if domain == .switch { try FlagDocument.checkEntries(object) }
            members = object
        }
        let schema = stack.validatesWrites ? try stack.schema() : Schema()
        try deadline.check("while checking the document")
        for member in members {
            try deadline.check("while checking the document")
            do {
                try KeyName.validate(member.key)
            } catch let error as PrefsError {
                throw PrefsError(.invalidValue, "$\(JSONPath.member(member.key)): \(error.message)")
            }
            // The document was parsed allowing a flagd document's own levels: a value stored
            // must still parse on its own (`get` would find it "not valid JSON").
            if Self.isNested(member.value, deeperThan: JSONParser.maximumDepth) {
                throw PrefsError(
                    .invalidValue, "$\(JSONPath.member(member.key)): a value nested deeper than \(JSONParser.maximumDepth) levels")
            }
            if stack.validatesWrites { try schema.validate(member.value, in: domain, forKey: member.key) }
        }
        return members
    }

    /// Whether `value` nests arrays and objects more than `levels` deep (the recursion is no
    /// deeper than the parser's own).
    static func isNested(_ value: JSONValue, deeperThan levels: Int) -> Bool {
        switch value {
        case .array(let items): levels == 0 || items.contains { isNested($0, deeperThan: levels - 1) }
        case .object(let members): levels == 0 || members.contains { isNested($0.value, deeperThan: levels - 1) }
        default: false
        }
    }

    /// Replaces a domain's content in one transaction, logged as `refresh`.
    func replaceDomain(_ domain: Domain, with members: [JSONValue.Member], also: ((Database) throws -> Void)? = nil) throws {
        let database = stack.main
        let events = try WriteTransaction.run(on: database, op: .refresh) { transaction in
            let db = transaction.db
            let now = WallClock.nowMilliseconds()
            if try !DomainTable.mayExist(db, domain) { try DomainTable.create(db, domain) }
            var current: [BytewiseString: String] = [:]
            try DomainTable(domain).forEach(db, prefix: nil, now: now) { entry in
                // A local expiry is not the server's: such keys are rewritten without it.
                current[BytewiseString(entry.key)] = entry.expiresAt == nil ? entry.json : "\u{0}expiring"
            }
            var changes: [(PendingKey, PendingChange)] = []
            var incoming = Set<BytewiseString>()
            for member in members {
                let json = member.value.compactText
                incoming.insert(BytewiseString(member.key))
                if let old = current[BytewiseString(member.key)], BytewiseString.equal(old, json) { continue }
                changes.append((PendingKey(domain: domain, key: member.key), .set(json, expiresAt: nil)))
            }
            for key in current.keys where !incoming.contains(key) {
                changes.append((PendingKey(domain: domain, key: key.value), .remove))
            }
            let events = try ChangeApplier(transaction).apply(changes, op: .refresh, requireExisting: false).events
            try also?(db)
            return events.map { ChangeEvent(kind: .refresh, domain: $0.domain, key: $0.key, json: $0.json, oldJSON: $0.oldJSON) }
        }
        stack.observers.deliver(events)
    }

    static func fetch(
        _ source: String, timeout: Duration, headers: [String: String], etag: String?, lastModified: String?, http: (any HTTPFetcher)?
    ) async throws -> Fetched {
        if isHTTP(source) {
            guard let http else { throw PrefsError(.unreachable, "no HTTP client available") }
            var headers = headers
            if let etag { headers["If-None-Match"] = etag }
            if let lastModified { headers["If-Modified-Since"] = lastModified }
            let response = try await http.get(source, timeout: timeout, headers: headers)
            if response.status == 304 { return Fetched(body: nil, etag: etag, lastModified: lastModified) }
            guard (200..<300).contains(response.status) else { throw PrefsError(.unreachable, "HTTP status \(response.status)") }
            guard response.body.count <= maximumDocumentSize else {
                throw PrefsError(.unreachable, "the document is larger than \(maximumDocumentSize / 1_048_576) MiB")
            }
            return Fetched(body: response.body, etag: response.etag, lastModified: response.lastModified)
        }
        let path = source.lowercased().hasPrefix("file://") ? String(source.dropFirst("file://".count)) : source
        if let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int, size > maximumDocumentSize {
            throw PrefsError(.unreachable, "\(path) is larger than \(maximumDocumentSize / 1_048_576) MiB")
        }
        guard let data = FileManager.default.contents(atPath: path) else { throw PrefsError(.unreachable, "cannot read \(path)") }
        return Fetched(body: Array(data), etag: nil, lastModified: nil)
    }

    /// The largest document `refresh` accepts.
    public static let maximumDocumentSize = 64 * 1_048_576

    /// The user information (`user` or `user:password`) of an http(s) URL, if it has one.
    static func userInfo(of url: String) -> Substring? {
        guard let schemeEnd = url.firstRange(of: "://") else { return nil }
        let rest = url[schemeEnd.upperBound...]
        let authority = rest[..<(rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex)]
        guard let at = authority.lastIndex(of: "@") else { return nil }
        return authority[..<at]
    }

    /// The URL with the password of its user information, if any, replaced by `***`
    /// (sources remembered by older versions may hold one).
    public static func redactingPassword(_ url: String) -> String {
        guard isHTTP(url), let info = userInfo(of: url), let colon = info.firstIndex(of: ":") else { return url }
        var redacted = url
        redacted.replaceSubrange(info.index(after: colon)..<info.endIndex, with: "***")
        return redacted
    }

    static func isHTTP(_ source: String) -> Bool {
        let lowered = source.lowercased()
        return lowered.hasPrefix("http://") || lowered.hasPrefix("https://")
    }
}

extension KeyValueStack {
    /// The refresher of this stack's server-fed domains (``Refresher``).
    ///
    /// ```swift
    /// try await stack.refresher.refresh(.dynamic, from: "/etc/app/dynamic.json")
    /// ```
    public var refresher: Refresher { Refresher(self) }
}
