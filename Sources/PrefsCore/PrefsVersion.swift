/// The version of prefs, shown by `prefs --version`, `prefs-sync --version` and
/// `prefs-http-get --version`.
///
/// ```swift
/// print("prefs \(PrefsVersion.current)")  // prefs 0.2.0-dev
/// ```
public enum PrefsVersion {
    /// The version of this build, e.g. `0.2.0-dev`.
    public static let current = "0.2.0-dev"
}
