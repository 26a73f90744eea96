import PrefsBase
import PrefsJSON

/// One problem `prefs flag lint` found in a flagd document.
public struct FlagLintFinding: Sendable, Equatable {
    /// How bad it is.
    public enum Severity: String, Sendable, Comparable {
        /// The document is invalid or a flag answers an error for some contexts: exit 1.
        case error
        /// Probably a mistake: a variant no context can get, an unused evaluator.
        case warning

        public static func < (lhs: Severity, rhs: Severity) -> Bool { lhs == .error && rhs == .warning }
    }

    /// Error or warning.
    public var severity: Severity
    /// A short stable name for the check (`unknown-variant`, `unreachable-variant`, …).
    public var check: String
    /// What is wrong, in words.
    public var message: String
    /// The JSON path of the value concerned (`$.flags.f.targeting.if[1]`).
    public var path: String
    /// Its 1-based line in the file, when known.
    public var line: Int?
    /// Its 1-based column (in bytes), when known.
    public var column: Int?

    /// Creates a finding.
    public init(_ severity: Severity, _ check: String, _ message: String, path: String, line: Int? = nil, column: Int? = nil) {
        self.severity = severity
        self.check = check
        self.message = message
        self.path = path
        self.line = line
        self.column = column
    }

    /// The finding as a JSON object: `severity`, `check`, `message`, `path`, `line`, `column`.
    public var json: JSONValue {
        .object([
            .init("severity", .string(severity.rawValue)), .init("check", .string(check)), .init("message", .string(message)),
            .init("path", .string(path)), .init("line", line.map { .number(String($0)) } ?? .null),
            .init("column", column.map { .number(String($0)) } ?? .null),
        ])
    }
}
