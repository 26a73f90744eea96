import PrefsTestSupport
import Testing

/// Runs each test of a suite (or one test) with ``ElasticExecutor/shared`` as its task's
/// preferred executor, so its body holds a thread of its own while it blocks (waiting for a
/// child process, a server, a sleep) and the cooperative pool's few threads — one per core —
/// stay free for the tests that compute. Without it, two blocking tests on a two-core machine
/// stop every other test of the run: a full run kept the two cores 60% busy.
struct OwnThreadsTrait: SuiteTrait, TestTrait, TestScoping {
    var isRecursive: Bool { true }

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        guard testCase != nil else { return try await function() }  // a suite's own scope: its tests get theirs
        try await withTaskExecutorPreference(ElasticExecutor.shared) { try await function() }
    }
}

extension Trait where Self == OwnThreadsTrait {
    /// Each test's body on a thread of its own (``OwnThreadsTrait``).
    static var ownThreads: Self { OwnThreadsTrait() }
}
