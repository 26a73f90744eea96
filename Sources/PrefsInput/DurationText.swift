import PrefsBase
import PrefsJSON

/// The one duration grammar of prefs (`--ttl`, `--since`, `--window`, `--every`, the sync
/// helper's `--timeout` and `--watch`, `ttl` in `apply`): one or more NUMBER UNIT parts with
/// units `ms`, `s`, `m`, `h`, `d` (`250ms`, `1.5s`, `15m`, `1h30m`, `7d`), or a plain number
/// of seconds (`30`).
///
/// ```swift
/// let duration = DurationText.parse("1h30m")  // .seconds(5400)
/// ```
package enum DurationText {
    /// The accepted forms, for error messages.
    package static let forms = "250ms, 30s, 1.5s, 15m, 2h, 1h30m, 7d or plain seconds"

    /// The duration, or nil when malformed, negative or longer than about 30,000 years.
    /// Seconds as messages show them: `30s`, `2.5s` (one decimal, as printf's `%.1f`).
    package static func seconds(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? "\(Int(seconds))s" : NumberText.fixed(seconds, fractionDigits: 1) + "s"
    }

    package static func parse(_ text: String) -> Duration? {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty, bytes.count <= 64 else { return nil }
        func isNumberByte(_ byte: UInt8) -> Bool { (byte >= 0x30 && byte <= 0x39) || byte == 0x2E }
        if bytes.allSatisfy(isNumberByte) {
            guard let seconds = Double(text), seconds.isFinite else { return nil }
            return milliseconds(seconds * 1000)
        }
        var total = 0.0
        var index = 0
        while index < bytes.count {
            let start = index
            while index < bytes.count && isNumberByte(bytes[index]) { index += 1 }
            guard index > start, let value = Double(String(decoding: bytes[start..<index], as: UTF8.self)), value.isFinite else {
                return nil
            }
            let unitStart = index
            while index < bytes.count && !isNumberByte(bytes[index]) { index += 1 }
            let scale: Double
            switch String(decoding: bytes[unitStart..<index], as: UTF8.self) {
            case "ms": scale = 1
            case "s": scale = 1000
            case "m": scale = 60_000
            case "h": scale = 3_600_000
            case "d": scale = 86_400_000
            default: return nil
            }
            total += value * scale
        }
        return milliseconds(total)
    }

    private static func milliseconds(_ value: Double) -> Duration? {
        let rounded = value.rounded()
        guard rounded >= 0, rounded < 1e15 else { return nil }
        return .milliseconds(Int64(rounded))
    }
}
