import Testing

@testable import PrefsCore

@Suite("duration text", .timeLimit(.minutes(5)))
struct DurationTextTests {
    /// How messages show a number of seconds ("timed out after 2.5s"), for refresh in process,
    /// its curl helper and the CLI alike.
    @Test func secondsAsMessagesShowThem() {
        #expect(DurationText.seconds(30) == "30s")
        #expect(DurationText.seconds(0) == "0s")
        #expect(DurationText.seconds(2.5) == "2.5s")
        #expect(DurationText.seconds(1.25) == "1.2s")  // printf's %.1f
        #expect(DurationText.seconds(0.05) == "0.1s")
    }

    @Test func parsesWhatItsFormsSay() {
        #expect(DurationText.parse("1h30m") == .seconds(5400))
        #expect(DurationText.parse("soon") == nil)
    }
}
