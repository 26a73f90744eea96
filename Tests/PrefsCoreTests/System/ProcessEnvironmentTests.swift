import Foundation
import Glibc
import Testing

@testable import PrefsCore

@Suite("process environment", .timeLimit(.minutes(5)))
struct ProcessEnvironmentTests {
    // (No setenv here: tests run in parallel, and setenv while another thread reads the
    // environment is undefined behaviour.)
    @Test func itIsFoundationsEnvironment() {
        let environment = ProcessEnvironment.current()
        #expect(environment == ProcessInfo.processInfo.environment)
        #expect(!environment.isEmpty)
        #expect(ProcessEnvironment.value("PATH") == environment["PATH"])
        #expect(ProcessEnvironment.value("PREFS_ENVIRONMENT_UNSET_\(getpid())") == nil)
    }
}
