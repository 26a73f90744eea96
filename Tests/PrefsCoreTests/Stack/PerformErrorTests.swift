import Foundation
import PrefsCore
import Testing

/// `perform` names the failing operation in the message and keeps everything else of the
/// error: its reason, domain and key are what the single write would report.
@Suite("perform errors", .timeLimit(.minutes(5)))
struct PerformErrorTests {
    @Test func aVersionConflictInAListKeepsItsReasonDomainAndKey() throws {
        let store = try TemporaryStore()
        let stack = try store.open()
        try stack.set(.number("1"), in: .default, forKey: "b")
        // Written first: a queued write's version is the time of its flush, not of the read.
        try stack.flushSynchronously()
        let version = try #require(try stack.entry(in: .default, forKey: "b")).version
        let error = #expect(throws: PrefsError.self) {
            try stack.perform([
                .init(.set(.string("x")), in: .default, forKey: "a"),
                .init(.remove, in: .default, forKey: "b", if: .version(5)),
            ])
        }
        #expect(error?.kind == .preconditionFailed)
        #expect(error?.reason == .versionConflict(current: version))
        #expect(error?.domainName == "default")
        #expect(error?.key == "b")
        #expect(error?.message.hasPrefix("operation 2: ") == true, "\(String(describing: error))")
        #expect(try stack.storedValue(in: .default, forKey: "a") == nil)
    }

    @Test func anExistingKeyInAListIsAlreadyExists() throws {
        let store = try TemporaryStore()
        let stack = try store.open()
        try stack.set(.number("1"), in: .user, forKey: "b")
        let error = #expect(throws: PrefsError.self) {
            try stack.perform([
                .init(.increment(by: 1), in: .user, forKey: "c"),
                .init(.set(.number("2")), in: .user, forKey: "b", if: .absent),
            ])
        }
        #expect(error?.reason == .alreadyExists)
        #expect(error?.domainName == "user")
        #expect(error?.key == "b")
        #expect(error?.message.hasPrefix("operation 2: ") == true, "\(String(describing: error))")
    }

    @Test func theSameConflictAloneHasTheSameReasonAndNoNumber() throws {
        let store = try TemporaryStore()
        let stack = try store.open()
        try stack.set(.number("1"), in: .default, forKey: "b")
        // Written first: a queued write's version is the time of its flush, not of the read.
        try stack.flushSynchronously()
        let version = try #require(try stack.entry(in: .default, forKey: "b")).version
        let error = #expect(throws: PrefsError.self) {
            try stack.perform([.init(.remove, in: .default, forKey: "b", if: .version(5))])
        }
        #expect(error?.reason == .versionConflict(current: version))
        #expect(error?.key == "b")
        #expect(error?.message.hasPrefix("operation") == false, "\(String(describing: error))")
    }
}
