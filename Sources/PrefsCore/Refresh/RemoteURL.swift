/// Where a store syncs to: a libpq connection string, as `psql` takes it — a URI
/// (`postgres://USER@HOST:PORT/DB?sslmode=require`, `postgresql:///prefs?host=/run/postgresql`,
/// `postgres://h1,h2/prefs?target_session_attrs=read-write`) or `keyword=value` pairs
/// (`service=prefs`, `host=db dbname=prefs`). libpq (in the `prefs-sync` helper) reads it
/// together with the `PG*` environment variables, the service file and the password file.
/// It never holds a password: that comes from `PGPASSWORD`, `~/.pgpass` or the service file
/// when connecting, so it is never stored.
///
/// Only the password rule and the outline are checked here (`prefs` does not link libpq);
/// libpq reports anything else when `prefs sync` connects.
///
/// ```swift
/// let remote = try RemoteURL(parsing: "postgres://prefs@db.example.com:5432/prefs?sslmode=require")
/// print(remote)   // postgres://prefs@db.example.com:5432/prefs?sslmode=require
/// ```
public struct RemoteURL: Sendable, Equatable, CustomStringConvertible {
    /// The connection string, as given (surrounding white space removed).
    public var text: String

    /// Parses a libpq connection URI (`postgres://` or `postgresql://`) or a
    /// `keyword=value` connection string.
    ///
    /// - Throws: `PrefsError` of kind `usage` when the text is neither, names a password
    ///   (`USER:PASSWORD@` or a `password` parameter), or has a bad port. The message never
    ///   repeats the text, so a password typed by mistake is not echoed.
    public init(parsing text: String) throws {
        let trimmed = text.trimmingWhitespaceAndNewlines()
        let lowered = trimmed.lowercased()
        if let scheme = ["postgres://", "postgresql://"].first(where: { lowered.hasPrefix($0) }) {
            try Self.checkURI(Substring(trimmed.dropFirst(scheme.count)))
        } else if trimmed.contains("=") && !trimmed.contains("://") {
            for keyword in try Self.keywords(trimmed) {
                if keyword == "password" { throw Self.passwordRefused }
                if keyword.isEmpty { throw PrefsError(.usage, "remote: a connection string keyword is empty") }
            }
        } else {
            throw PrefsError(
                .usage,
                "remote must be a postgres:// URI (postgres://USER@HOST:PORT/DB) or a libpq connection string (service=NAME, host=H dbname=D)"
            )
        }
        self.text = trimmed
    }

    private static let passwordRefused = PrefsError(
        .usage, "remote URL must not contain a password: use PGPASSWORD, ~/.pgpass or a service file (it is never stored)")

    /// `[USER@]HOST[:PORT][,HOST[:PORT]...][/DB][?KEY=VALUE&...]`.
    private static func checkURI(_ rest: Substring) throws {
        var rest = rest
        var query: Substring = ""
        if let mark = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
        }
        var authority = rest
        if let slash = rest.firstIndex(of: "/") { authority = rest[..<slash] }
        var hosts = authority
        if let at = authority.lastIndex(of: "@") {
            if authority[..<at].contains(":") { throw passwordRefused }
            hosts = authority[authority.index(after: at)...]
        }
        for host in hosts.split(separator: ",", omittingEmptySubsequences: false) {
            var port: Substring?
            if host.hasPrefix("[") {
                guard let close = host.firstIndex(of: "]") else { throw PrefsError(.usage, "remote URL: unclosed [ in the host") }
                let after = host[host.index(after: close)...]
                if after.hasPrefix(":") {
                    port = after.dropFirst()
                } else if !after.isEmpty {
                    throw PrefsError(.usage, "remote URL: bad host")
                }
            } else if let colon = host.lastIndex(of: ":") {
                port = host[host.index(after: colon)...]
            }
            if let port, !port.isEmpty {
                guard let value = Int(port), (1...65535).contains(value) else { throw PrefsError(.usage, "remote URL: bad port") }
            }
        }
        for parameter in query.split(separator: "&") where !parameter.isEmpty {
            let name = parameter.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)[0]
            if (name.percentDecoded ?? String(name)) == "password" { throw passwordRefused }
        }
    }

    /// The keywords of `keyword = value` pairs (values bare or single-quoted with `\` escapes).
    private static func keywords(_ text: String) throws -> [String] {
        var keywords: [String] = []
        let scalars = Array(text.unicodeScalars)
        var index = 0
        func skipSpace() { while index < scalars.count, scalars[index].properties.isWhitespace { index += 1 } }
        while true {
            skipSpace()
            if index == scalars.count { break }
            var keyword = ""
            while index < scalars.count, scalars[index] != "=", !scalars[index].properties.isWhitespace {
                keyword.unicodeScalars.append(scalars[index])
                index += 1
            }
            skipSpace()
            guard index < scalars.count, scalars[index] == "=" else {
                throw PrefsError(.usage, "remote: a connection string is keyword=value pairs (missing = after a keyword)")
            }
            index += 1
            skipSpace()
            if index < scalars.count, scalars[index] == "'" {
                index += 1
                var closed = false
                while index < scalars.count {
                    if scalars[index] == "\\" {
                        index += 2
                        continue
                    }
                    if scalars[index] == "'" {
                        closed = true
                        index += 1
                        break
                    }
                    index += 1
                }
                if !closed { throw PrefsError(.usage, "remote: unterminated quoted value in the connection string") }
            } else {
                while index < scalars.count, !scalars[index].properties.isWhitespace {
                    index += scalars[index] == "\\" ? 2 : 1
                }
            }
            keywords.append(keyword)
        }
        return keywords
    }

    /// The connection string as stored and shown by `prefs remote show`.
    public var description: String { text }
}
