import Testing

extension Sandbox {
    /// Runs `prefs ARGS...` (no `--store`) in this process even when a word of it is one of
    /// ``binaryOnly``, and expects exit `status`: only for a command line that ends with
    /// `--help` or `-h`, which the table or the parser answers before any command runs (so
    /// `watch`, `serve`, `sync`… are read, never run: their run would take over the process).
    /// Another command line is recorded as an issue and not run.
    @discardableResult
    func runHelpInProcess(
        _ arguments: [String], expecting status: Int32 = 0, environment extra: [String: String] = [:],
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> RunResult {
        guard let last = arguments.last, last == "--help" || last == "-h" else {
            Issue.record("runHelpInProcess runs help only: prefs \(arguments.joined(separator: " "))", sourceLocation: sourceLocation)
            return RunResult(stdout: "", stderr: "", status: -1)
        }
        let result = Sandbox.runInProcess(arguments, stdin: nil, environment: environment(extra))
        #expect(
            result.status == status, "prefs \(arguments.joined(separator: " ")): expected exit \(status), got \(result)",
            sourceLocation: sourceLocation)
        return result
    }
}
