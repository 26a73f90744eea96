import Glibc

/// The wall clock prefs stamps writes with: milliseconds since 1970 (`updated_at`,
/// versions, expiry, change-log times).
package enum WallClock {
    package static func nowMilliseconds() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
    }
}
