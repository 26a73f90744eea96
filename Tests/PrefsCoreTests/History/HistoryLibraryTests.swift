import Foundation
import PrefsCore
import Synchronization
import Testing

@Suite("history and watch in the library", .timeLimit(.minutes(5)))
struct HistoryLibraryTests {
    @Test func watchSeesWritesOfAnotherConnectionInOrder() async throws {
        let store = try TemporaryStore()
        let watcher = try store.open()
        let writer = try KeyValueStack(path: store.path, options: .init(environment: ["XDG_RUNTIME_DIR": store.directory], actor: "writer"))
        try writer.set(.number("0"), in: .user, forKey: "seed")
        try writer.flushSynchronously()
        let stream = watcher.watch(LogFilter(domain: .switch), interval: .milliseconds(20))
        let received = Mutex<[LogRecord]>([])
        let task = Task {
            for try await record in stream {
                received.withLock { $0.append(record) }
                if received.withLock({ $0.count }) == 3 { break }
            }
        }
        try await Task.sleep(for: .milliseconds(100))
        try writer.set(.bool(true), in: .switch, forKey: "a")
        try writer.set(.bool(true), in: .user, forKey: "filtered-out")
        try writer.flushSynchronously()
        try writer.set(.bool(false), in: .switch, forKey: "a")
        try writer.flushSynchronously()
        try writer.remove(in: .switch, forKey: "a", if: .value(.bool(false)))
        try await task.value
        let records = received.withLock { $0 }
        #expect(records.map(\.op) == ["set", "set", "rm"])
        #expect(records.map { $0.new ?? "-" } == ["true", "false", "-"])
        #expect(records.allSatisfy { $0.actor == "writer" && $0.domain == .switch })
        #expect(records.map(\.seq) == records.map(\.seq).sorted())
    }

    /// A store file replaced by rename under `watch`: the stream ends with an error that says
    /// so, instead of going silent (its connection reads the old file, which nobody writes).
    @Test func watchEndsWithAnErrorWhenTheStoreFileIsReplaced() async throws {
        let store = try TemporaryStore()
        let writer = try store.open()
        try writer.set(.number("0"), in: .user, forKey: "seed")
        try writer.close()
        let watcher = try store.open()
        let stream = watcher.watch(LogFilter(domain: .user), interval: .milliseconds(20))
        let task = Task { () -> String in
            do {
                for try await _ in stream {}
                return "the stream ended without an error"
            } catch {
                return (error as? PrefsError)?.message ?? "\(error)"
            }
        }
        let copy = store.directory + "/copy.db"
        try FileManager.default.copyItem(atPath: store.path, toPath: copy)
        try #require(rename(copy, store.path) == 0)
        let timeout = Task {
            try await Task.sleep(for: .seconds(10))
            task.cancel()
        }
        let message = await task.value
        timeout.cancel()
        #expect(message.contains("\(store.path) was replaced, moved or removed while it was watched"), "\(message)")
    }

