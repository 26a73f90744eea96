import ArgumentParser
import FoundationEssentials
import PrefsCore

/// Parses a duration in prefs's one grammar (``DurationText``); nil when malformed.
func parseDuration(_ text: String) -> Duration? {
    DurationText.parse(text)
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
            let now = WallClock.nowMilliseconds()
            milliseconds = now - ago.components.seconds * 1000 - ago.components.attoseconds / 1_000_000_000_000_000
        } else {
            return nil
        }
    }
}
