import FoundationEssentials

/// What `prefs` hands a helper it execs (`prefs-serve`, `prefs-sync`): the command's parsed
/// options as one JSON object in the helper's environment (``variable``), never on its command
/// line, so an option is declared once (ArgumentParser in `prefs`) and the helper cannot drift
/// from it. Members are the options' long names in snake case (`max_body` for `--max-body`);
/// `prefs` fills the configuration with ``encoded()``, the helper reads it with
/// ``init(decoding:)``. The target is Foundation-only: `prefs` links it without NIO or libpq.
public protocol HelperConfiguration: Codable, Equatable, Sendable {}

extension HelperConfiguration {
    /// The environment variable that carries the configuration.
    public static var variable: String { "PREFS_HELPER_CONFIGURATION" }

    /// Set (to anything) in the environment: the helper prints the configuration it decoded,
    /// as ``encoded()`` writes it, and exits 0 (tests check that every option arrives).
    public static var dumpVariable: String { "PREFS_HELPER_DUMP_CONFIGURATION" }

    /// The configuration as one line of JSON, members sorted.
    public func encoded() throws -> String {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }

    /// Reads what ``encoded()`` wrote.
    public init(decoding text: String) throws {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        self = try decoder.decode(Self.self, from: Data(text.utf8))
    }
}
