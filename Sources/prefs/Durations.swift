import ArgumentParser
import Foundation
import PrefsCore

/// Parses `250ms`, `1s`, `1.5s`, `15m`, `2h`, `7d`; nil when malformed.
func parseDuration(_ text: String) -> Duration? {
    let units: [(String, Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600), ("d", 86400)]
    for (suffix, scale) in units where text.hasSuffix(suffix) {
        let number = String(text.dropLast(suffix.count))
        guard !number.isEmpty, number.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }), let value = Double(number), value.isFinite
        else {
            return nil
        }
        let milliseconds = (value * scale * 1000).rounded()
        guard milliseconds < 1e15 else { return nil }
        return .milliseconds(Int64(milliseconds))
    }
    if let value = Double(text), value.isFinite, value >= 0, text.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }) {
        return .milliseconds(Int64((value * 1000).rounded()))
    }
    return nil
}

/// `--ttl` values: `30s`, `15m`, `2h`, `7d`, `250ms` (more than zero).
struct TTLArgument: ExpressibleByArgument {
    var duration: Duration

    init?(argument: String) {
        guard let duration = parseDuration(argument), duration > .zero else { return nil }
        self.duration = duration
    }
}

/// `--since` values: an ISO 8601 time, or a duration meaning that long ago (`10m`, `7d`).
struct SinceArgument: ExpressibleByArgument {
    var milliseconds: Int64

    init?(argument: String) {
        if let time = ISOTime.parse(argument) {
            milliseconds = time
        } else if let ago = parseDuration(argument) {
            let now = Int64((Date().timeIntervalSince1970 * 1000).rounded())
            milliseconds = now - ago.components.seconds * 1000 - ago.components.attoseconds / 1_000_000_000_000_000
        } else {
            return nil
        }
    }
}
