import Foundation

/// Whether `name` is an executable file in a directory of this process's `PATH`: what a test
/// that runs it by name (``spawnDetached(_:output:)``, `env NAME`) finds. Tests that need an
/// optional tool (tmux, zsh, fish, chromium, node, …) are enabled only when this is true, so
/// they are skipped with the reason where the tool is missing; run with a `PATH` that leaves a
/// tool out to see the skip.
public func toolInstalled(_ name: String) -> Bool {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
    return path.split(separator: ":").contains { FileManager.default.isExecutableFile(atPath: "\($0)/\(name)") }
}
