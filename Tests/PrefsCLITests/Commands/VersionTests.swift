import Foundation
import PrefsCore
import Testing

/// All three binaries answer `--version` with their name and the one version constant.
@Suite("version", .timeLimit(.minutes(5)), .ownThreads)
struct VersionTests {
    /// A binary next to `prefs`.
    static func helper(_ name: String) -> String {
        URL(fileURLWithPath: Sandbox.binary).deletingLastPathComponent().appendingPathComponent(name).path
    }

    @Test func theVersionIsThisWavesDevelopmentVersion() {
        #expect(PrefsVersion.current == "0.2.0-dev")
    }

    @Test(arguments: ["prefs", "prefs-sync", "prefs-http-get", "prefs-serve"])
    func versionIsPrintedWithExitZero(_ name: String) throws {
        let box = try Sandbox()
        let result = try Sandbox.exec(Self.helper(name), ["--version"], stdin: nil, environment: box.environment())
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.isEmpty, "\(result)")
        // swift-argument-parser prints the bare version; the helpers name themselves.
        let expected = name == "prefs" ? "\(PrefsVersion.current)\n" : "\(name) \(PrefsVersion.current)\n"
        #expect(result.stdout == expected, "\(result)")
    }
}
