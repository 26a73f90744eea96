import ArgumentParser
import Dispatch
import FoundationEssentials
import Glibc
import PrefsCore
import Synchronization

/// Request headers for `refresh` from the command line, files and the environment. The
/// messages never repeat a header's value (it may be a secret).
enum RequestHeaders {
    /// The prefix of environment variables that carry headers: `PREFS_REFRESH_HEADER_X_API_KEY`
    /// sends `X-API-KEY`.
    static let environmentPrefix = "PREFS_REFRESH_HEADER_"

    static func add(line: String, from origin: String, into headers: inout [String: String]) throws {
        guard let colon = line.firstIndex(of: ":") else { throw PrefsError(.usage, "\(origin): expected 'Name: value'") }
        let name = line[..<colon].trimmingWhitespace()
        let value = line[line.index(after: colon)...].trimmingWhitespace()
        try set(name, value, from: origin, into: &headers)
    }

    static func set(_ name: String, _ value: String, from origin: String, into headers: inout [String: String]) throws {
        let token = Set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".utf8)
        guard !name.isEmpty, name.utf8.allSatisfy({ token.contains($0) }) else {
            throw PrefsError(.usage, "\(origin): not a valid header name")
        }
        guard value.unicodeScalars.allSatisfy({ $0 == "\t" || ($0.value >= 0x20 && $0.value != 0x7F) }) else {
            throw PrefsError(.usage, "\(origin): header \(name) has a control character in its value")
        }
        headers[name] = value
    }

    /// Reads `Name: value` lines; blank lines and lines starting with # are skipped.
    static func read(file path: String, into headers: inout [String: String]) throws {
        let fd: Int32
        do {
            fd = try FileIO.openForReading(path)
        } catch {
            throw PrefsError(.usage, "cannot read header file \(path): \(error.message)")
        }
        defer { FileIO.close(fd) }
        let data = (try? FileIO.read(fd, upTo: 65_537)) ?? []
        guard data.count <= 65_536 else { throw PrefsError(.usage, "header file \(path) is larger than 64 KiB") }
        // Split on bytes: as Characters, "\r\n" is one and would not split at "\n".
        for (number, raw) in data.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() {
            let line = String(decoding: raw.last == 0x0D ? raw.dropLast() : raw, as: UTF8.self)
            let trimmed = line.trimmingWhitespace()
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            try add(line: trimmed, from: "\(path) line \(number + 1)", into: &headers)
        }
    }

    /// Headers from `PREFS_REFRESH_HEADER_<NAME>` variables, `_` in NAME read as `-`.
    static func fromEnvironment(_ environment: [String: String]) throws -> [String: String] {
        var headers: [String: String] = [:]
        for (variable, value) in environment where variable.hasPrefix(environmentPrefix) {
            let name = String(variable.dropFirst(environmentPrefix.count)).replacingLiteral("_", with: "-")
            try set(name, value.trimmingWhitespace(), from: variable, into: &headers)
        }
        return headers
    }
}
