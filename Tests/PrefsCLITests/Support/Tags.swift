import Foundation
import Testing

/// What a suite needs beyond the package's own build. A default `swift test` needs none of
/// it: a suite whose tool or network is missing is skipped and says why (`.enabled(if:)`),
/// and `.ci/run` with `CI=true`, which installs everything, fails on any skip.
extension Tag {
    /// Runs against the PostgreSQL server of ``TestPostgres``; skipped where it is not installed.
    @Tag static var postgres: Self
    /// Many processes for many seconds (the checker, the torture runs, lifecycle rounds, the
    /// bounded WAL): run where ``SlowTests/enabled`` (CI, or `PREFS_TEST_SLOW=1`), skipped
    /// with the reason in a default `swift test`.
    @Tag static var slow: Self
    /// Types into real interactive shells (bash, zsh, fish) through tmux.
    @Tag static var shells: Self
    /// Drives headless Chromium.
    @Tag static var browser: Self
    /// Installs packages from PyPI into a venv under `.build` on first use (network).
    @Tag static var network: Self
}

/// Whether the `.slow` suites run: where `CI=true` (CI runs everything) or `PREFS_TEST_SLOW=1`
/// asks for them. A default `swift test` skips them and says how to run them.
enum SlowTests {
    static let enabled: Bool = {
        let environment = ProcessInfo.processInfo.environment
        return environment["CI"] == "true" || environment["PREFS_TEST_SLOW"] == "1"
    }()

    static let reason: Comment = "slow (many processes for minutes): runs where CI=true or PREFS_TEST_SLOW=1"
}
