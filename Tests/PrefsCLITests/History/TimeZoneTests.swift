import Foundation
import Testing

/// Every time prefs prints or reads is UTC, whatever `TZ` says: without Foundation's
/// internationalization a local time would silently become UTC (or the other way round), so
/// these runs put the process far east and far west of Greenwich.
@Suite("Times are UTC under any TZ", .timeLimit(.minutes(5)), .ownThreads)
struct TimeZoneTests {
    /// UTC+14 and UTC−12 as POSIX TZ strings (glibc reads them without zoneinfo) and as
    /// zone names (what Foundation's `TimeZone` reads; tzdata, installed by .ci/run).
    static let zones = ["UTC0", "EAST-14", "WEST+12", "Etc/GMT-14", "Etc/GMT+12"]

    @Test func zoneNamesAreInstalled() {
        #expect(
            FileManager.default.fileExists(atPath: "/usr/share/zoneinfo/Etc/GMT-14"),
            "tzdata is missing: TZ=Etc/GMT-14 would silently be UTC and the checks below could not fail")
    }

    @Test func printedTimesDoNotDependOnTZ() throws {
        let box = try Sandbox()
        try box.runOK(["set", "user", "theme", "dark", "--ttl", "1h"])
        var outputs: [[String]] = []
        for zone in Self.zones {
            let log = try box.runOK(["log"], environment: ["TZ": zone])
            let json = try box.runOK(["log", "--json"], environment: ["TZ": zone])
            let meta = try box.runOK(["get", "user", "theme", "--show-meta"], environment: ["TZ": zone])
            outputs.append([log.stdout, json.stdout, meta.stdout])
        }
        #expect(outputs.allSatisfy { $0 == outputs[0] }, "\(outputs)")
        let time = String(try #require(outputs[0][0].split(separator: "\t").dropFirst().first))
        #expect(time.hasSuffix("Z") && time.count == 24, "\(time)")
        let utc = ISO8601DateFormatter()
        utc.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let printed = try #require(utc.date(from: time))
        #expect(abs(printed.timeIntervalSinceNow) < 600, "the printed time is now in UTC: \(time)")
    }

    /// A date alone (`--since 2026-11-22`) is midnight UTC. Read as local midnight, today's UTC
    /// date under UTC−12 starts at 12:00 UTC and tomorrow's under UTC+14 at 10:00 UTC today:
    /// at any hour one of the two checks below sees the difference.
    @Test func aDateAloneIsMidnightUTC() throws {
        let box = try Sandbox()
        try box.runOK(["set", "user", "theme", "dark"])
        let day = ISO8601DateFormatter()
        day.formatOptions = [.withFullDate]
        let now = Date()
        let today = day.string(from: now)
        let tomorrow = day.string(from: now.addingTimeInterval(86_400))
        for zone in Self.zones {
            let since = try box.runOK(["log", "--since", today], environment: ["TZ": zone])
            #expect(since.stdout.split(separator: "\n").count == 1, "TZ=\(zone) --since \(today): \(since)")
            let later = try box.runOK(["log", "--since", tomorrow], environment: ["TZ": zone])
            #expect(later.stdout.isEmpty, "TZ=\(zone) --since \(tomorrow): \(later)")
        }
    }
}
