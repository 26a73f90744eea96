// swift-tools-version: 6.1
import PackageDescription

// The benchmarks, apart from the main package (as swift-nio keeps its own) so that building
// prefs does not build them. scripts/bench builds them in release mode:
//   swift build -c release --package-path Benchmarks --product prefs-flag-bench
let package = Package(
    name: "prefs-benchmarks",
    dependencies: [
        .package(name: "prefs", path: "..")
    ],
    targets: [
        .executableTarget(
            name: "prefs-sync-bench",
            dependencies: [.product(name: "PrefsCore", package: "prefs"), .product(name: "PrefsSync", package: "prefs")],
            path: "SyncBench"
        ),
        .executableTarget(
            name: "prefs-queue-bench",
            dependencies: [.product(name: "PrefsCore", package: "prefs")],
            path: "QueueBench"
        ),
        .executableTarget(
            name: "prefs-serve-bench",
            dependencies: [.product(name: "PrefsCore", package: "prefs"), .product(name: "PrefsServe", package: "prefs")],
            path: "ServeBench"
        ),
        .executableTarget(
            name: "prefs-flag-bench",
            dependencies: [.product(name: "PrefsCore", package: "prefs")],
            path: "FlagBench"
        ),
    ],
    swiftLanguageModes: [.v6]
)
