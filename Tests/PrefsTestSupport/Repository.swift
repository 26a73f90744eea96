import Foundation

/// The checkout's top directory (where Package.swift is), found from this file's place in it,
/// so a test reads README.md, docs/, examples/ or .ci/run wherever its own file lives.
public let repositoryRoot: String = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("../..").standardized.path
