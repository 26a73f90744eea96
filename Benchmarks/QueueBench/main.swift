// Library benchmark: N `set` calls through the debounce queue (one flush) against the same
// calls committed one by one (a flush after every set), both on a fresh store in WAL mode
// with SQLite's default synchronous setting.
//
//   swift run -c release prefs-queue-bench [QUEUED_N] [ONE_BY_ONE_N]
import Foundation
import PrefsCore

func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let queuedCount = arguments.first ?? 100_000
let directCount = arguments.dropFirst().first ?? 2_000
let directory = FileManager.default.temporaryDirectory.appendingPathComponent("prefs-queue-bench-\(getpid())").path
try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: directory) }

let queued = try KeyValueStack(path: directory + "/queued.db", options: .init(window: .seconds(3600)))
var enqueueTime = 0.0
let queuedTime = try seconds {
    enqueueTime = try seconds {
        for i in 0..<queuedCount {
            try queued.set(.number(String(i)), in: .user, forKey: "key\(i)")
        }
    }
    try queued.flushSynchronously()
}

let direct = try KeyValueStack(path: directory + "/direct.db", options: .init(window: .seconds(3600)))
let directTime = try seconds {
    for i in 0..<directCount {
        try direct.set(.number(String(i)), in: .user, forKey: "key\(i)")
        try direct.flushSynchronously()
    }
}

let queuedRate = Double(queuedCount) / queuedTime
let directRate = Double(directCount) / directTime
func column(_ text: String) -> String { text.padding(toLength: 34, withPad: " ", startingAt: 0) }
print(column("library set, queued") + String(format: "%9d sets %8.3f s %12.0f sets/s", queuedCount, queuedTime, queuedRate))
print(column("  of which queueing / flushing") + String(format: "%23.3f s / %.3f s", enqueueTime, queuedTime - enqueueTime))
print(column("library set, committed one by one") + String(format: "%9d sets %8.3f s %12.0f sets/s", directCount, directTime, directRate))
print(column("ratio (queued / one by one)") + String(format: "%.1fx", queuedRate / directRate))
