import Foundation
import Glibc
import Testing

@testable import PrefsCore

@Suite("process environment")
struct ProcessEnvironmentTests {
    @Test func itIsFoundationsEnvironment() {
        setenv("PREFS_ENVIRONMENT_TEST", "a=b", 1)
        setenv("PREFS_ENVIRONMENT_EMPTY", "", 1)
        defer {
            unsetenv("PREFS_ENVIRONMENT_TEST")
            unsetenv("PREFS_ENVIRONMENT_EMPTY")
        }
        let environment = ProcessEnvironment.current()
        #expect(environment == ProcessInfo.processInfo.environment)
        #expect(environment["PREFS_ENVIRONMENT_TEST"] == "a=b")
        #expect(ProcessEnvironment.value("PREFS_ENVIRONMENT_EMPTY") == "")
        #expect(ProcessEnvironment.value("PREFS_ENVIRONMENT_UNSET_\(getpid())") == nil)
    }
}
