import Glibc

/// The one wall clock of prefs: milliseconds since 1970 for what it stamps writes with
/// (`updated_at`, versions, expiry, change-log times), seconds for flag evaluation
/// (`$flagd.timestamp`). Deadlines use `ContinuousClock` instead.
package enum WallClock {
    package static func nowMilliseconds() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
    }

    package static func nowSeconds() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec)
    }
}
