import Foundation
import Observation
import PrefsCore
import Testing

// `volume`, `launches` and `theme` are the doc examples' keys (DocExamplesPrelude.swift).
extension Keys {
    fileprivate static let window = Key<TypedKeyTests.Window>("window", default: .init(width: 640, height: 480))
    fileprivate static let raw = Key<JSONValue>("raw", default: ["a": 1])
}

@Suite("Typed keys and values", .timeLimit(.minutes(5)))
struct TypedKeyTests {
    struct Window: Codable, Sendable, Equatable {
        var width: Int
        var height: Int
    }

    @Test func jsonValueLiteralsCodableAndHashable() throws {
        let value: JSONValue = ["s": "x", "i": 12, "f": 0.25, "t": true, "n": nil, "a": [1, "b"], "i": 13]
        #expect(value.compactText == #"{"s":"x","i":13,"f":0.25,"t":true,"n":null,"a":[1,"b"]}"#)
        let decoded = try JSONDecoder().decode(JSONValue.self, from: Data(#"{"k":[1,2.5,"x",false,null]}"#.utf8))
        #expect(decoded == ["k": [1, 2.5, "x", false, nil]])
        let literal: JSONValue = ["a": [1, 2.5, "x"]]
        let encoded = String(decoding: try JSONEncoder().encode(literal), as: UTF8.self)
        #expect(encoded == #"{"a":[1,2.5,"x"]}"#)
        #expect(Set<JSONValue>([1, 1, "1"]).count == 2)
        let domain: Domain = "my-app"
        #expect(try domain == Domain(String("my-app")))
    }

    @Test func errorsCarryATypedReasonDomainAndKey() throws {
        let store = try TemporaryStore()
        let stack = try store.open()
        let version = try stack.set("a", in: .user, forKey: "step", if: .absent)
        do {
            try stack.set("b", in: .user, forKey: "step", if: .version(version + 7))
            Issue.record("a stale version was accepted")
        } catch let error as PrefsError {
            #expect(error.reason == .versionConflict(current: version))
            #expect(error.kind == .preconditionFailed && error.exitCode == 5)
            #expect(error.domain == .user && error.key == "step")
        }
        #expect(throws: PrefsError(.preconditionFailed, "user/step already exists", reason: .alreadyExists, domain: .user, key: "step")) {
            try stack.set("c", in: .user, forKey: "step", if: .absent)
        }
        try stack.loadSchema(["user": ["mode": ["type": "string", "enum": ["a", "b"]], "count": ["type": "integer"]]])
        do {
            try stack.set("c", in: .user, forKey: "mode")
            Issue.record("a value outside the enum was accepted")
        } catch let error as PrefsError {
            #expect(error.reason == .schemaViolation(.enum) && error.key == "mode" && error.exitCode == 6)
        }
        do {
            try stack.set("x", in: .user, forKey: "count")
            Issue.record("a string was accepted for an integer")
        } catch let error as PrefsError {
            #expect(error.reason == .schemaViolation(.type))
        }
        do {
            try stack.remove(in: .user, keys: ["nothing-here"], mustExist: true)
            Issue.record("removing a missing key succeeded")
        } catch let error as PrefsError {
            #expect(error.reason == .notFound && error.domain == .user && error.key == "nothing-here" && error.exitCode == 1)
        }
        #expect(throws: PrefsError.self) { try JSONValue(parsing: "{") }
        do { _ = try JSONValue(parsing: "{") } catch let error as PrefsError { #expect(error.reason == .invalidJSON) }
    }

    @Test func logRecordsFlagsAndEntriesHaveTypedMembers() throws {
        let store = try TemporaryStore()
        let stack = try store.open()
        let before = Date(timeIntervalSinceNow: -1)
        try stack.set("x", in: .user, forKey: "k", if: .absent, expiresIn: .seconds(60))
        try stack.reset(in: .user, keys: ["k"])
        let records = try stack.history(LogFilter(domain: .user, key: "k"))
        #expect(records.map(\.operation) == [.reset, .set])
        #expect(records.allSatisfy { $0.time > before && $0.time < Date(timeIntervalSinceNow: 1) })
        try stack.set("y", in: .user, forKey: "k", if: .absent, expiresIn: .seconds(60))
        let entry = try #require(try stack.entry(in: .user, forKey: "k"))
        #expect(entry.updated > before)
        #expect(try #require(entry.expires).timeIntervalSince(entry.updated) > 59)
        let missing = try stack.flags.evaluate("nope", type: .boolean, default: false)
        #expect(missing.reasonKind == .error && missing.errorKind == .flagNotFound)
        #expect("\(missing.reasonKind)" == missing.reason)
    }

    @Test func typedReadsNeverFailAndSayWhyTheDefaultAnswered() throws {
        let store = try TemporaryStore()
        let stack = try store.open()
        #expect(stack[.volume] == 0.5)
        #expect(stack.reading(.volume).origin == .default && stack.reading(.volume).failure == nil)
        stack[.volume] = 0.8
        #expect(stack.lastKeyWriteError == nil)
        #expect(stack[.volume] == 0.8)
        #expect(try stack.value(in: .user, forKey: "volume") == 0.8)
        stack[.window] = Window(width: 800, height: 600)
        #expect(stack[.window] == Window(width: 800, height: 600))
        #expect(stack[.raw] == ["a": 1])
        stack[.theme] = "dark"
        #expect(try stack.value(in: "my-app", forKey: "theme") == "dark")
        // Another writer stored something that is not a Double: the default, with the reason.
        try stack.set("loud", in: .user, forKey: "volume")
        let reading = stack.reading(.volume)
        #expect(reading.value == 0.5 && reading.origin == .default)
        #expect(reading.failure?.reason == .typeMismatch(expected: "Double"))
        #expect(reading.json == "loud")
        // A refused subscript write is kept, not thrown.
        try stack.loadSchema(["user": ["launches": ["type": "integer", "maximum": 10]]])
        stack[.launches] = 11
        #expect(stack.lastKeyWriteError?.reason == .schemaViolation(.maximum))
        #expect(stack[.launches] == 0)
        try stack.flushSynchronously()
    }

    @Test func updateIsAtomicAcrossStacksOnOneFile() async throws {
        let store = try TemporaryStore()
        let first = try store.open()
        let second = try store.open()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for stack in [first, second] {
                group.addTask {
                    for _ in 0..<40 { try stack.update(.launches) { $0 += 1 } }
                }
            }
            try await group.waitForAll()
        }
        #expect(first[.launches] == 80)
        #expect(try store.open()[.launches] == 80)
        try first.set("x", in: .user, forKey: "launches")
        try first.flushSynchronously()
        #expect(throws: PrefsError.self) { try second.update(.launches) { $0 += 1 } }
        #expect(try second.value(in: .user, forKey: "launches") == "x")
    }

    @Test func resetCompareAndSetAndExpiryOnTypedKeys() async throws {
        let store = try TemporaryStore()
        let stack = try store.open()
        try stack.set(.volume, 0.7)
        try stack.set(.volume, 0.9, if: .value(0.7))
        #expect(stack[.volume] == 0.9)
        do {
            try stack.set(.volume, 0.1, if: .value(0.7))
            Issue.record("a compare-and-set with a stale value succeeded")
        } catch let error as PrefsError {
            #expect(error.reason == .valueMismatch && error.key == "volume")
        }
        #expect(try stack.reset(.volume))
        #expect(stack[.volume] == 0.5 && stack.reading(.volume).origin == .default)
        #expect(try !stack.reset(.volume))
        try stack.set(.theme, "short-lived", expiresIn: .milliseconds(50))
        #expect(stack[.theme] == "short-lived")
        try await Task.sleep(for: .milliseconds(120))
        #expect(stack[.theme] == "light")
        try stack.flushSynchronously()
    }

    @Test func defaultsAreRegisteredInTheStoredSchema() throws {
        let store = try TemporaryStore()
        let stack = try store.open()
        try stack.loadSchema(["user": ["volume": ["type": "number", "description": "how loud"]]])
        try stack.registerDefaults(of: [Keys.volume, Keys.theme, Keys.launches], inStoredSchema: true)
        let other = try store.open()
        #expect(try other.resolve(in: .user, forKey: "volume")?.value == 0.5)
        #expect(try other.resolve(in: "my-app", forKey: "theme")?.value == "light")
        #expect(try other.schema().spec(in: .user, forKey: "launches")?.type == .integer)
        #expect(try other.schema().spec(in: .user, forKey: "volume")?.description == "how loud")
    }

    @Test func valuesFollowCommitsOfOtherStacksWithoutRepeats() async throws {
        let store = try TemporaryStore()
        let app = try store.open()
        let cli = try store.open()
        try cli.set(.volume, 0.6)
        try cli.flushSynchronously()
        var iterator = app.values(of: .volume).makeAsyncIterator()
        #expect(try await iterator.next() == 0.6)
        try cli.set(.volume, 0.6)  // the same value again: not repeated
        try cli.flushSynchronously()
        try cli.set(.volume, 0.7)
        try cli.flushSynchronously()
        #expect(try await iterator.next() == 0.7)
        try cli.reset(.volume)
        #expect(try await iterator.next() == 0.5)
        try cli.set("loud", in: .user, forKey: "volume")
        try cli.flushSynchronously()
        do {
            _ = try await iterator.next()
            Issue.record("an undecodable value was not reported")
        } catch let error as PrefsError {
            #expect(error.reason == .typeMismatch(expected: "Double") && error.key == "volume")
        }
        var readings = app.readings(of: .volume).makeAsyncIterator()
        let bad = await readings.next()
        #expect(bad?.value == 0.5 && bad?.failure?.reason == .typeMismatch(expected: "Double"))
        try cli.set(.volume, 0.9)
        try cli.flushSynchronously()
        #expect(await readings.next()?.value == 0.9)
    }

    /// A store file replaced by rename under `readings(of:)`: one reading says so, then the
    /// file now at the path is read and followed.
    @Test func readingsFollowAStoreFileReplacedByRename() async throws {
        let store = try TemporaryStore()
        let cli = try store.open()
        try cli.set(.volume, 0.6)
        try cli.close()
        let app = try store.open()
        var readings = app.readings(of: .volume).makeAsyncIterator()
        #expect(await readings.next()?.value == 0.6)
        let copy = store.directory + "/copy.db"
        let other = try KeyValueStack(path: copy, options: .init(environment: ["XDG_RUNTIME_DIR": store.directory]))
        try other.set(.volume, 0.8)
        try other.close()
        try #require(rename(copy, store.path) == 0)
        let replaced = await readings.next()
        #expect(
            replaced?.failure?.message.contains("\(store.path) was replaced, moved or removed") == true, "\(String(describing: replaced))")
        #expect(await readings.next()?.value == 0.8)
        let writer = try store.open()
        try writer.set(.volume, 0.9)
        try writer.flushSynchronously()
        #expect(await readings.next()?.value == 0.9)
    }

