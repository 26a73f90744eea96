import Glibc

/// The wall clock prefs stamps writes with: milliseconds since 1970 (`updated_at`,
/// versions, expiry, change-log times).
enum WallClock {
    static func nowMilliseconds() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
    }

    /// Whole seconds since 1970: flag evaluation's `$flagd.timestamp` (and so `rollout`'s
    /// "now") unless the caller passes its own.
    static func nowSeconds() -> Int64 {
        nowMilliseconds() / 1000
    }
}
