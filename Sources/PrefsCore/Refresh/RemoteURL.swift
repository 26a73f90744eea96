import Foundation

/// Where a store syncs to: a PostgreSQL server, database and user, written
/// `postgres://USER@HOST:PORT/DB`. It never holds a password: that comes from `PGPASSWORD`
/// or `~/.pgpass` when connecting, so it is never stored.
///
/// ```swift
/// let remote = try RemoteURL(parsing: "postgres://prefs@db.example.com:5432/prefs?sslmode=require")
/// print(remote)   // postgres://prefs@db.example.com:5432/prefs?sslmode=require
/// ```
public struct RemoteURL: Sendable, Equatable, CustomStringConvertible {
    /// How the connection uses TLS (libpq's `sslmode` values that apply).
    public enum TLSMode: String, Sendable, CaseIterable {
        /// Plain TCP.
        case disable
        /// TLS when the server offers it, else plain; the certificate is not checked (the default).
        case prefer
        /// TLS or fail; the certificate is not checked.
        case require
        /// TLS with the certificate checked against the system's roots and the host name.
        case verifyFull = "verify-full"
    }

    /// The PostgreSQL role.
    public var user: String
    /// A host name or IP address (IPv6 without brackets).
    public var host: String
    /// The TCP port (default 5432).
    public var port: Int
    /// The database (default: the user name).
    public var database: String
    /// The TLS mode (`?sslmode=`, default ``TLSMode/prefer``).
    public var tls: TLSMode

    /// Parses `postgres://USER@HOST[:PORT][/DB][?sslmode=MODE]` (also `postgresql://`).
    ///
    /// - Throws: ``PrefsError`` of kind `usage` when the text is not such a URL, names a
    ///   password, or has an unknown parameter. The message never repeats the text after
    ///   the user name, so a password typed by mistake is not echoed.
    public init(parsing text: String) throws {
        let lowered = text.lowercased()
        guard let schemeEnd = ["postgres://", "postgresql://"].first(where: { lowered.hasPrefix($0) }) else {
            throw PrefsError(.usage, "remote URL must start with postgres:// (postgres://USER@HOST:PORT/DB)")
        }
        var rest = Substring(text.dropFirst(schemeEnd.count))
        var query: Substring = ""
        if let mark = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
        }
        guard let at = rest.lastIndex(of: "@") else {
            throw PrefsError(.usage, "remote URL needs a user: postgres://USER@HOST:PORT/DB")
        }
        let userInfo = rest[..<at]
        if userInfo.contains(":") {
            throw PrefsError(.usage, "remote URL must not contain a password: use PGPASSWORD or ~/.pgpass (it is never stored)")
        }
        var hostPart = rest[rest.index(after: at)...]
        var databasePart: Substring = ""
        if let slash = hostPart.firstIndex(of: "/") {
            databasePart = hostPart[hostPart.index(after: slash)...]
            hostPart = hostPart[..<slash]
        }
        var host: Substring
        var portText: Substring?
        if hostPart.hasPrefix("[") {
            guard let close = hostPart.firstIndex(of: "]") else { throw PrefsError(.usage, "remote URL: unclosed [ in the host") }
            host = hostPart[hostPart.index(after: hostPart.startIndex)..<close]
            let after = hostPart[hostPart.index(after: close)...]
            if after.hasPrefix(":") {
                portText = after.dropFirst()
            } else if !after.isEmpty {
                throw PrefsError(.usage, "remote URL: bad host")
            }
        } else if let colon = hostPart.lastIndex(of: ":") {
            host = hostPart[..<colon]
            portText = hostPart[hostPart.index(after: colon)...]
        } else {
            host = hostPart
        }
        guard let user = Self.decode(userInfo), !user.isEmpty else { throw PrefsError(.usage, "remote URL needs a user") }
        guard let hostName = Self.decode(host), !hostName.isEmpty else {
            throw PrefsError(.usage, "remote URL needs a host: postgres://USER@HOST:PORT/DB")
        }
        var port = 5432
        if let portText {
            guard let value = Int(portText), (1...65535).contains(value) else { throw PrefsError(.usage, "remote URL: bad port") }
            port = value
        }
        guard let database = Self.decode(databasePart), !database.contains("/") else {
            throw PrefsError(.usage, "remote URL: bad database name")
        }
        var tls = TLSMode.prefer
        for parameter in query.split(separator: "&") where !parameter.isEmpty {
            let parts = parameter.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, parts[0] == "sslmode" else {
                // The text is not echoed: it may be a password typed in the wrong place.
                throw PrefsError(.usage, "remote URL: unknown parameter (only sslmode=MODE is accepted)")
            }
            guard let mode = TLSMode(rawValue: String(parts[1])) else {
                throw PrefsError(.usage, "remote URL: sslmode must be disable, prefer, require or verify-full")
            }
            tls = mode
        }
        self.user = user
        self.host = hostName
        self.port = port
        self.database = database.isEmpty ? user : database
        self.tls = tls
    }

    private static func decode(_ part: Substring) -> String? {
        String(part).removingPercentEncoding
    }

    /// The URL in canonical form (what `prefs remote show` prints and the store keeps).
    public var description: String {
        let allowed = CharacterSet.urlUserAllowed.subtracting(CharacterSet(charactersIn: ":@/?#[]"))
        let user = self.user.addingPercentEncoding(withAllowedCharacters: allowed) ?? self.user
        let host =
            self.host.contains(":") ? "[\(self.host)]" : (self.host.addingPercentEncoding(withAllowedCharacters: allowed) ?? self.host)
        let database = self.database.addingPercentEncoding(withAllowedCharacters: allowed) ?? self.database
        return "postgres://\(user)@\(host):\(port)/\(database)" + (tls == .prefer ? "" : "?sslmode=\(tls.rawValue)")
    }
}