    /// Two readers of one stack and a store file replaced under them: the one that looks first
    /// moves the stack to the file now at the path (as `readings(of:)` does); the other's
    /// poller must still end with the replacement, not read on in the new file's log, whose
    /// numbers are its own (this race made `values(of:)` miss the replacement).
    @Test func aPollerEndsWhenAnotherReaderOfItsStackMovedToTheNewFile() throws {
        let store = try TemporaryStore()
        let stack = try store.open()
        try stack.set(.number("0"), in: .user, forKey: "seed")
        try stack.flushSynchronously()
        var poller = try LogPoller(stack, filter: LogFilter(domain: .user))
        let copy = store.directory + "/copy.db"
        let other = try KeyValueStack(path: copy, options: .init(environment: ["XDG_RUNTIME_DIR": store.directory]))
        for value in 1...3 { try other.set(.number("\(value)"), in: .user, forKey: "seed") }
        try other.close()
        try #require(rename(copy, store.path) == 0)
        #expect(stack.reopenStoreIfReplaced(), "the other reader moves the stack to the new file")
        #expect {
            _ = try poller.poll()
        } throws: { error in
            (error as? PrefsError)?.message.contains("\(store.path) was replaced, moved or removed while it was watched") == true
        }
        var fresh = try LogPoller(stack, filter: LogFilter(domain: .user))
        #expect(try fresh.poll().records.isEmpty, "a poller started after the move reads the new file")
        try stack.set(.number("4"), in: .user, forKey: "seed")
        try stack.flushSynchronously()
        #expect(try fresh.poll().records.map(\.new) == ["4"])
    }

    /// A bulk with more sets than the log keeps writes only the records retention keeps,
    /// numbered as if all had been written; logging goes on afterwards on the same connection.
    @Test func aBulkLargerThanTheRetentionLogsWhatRetentionKeeps() throws {
        let store = try TemporaryStore()
        let stack = try store.open()
        try stack.set(.number("0"), in: .user, forKey: "first")
        try stack.flushSynchronously()
        try stack.setLogRetention(50)
        for i in 0..<200 { try stack.set(.number(String(i)), in: .switch, forKey: "k\(i)") }
        try stack.flushSynchronously()
        var records = try stack.history()
        #expect(records.count == 50)
        #expect(records.map(\.seq) == Array((152...201).reversed()).map(Int64.init))
        // A flush writes in key order; the log keeps the last 50 written.
        let written = (0..<200).map { "k\($0)" }.sorted()
        #expect(records.map(\.key) == Array(written.suffix(50).reversed()))
        #expect(records.allSatisfy { $0.op == "set" && $0.domain == .switch && $0.old == nil })
        #expect(try stack.value(in: .switch, forKey: "k0") == .number("0"))
        #expect(try stack.value(in: .switch, forKey: "k199") == .number("199"))
        try stack.set(.number("1"), in: .user, forKey: "after")
        try stack.flushSynchronously()
        records = try stack.history(limit: 2)
        #expect(records.map(\.key) == ["after", written.last])
        #expect(records.first?.seq == 202)
    }

    @Test func historyFiltersAndLimits() throws {
        let store = try TemporaryStore()
        let stack = try store.open()
        for i in 0..<5 { try stack.set(.number(String(i)), in: .user, forKey: "k") }
        try stack.flushSynchronously()  // coalesced: one change
        for i in 0..<3 { _ = try stack.incrementNow(in: .user, forKey: "n", by: Int64(i)) }
        let all = try stack.history()
        #expect(all.count == 4)
        #expect(try stack.history(LogFilter(domain: .user, key: "k")).map { $0.new ?? "" } == ["4"])
        #expect(try stack.history(limit: 2).map(\.key) == ["n", "n"])
        #expect(try stack.history(since: Int64(Date().timeIntervalSince1970 * 1000) + 60_000).isEmpty)
        try stack.setLogRetention(1)
        #expect(try stack.history().count == 1)
    }

    @Test func isoTimes() {
        #expect(ISOTime.format(milliseconds: 0) == "1970-01-01T00:00:00.000Z")
        #expect(ISOTime.format(milliseconds: 1_795_000_000_123) == "2026-11-18T11:06:40.123Z")
        #expect(ISOTime.parse("2026-11-18T11:06:40.123Z") == 1_795_000_000_123)
        #expect(ISOTime.parse("2026-11-18T13:06:40+02:00") == 1_795_000_000_000)
        #expect(ISOTime.parse("2026-11-18") != nil)
        #expect(ISOTime.parse("soon") == nil)
        // Out-of-range fields are refused, not rolled over into the next day or month.
        for text in ["2026-11-22T25:00:00Z", "2026-11-22T23:60:00Z", "2026-02-30", "2026-13-01", "2026-11-00", " 2026-11-22"] {
            #expect(ISOTime.parse(text) == nil, "\(text)")
        }
        #expect(ISOTime.parse("2024-02-29") != nil)
        #expect(ISOTime.parse("2026-11-22T23:59:60Z") != nil)
    }
}
