// A settings-driven program: it renders a status line from its settings, and renders it again
// whenever a setting changes, whoever changes it (this program, the `prefs` command, another
// app, sync). `prefs set my-app quit true` ends it.
//
//   settings-follower [--store PATH]
import Foundation
import PrefsCore

extension Keys {
    static let theme = Key<String>("theme", in: "my-app", default: "light")
    static let volume = Key<Double>("volume", in: "my-app", default: 0.5)
    static let greeting = Key<String>("greeting", in: "my-app", default: "hello")
    static let quit = Key<Bool>("quit", in: "my-app", default: false)
    static let starts = Key<Int>("starts", in: "my-app", default: 0)
}

/// The program's settings as plain Swift properties.
struct Settings {
    @Preference<String> var theme: String
    @Preference<Double> var volume: Double
    @Preference<String> var greeting: String

    init(stack: KeyValueStack) {
        _theme = Preference(.theme, in: stack)
        _volume = Preference(.volume, in: stack)
        _greeting = Preference(.greeting, in: stack)
    }

    var line: String { "\(greeting) theme=\(theme) volume=\(volume)" }
}

func say(_ text: String) {
    FileHandle.standardOutput.write(Data((text + "\n").utf8))
}

let arguments = CommandLine.arguments
let explicit = arguments.firstIndex(of: "--store").flatMap { arguments.indices.contains($0 + 1) ? arguments[$0 + 1] : nil }
let environment = ProcessInfo.processInfo.environment
let stack = try KeyValueStack(
    path: StoreLocation.resolve(explicit: explicit, environment: environment),
    options: .init(window: .milliseconds(50), environment: environment))
// The defaults go into the store's schema too: `prefs get my-app theme` answers `light`.
try stack.registerDefaults(of: [Keys.theme, Keys.volume, Keys.greeting, Keys.quit], inStoredSchema: true)
let starts = try stack.update(.starts) { $0 += 1 }
try stack.set(.quit, false)
try stack.flushSynchronously()
let settings = Settings(stack: stack)
say("start \(starts): \(settings.line)")

// One follower per setting; each change renders the line again.
await withThrowingTaskGroup(of: Void.self) { group in
    for key in [Keys.theme, Keys.greeting] as [Key<String>] {
        group.addTask {
            for try await _ in stack.values(of: key).dropFirst() { say("changed \(key.name): \(settings.line)") }
        }
    }
    group.addTask {
        for try await _ in stack.values(of: .volume).dropFirst() { say("changed volume: \(settings.line)") }
    }
    group.addTask {
        for await reading in stack.readings(of: .quit) {
            if let failure = reading.failure { say("ignored: \(failure.message)") }
            if reading.value { break }
        }
    }
    // The quit follower ends first; the others follow it out.
    _ = try? await group.next()
    group.cancelAll()
}
say("bye")
try stack.close()
