import Foundation
import PrefsCore
import Synchronization
import Testing

/// The live values an app follows (`values(of:)`, `readings(of:)`) follow edits of the
/// project and system layer files, as they follow commits: a value that appears in the project
/// file, an edit of it, and a lock added by the admin.
@Suite("LiveLayerTests", .timeLimit(.minutes(5)))
struct LiveLayerTests {
    /// Writes `text` to `path` as an editor or `prefs set --project` does: a hidden temporary
    /// file in the same directory, renamed over the path (a reader never sees half a file).
    static func replace(_ path: String, with text: String) throws {
        let directory = (path as NSString).deletingLastPathComponent
        let temporary = directory + "/.tmp-" + (path as NSString).lastPathComponent
        try text.write(toFile: temporary, atomically: false, encoding: .utf8)
        #expect(chmod(temporary, 0o644) == 0)
        #expect(rename(temporary, path) == 0)
    }

    /// What a follower saw, in order.
    final class Seen: Sendable {
        private let values = Mutex<[String]>([])

        var all: [String] { values.withLock { $0 } }

        func append(_ value: String) { values.withLock { $0.append(value) } }

        /// Waits up to 20 s for the values seen so far to end with `value`.
        func waitFor(_ value: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
            let deadline = ContinuousClock.now + .seconds(20)
            while values.withLock({ $0.last }) != value {
                guard ContinuousClock.now < deadline else {
                    Issue.record("no value \(value) within 20 s; seen \(all)", sourceLocation: sourceLocation)
                    return
                }
                try await Task.sleep(for: .milliseconds(10))
            }
        }
    }

    @Test func valuesFollowEditsOfTheProjectAndSystemFiles() async throws {
        let store = try TemporaryStore()
        let system = store.directory + "/system"
        let checkout = store.directory + "/checkout"
        for directory in [system + "/locks", checkout] {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        #expect(chmod(system, 0o755) == 0 && chmod(system + "/locks", 0o755) == 0)
        let project = checkout + "/.prefs.json"
        let environment = ["XDG_RUNTIME_DIR": store.directory, "PREFS_SYSTEM_DIR": system, "PREFS_PROJECT_FILE": project]
        let app = try KeyValueStack(path: store.path, options: .init(environment: environment))
        try app.set("x", in: .user, forKey: "other")
        try app.flushSynchronously()
        let key = Key<String>("endpoint", in: .user, default: "none")

        let seen = Seen()
        let follower = Task {
            for try await value in app.values(of: key) { seen.append(value) }
        }
        defer { follower.cancel() }
        try await seen.waitFor("none")
        // The key appears in the project file, then the file is edited.
        try Self.replace(project, with: #"{"user":{"endpoint":"https://project.example"}}"#)
        try await seen.waitFor("https://project.example")
        try Self.replace(project, with: "{\n  \"user\": {\n    \"endpoint\": \"https://edited.example\"\n  }\n}\n")
        try await seen.waitFor("https://edited.example")
        // A system value alone changes nothing (the project comes first); a lock answers it.
        try Self.replace(system + "/10-site.json", with: #"{"user":{"endpoint":"https://corp.example"}}"#)
        try Self.replace(system + "/locks/admin", with: "user/endpoint\n")
        try await seen.waitFor("https://corp.example")
        #expect(
            seen.all == ["none", "https://project.example", "https://edited.example", "https://corp.example"], "\(seen.all)")
        #expect(app.reading(key).origin == .locked)
        #expect(app.lock(in: .user, forKey: "endpoint")?.file == system + "/locks/admin")

        // readings(of:) follows them too: the lock removed, the project's value again.
        let readings = Seen()
        let reader = Task {
            for await reading in app.readings(of: key) { readings.append("\(reading.origin):\(reading.value)") }
        }
        defer { reader.cancel() }
        try await readings.waitFor("locked:https://corp.example")
        #expect(unlink(system + "/locks/admin") == 0)
        try await readings.waitFor("project:https://edited.example")
        try await seen.waitFor("https://edited.example")
    }
}
