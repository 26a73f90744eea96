import PrefsBase
import PrefsJSON

/// The evaluation contexts `flag diff` and `flag stats` evaluate: a JSON Lines file (one object
/// per line), or N synthetic targeting keys from a seeded generator (the same N and seed give
/// the same keys).
///
/// A file is read in chunks, one line at a time: its size bounds neither memory nor anything
/// but time. A line longer than ``maximumLineBytes``, one that is not a JSON object or nests
/// deeper than ``JSONParser/maximumDepth`` is an `invalidValue` error naming the line.
public enum EvaluationContexts: Sendable {
    /// A JSON Lines file: blank lines are skipped.
    case file(String)
    /// JSON Lines already in memory (named in errors as `name`).
    case lines([UInt8], name: String)
    /// `count` contexts `{"targetingKey": "user-…"}` from a generator seeded with `seed`.
    case synthetic(count: Int, seed: UInt64)

    /// The longest context line accepted: 1 MiB.
    public static let maximumLineBytes = 1 << 20
    /// The most synthetic contexts: 100,000,000.
    public static let maximumSynthetic = 100_000_000

    /// Turns a context (a JSON object) into evaluation data as `flag eval` does: an empty
    /// `targetingKey` counts as absent.
    ///
    /// - Throws: ``PrefsError`` of kind `invalidValue` when the value is not an object.
    public static func data(_ context: JSONValue) throws -> [String: LogicValue] {
        try FlagSet.context(context)
    }

    /// The synthetic targeting key number `index` (from 0) of `seed`: `user-` and 16 hex digits.
    public static func syntheticKey(_ index: Int, seed: UInt64) -> String {
        // SplitMix64 of (seed, index): every key on its own, the same on every machine.
        var z = seed &+ 0x9E37_79B9_7F4A_7C15 &* UInt64(index + 1)
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        return "user-" + NumberText.hex(z, width: 16)
    }

    /// Calls `body` with each context in order.
    ///
    /// - Throws: ``PrefsError``: `invalidValue` naming the line of a malformed context; `usage`
    ///   when the file cannot be read; what `body` throws.
    public func forEach(_ body: ([String: LogicValue]) throws -> Void) throws {
        switch self {
        case .synthetic(let count, let seed):
            guard count >= 1, count <= Self.maximumSynthetic else {
                throw PrefsError(.invalidValue, "--synthetic must be 1 to \(Self.maximumSynthetic), got \(count)")
            }
            for index in 0..<count { try body(["targetingKey": .string(Self.syntheticKey(index, seed: seed))]) }
        case .lines(let bytes, let name):
            var number = 0
            try Self.splitLines(bytes[...], final: true, name: name, number: &number, body)
        case .file(let path):
            let fd: Int32
            do {
                fd = try FileIO.openForReading(path)
            } catch {
                throw PrefsError(.usage, "cannot read \(path): no such file or not readable")
            }
            defer { FileIO.close(fd) }
            var pending: [UInt8] = []
            var number = 0
            while true {
                let chunk: [UInt8]
                do {
                    chunk = try FileIO.read(fd, upTo: 1 << 20)
                } catch {
                    throw PrefsError(.usage, "cannot read \(path): \(error.message)")
                }
                if chunk.isEmpty { break }
                pending += chunk
                guard let lastNewline = pending.lastIndex(of: 0x0A) else {
                    if pending.count > Self.maximumLineBytes {
                        throw PrefsError(.invalidValue, "\(path):\(number + 1): a context longer than \(Self.maximumLineBytes) bytes")
                    }
                    continue
                }
                try Self.splitLines(pending[...lastNewline], final: false, name: path, number: &number, body)
                pending.removeSubrange(...lastNewline)
            }
            try Self.splitLines(pending[...], final: true, name: path, number: &number, body)
        }
    }

    private static func splitLines(
        _ bytes: ArraySlice<UInt8>, final: Bool, name: String, number: inout Int, _ body: ([String: LogicValue]) throws -> Void
    ) throws {
        var start = bytes.startIndex
        while start < bytes.endIndex {
            let end = bytes[start...].firstIndex(of: 0x0A) ?? bytes.endIndex
            number += 1
            var line = bytes[start..<end]
            if line.last == 0x0D { line = line.dropLast() }
            start = end == bytes.endIndex ? end : end + 1
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
            guard line.count <= maximumLineBytes else {
                throw PrefsError(.invalidValue, "\(name):\(number): a context longer than \(maximumLineBytes) bytes")
            }
            let context: [String: LogicValue]
            do {
                context = try data(JSONValue(parsingUTF8: Array(line)))
            } catch let error as PrefsError {
                throw PrefsError(.invalidValue, "\(name):\(number): \(error.message)")
            }
            try body(context)
        }
    }
}
