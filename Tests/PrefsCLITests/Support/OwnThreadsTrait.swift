import PrefsTestSupport
import Testing

/// Runs each test of a suite (or one test) in a child task whose preferred executor is
/// ``ElasticExecutor/shared``, so its body holds a thread of its own while it blocks (waiting
/// for a child process, a server, a sleep) and the cooperative pool's few threads — one per
/// core — stay free for the tests that compute. Without it, two blocking tests on a two-core
/// machine stop every other test of the run. (`withTaskExecutorPreference` around the body is
/// not enough: the test's own task goes on running on the pool thread it is on; a child task
/// starts on its preferred executor, and inherits the test's task-local values.)
struct OwnThreadsTrait: SuiteTrait, TestTrait, TestScoping {
    var isRecursive: Bool { true }

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        guard testCase != nil else { return try await function() }  // a suite's own scope: its tests get theirs
        try await withoutActuallyEscaping(function) { function in
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask(executorPreference: ElasticExecutor.shared) { try await function() }
                try await group.waitForAll()
            }
        }
    }
}

extension Trait where Self == OwnThreadsTrait {
    /// Each test's body on a thread of its own (``OwnThreadsTrait``).
    static var ownThreads: Self { OwnThreadsTrait() }
}
