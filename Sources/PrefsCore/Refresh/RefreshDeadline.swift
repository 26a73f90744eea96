/// When a `refresh` must be over: its `timeout` covers the fetch, checking the document and
/// replacing the domain, so a document that is slow to check (many values against an
/// expensive pattern) ends the refresh at the deadline, with the copy kept.
struct RefreshDeadline: Sendable {
    private let end: ContinuousClock.Instant?
    private let timeout: Duration

    /// No deadline.
    static let none = RefreshDeadline(nil)

    /// A deadline `timeout` from now (nil: none).
    init(_ timeout: Duration?) {
        self.timeout = timeout ?? .zero
        end = timeout.map { ContinuousClock.now + $0 }
    }

    /// - Throws: ``PrefsError`` of kind `unreachable` (`timed out after 2s while …`) once
    ///   the deadline has passed.
    func check(_ doing: @autoclosure () -> String) throws {
        guard let end, ContinuousClock.now >= end else { return }
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        throw PrefsError(.unreachable, "timed out after \(DurationText.seconds(seconds)) \(doing())")
    }
}
