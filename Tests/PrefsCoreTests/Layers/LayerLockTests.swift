import Foundation
import PrefsCore
import Testing

/// The library's reads and setters under a system lock: reads answer the system value, every
/// setter (queued, conditional, typed, `update`, `perform`, import, reset) is refused with
/// `cannotWrite` naming the lock file, and the stored value stays.
@Suite("LayerLockTests", .timeLimit(.minutes(5)))
struct LayerLockTests {
    @Test func settersRefuseALockedKeyAndReadsAnswerTheSystemValue() throws {
        let store = try TemporaryStore()
        let system = store.directory + "/system"
        try FileManager.default.createDirectory(atPath: system + "/locks", withIntermediateDirectories: true)
        try #"{"user":{"endpoint":"https://corp.example"}}"#.write(toFile: system + "/10.json", atomically: false, encoding: .utf8)
        try "user/endpoint\nuser/telemetry.*\n".write(toFile: system + "/locks/admin", atomically: false, encoding: .utf8)
        #expect(chmod(system, 0o755) == 0 && chmod(system + "/10.json", 0o644) == 0 && chmod(system + "/locks/admin", 0o644) == 0)

        let plain = try KeyValueStack(
            path: store.path, options: .init(environment: ["PREFS_SYSTEM_DIR": store.directory + "/none", "PREFS_PROJECT_FILE": ""]))
        try plain.set("mine", in: .user, forKey: "endpoint")
        try plain.flushSynchronously()
        try plain.close()

        let environment = ["PREFS_SYSTEM_DIR": system, "PREFS_PROJECT_FILE": ""]
        let stack = try KeyValueStack(path: store.path, options: .init(environment: environment))
        #expect(stack.layers.warnings == [])
        let resolved = try stack.resolve(in: .user, forKey: "endpoint")
        #expect(resolved?.value == .string("https://corp.example") && resolved?.origin == .locked)
        #expect(stack.layerFile(of: .locked, in: .user, forKey: "endpoint") == system + "/locks/admin")
        #expect(stack.lock(in: .user, forKey: "telemetry.opt-out") != nil && stack.lock(in: .user, forKey: "theme") == nil)

        let key = Key<String>("endpoint", in: .user, default: "none")
        #expect(stack[key] == "https://corp.example" && stack.reading(key).origin == .locked)
        let attempts: [(String, () throws -> Void)] = [
            ("set", { try stack.set("x", in: .user, forKey: "endpoint") }),
            ("remove", { _ = try stack.remove(in: .user, keys: ["endpoint"]) }),
            ("increment", { _ = try stack.increment(in: .user, forKey: "telemetry.count") }),
            ("typed set", { try stack.set(key, "x") }),
            ("update", { _ = try stack.update(key) { $0 = "x" } }),
            ("perform", { _ = try stack.perform([.init(.set(.string("x")), in: .user, forKey: "endpoint")]) }),
            ("import", { _ = try stack.importDocument(try JSONValue(parsing: #"{"user":{"endpoint":"x"}}"#)) }),
            ("reset", { _ = try stack.reset(in: .user, keys: ["endpoint"]) }),
        ]
        for (name, attempt) in attempts {
            #expect(throws: PrefsError.self, "\(name)") { try attempt() }
            do {
                try attempt()
            } catch let error as PrefsError {
                #expect(error.kind == .cannotWrite && error.message.contains("locked by \(system)/locks/admin"), "\(name): \(error)")
            }
        }
        try stack.flushSynchronously()
        #expect(try stack.storedValue(in: .user, forKey: "endpoint") == .string("mine"))
        try stack.close()
    }

    @Test func aPulledValueOfALockedKeyIsStoredAndStaysShadowed() throws {
        let store = try TemporaryStore()
        let system = store.directory + "/system"
        try FileManager.default.createDirectory(atPath: system + "/locks", withIntermediateDirectories: true)
        try #"{"team":{"endpoint":"https://corp.example"}}"#.write(toFile: system + "/10.json", atomically: false, encoding: .utf8)
        try "team/endpoint\n".write(toFile: system + "/locks/admin", atomically: false, encoding: .utf8)
        #expect(chmod(system, 0o755) == 0 && chmod(system + "/10.json", 0o644) == 0 && chmod(system + "/locks/admin", 0o644) == 0)
        let stack = try KeyValueStack(
            path: store.path, options: .init(environment: ["PREFS_SYSTEM_DIR": system, "PREFS_PROJECT_FILE": ""]))
        try stack.sync.setRemote(try RemoteURL(parsing: "postgres://u@127.0.0.1:1/db"), domains: nil)  // never connected to
        let team = Domain("team")
        let pulled = SyncOperation(
            id: UUID().uuidString, domain: "team", key: "endpoint", json: #""https://peer.example""#, expiresAt: nil, hlc: 1_000,
            node: "n", actor: "t")
        #expect(try stack.sync.applyRemoteOperations([pulled], through: 1) == 1)
        #expect(try stack.storedValue(in: team, forKey: "endpoint") == .string("https://peer.example"))
        #expect(try stack.value(in: team, forKey: "endpoint") == .string("https://corp.example"))
        #expect(try stack.resolve(in: team, forKey: "endpoint")?.origin == .locked)
        try stack.close()
    }
}
