import ArgumentParser
import FoundationEssentials
import Glibc
import PrefsCore
import PrefsHelperConfiguration

/// Helper binaries installed next to `prefs` (or on PATH): `prefs-http-get`, `prefs-sync`.
enum Helper {
    static func path(_ name: String) -> String? {
        let own = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let sibling = URL(fileURLWithPath: own).deletingLastPathComponent().appendingPathComponent(name).path
        if FileManager.default.isExecutableFile(atPath: sibling) { return sibling }
        for directory in (ProcessEnvironment.value("PATH") ?? "").split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Replaces this process with the helper, handing it the command's options as one encoded
    /// configuration in its environment (``HelperConfiguration``): its output, signals and
    /// exit code are the command's. An in-process run (tests) never replaces the process: with
    /// ``HelperConfiguration/dumpVariable`` in its environment it prints the configuration as
    /// the helper decodes and prints it, and returns; otherwise it refuses (exit 2).
    static func exec(_ path: String, configuration: some HelperConfiguration) throws {
        let text: String
        do {
            text = try configuration.encoded()
        } catch {
            throw PrefsError(.usage, "cannot encode the options for \(path): \(error)")
        }
        let kind = type(of: configuration)
        if CommandContext.active != nil {
            guard ProcessEnvironment.value(kind.dumpVariable) != nil else {
                throw PrefsError(.usage, "\(path) is started by the prefs binary only, not by a command run in process")
            }
            Output.standard.write(try kind.init(decoding: text).encoded() + "\n")
            return
        }
        setenv(kind.variable, text, 1)
        try exec(path, [URL(fileURLWithPath: path).lastPathComponent])
    }

    /// Replaces this process with the helper: its output, signals and exit code are the command's.
    static func exec(_ path: String, _ arguments: [String]) throws -> Never {
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) }
        argv.append(nil)
        execv(path, &argv)
        throw PrefsError(.unreachable, "cannot run \(path): \(String(cString: strerror(errno))); nothing synced, local data kept")
    }
}