    /// A store path that is a symbolic link, pointed at another store file (`ln -sfn b.db
    /// prefs.db`): a rename over the store. `values(of:)` ends with the error naming the path;
    /// `readings(of:)` says so once, then reads the file the link names now and follows it.
    @Test func aStoreLinkPointedElsewhereIsAReplacedStore() async throws {
        let store = try TemporaryStore()
        func open(_ path: String) throws -> KeyValueStack {
            try KeyValueStack(path: path, options: .init(memoryTier: .inProcess, environment: ["XDG_RUNTIME_DIR": store.directory]))
        }
        for (name, volume) in [("a.db", 0.6), ("b.db", 0.8)] {
            let writer = try open(store.directory + "/" + name)
            try writer.set(.volume, volume)
            try writer.close()
        }
        try #require(symlink("a.db", store.path) == 0)
        let app = try store.open()
        var values = app.values(of: .volume).makeAsyncIterator()
        var readings = app.readings(of: .volume).makeAsyncIterator()
        #expect(try await values.next() == 0.6)
        #expect(await readings.next()?.value == 0.6)
        // ln -sfn: a new link renamed over the old one.
        try #require(symlink("b.db", store.directory + "/link.tmp") == 0)
        try #require(rename(store.directory + "/link.tmp", store.path) == 0)
        await #expect(throws: PrefsError.self) {
            while try await values.next() != nil {}
        }
        let replaced = await readings.next()
        #expect(
            replaced?.failure?.message.contains("\(store.path) was replaced, moved or removed") == true, "\(String(describing: replaced))")
        #expect(await readings.next()?.value == 0.8)
        let writer = try store.open()
        try writer.set(.volume, 0.9)
        try writer.flushSynchronously()
        #expect(await readings.next()?.value == 0.9)
        #expect(app[.volume] == 0.9, "the stack reads the file the link names now")
    }

    @MainActor @Test func observableSettingFollowsTheStore() async throws {
        let store = try TemporaryStore()
        let app = try store.open()
        let other = try store.open()
        let setting = ObservableSetting(.volume, in: app)
        #expect(setting.value == 0.5)
        let changed = AsyncStream<Void>.makeStream()
        withObservationTracking {
            _ = setting.value
        } onChange: {
            changed.continuation.yield()
        }
        try other.set(.volume, 0.3)
        try other.flushSynchronously()
        var signal = changed.stream.makeAsyncIterator()
        await signal.next()
        for _ in 0..<100 where setting.value != 0.3 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(setting.value == 0.3)
        setting.value = 0.4
        #expect(app[.volume] == 0.4)
        try app.flushSynchronously()
    }

    @Test func propertyWrapperReadsAndWritesTheKey() throws {
        let store = try TemporaryStore()
        let stack = try store.open()
        struct Player {
            @Preference<Double> var volume: Double
        }
        let player = Player(volume: Preference(.volume, in: stack))
        #expect(player.volume == 0.5)
        player.volume = 0.25
        #expect(stack[.volume] == 0.25)
        #expect(player.$volume.reading.origin == .store)
        try player.$volume.reset()
        try stack.flushSynchronously()
        #expect(player.volume == 0.5)
    }
}
