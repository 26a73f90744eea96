import Foundation

/// Finds the password for a connection the way libpq does: `PGPASSWORD`, else the first
/// matching line of the password file (`PGPASSFILE`, else `~/.pgpass`). Passwords are only
/// ever read here, at connect time; they are never stored or printed.
///
/// A password file line is `hostname:port:database:username:password`; `*` matches
/// anything in the first four fields, `\:` and `\\` stand for `:` and `\`, and lines
/// starting with `#` are comments. A file that its group or others can read is ignored
/// (libpq warns the same way).
///
/// ```swift
/// let found = PasswordFile.lookup(host: "db", port: 5432, database: "prefs", user: "prefs",
///                                 environment: ProcessInfo.processInfo.environment)
/// ```
public enum PasswordFile {
    /// What the lookup found.
    public struct Result: Sendable, Equatable {
        /// The password, or nil when none applies.
        public var password: String?
        /// Why a password file was skipped, if it was (for an error message).
        public var note: String?
    }

    /// The password for a connection, from the environment or the password file.
    public static func lookup(host: String, port: Int, database: String, user: String, environment: [String: String]) -> Result {
        // As libpq: an empty PGPASSWORD counts as unset.
        if let password = environment["PGPASSWORD"], !password.isEmpty { return Result(password: password, note: nil) }
        let path: String
        if let file = environment["PGPASSFILE"], !file.isEmpty {
            path = file
        } else if let home = environment["HOME"], !home.isEmpty {
            path = home + "/.pgpass"
        } else {
            return Result(password: nil, note: nil)
        }
        var info = stat()
        guard stat(path, &info) == 0 else { return Result(password: nil, note: nil) }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            return Result(password: nil, note: "password file \(path) is not a plain file")
        }
        if info.st_mode & (S_IRWXG | S_IRWXO) != 0 {
            return Result(
                password: nil, note: "password file \(path) ignored: group or others can read it (chmod 0600)")
        }
        guard let data = FileManager.default.contents(atPath: path) else { return Result(password: nil, note: nil) }
        let text = String(decoding: data, as: UTF8.self)
        let wanted = [host, String(port), database, user]
        for line in text.split(omittingEmptySubsequences: true, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            if line.hasPrefix("#") { continue }
            let fields = split(line)
            guard fields.count == 5 else { continue }
            if zip(fields.prefix(4), wanted).allSatisfy({ $0.0 == "*" || $0.0 == $0.1 }) {
                return Result(password: fields[4], note: nil)
            }
        }
        return Result(password: nil, note: nil)
    }

    /// Splits a line at unescaped colons and removes the escapes. The fifth field keeps
    /// everything after the fourth colon, as libpq does.
    static func split(_ line: Substring) -> [String] {
        var fields: [String] = []
        var current = ""
        var escaped = false
        for character in line.hasSuffix("\r") ? line.dropLast() : line {
            if escaped {
                current.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == ":" && fields.count < 4 {
                fields.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        fields.append(current)
        return fields
    }
}
