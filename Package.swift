// swift-tools-version: 6.0
import PackageDescription

// CI sets PREFS_STRICT=1 to build the project's own targets with warnings as errors.
let strict: [SwiftSetting] = Context.environment["PREFS_STRICT"] == nil ? [] : [.unsafeFlags(["-warnings-as-errors"])]

let package = Package(
    name: "prefs",
    products: [
        .library(name: "PrefsCore", targets: ["PrefsCore"]),
        .library(name: "PrefsRemote", targets: ["PrefsRemote"]),
        .library(name: "PrefsSync", targets: ["PrefsSync"]),
        .executable(name: "prefs", targets: ["prefs"]),
        .executable(name: "prefs-http-get", targets: ["prefs-http-get"]),
        .executable(name: "prefs-sync", targets: ["prefs-sync"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
    ],
    targets: [
        .target(
            name: "PrefsCore",
            dependencies: [
                "CPrefsSQLite",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            swiftSettings: strict
        ),
        // One C function: sqlite3_db_config is variadic, which Swift cannot call.
        .target(
            name: "CPrefsSQLite",
            dependencies: [.product(name: "GRDBSQLite", package: "GRDB.swift")]
        ),
        .executableTarget(
            name: "prefs",
            dependencies: [
                "PrefsCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "PrefsRemote",
            dependencies: ["PrefsCore", "CPrefsCurl"],
            swiftSettings: strict
        ),
        // libcurl for refresh's HTTP: its write callback gives a running limit on the body
        // (URLSession on Linux queues the whole decoded body for its delegate first), and
        // curl_easy_setopt is variadic, which Swift cannot call. Needs libcurl4-openssl-dev.
        .target(
            name: "CPrefsCurl",
            linkerSettings: [.linkedLibrary("curl")]
        ),
        .executableTarget(
            name: "prefs-http-get",
            dependencies: ["PrefsCore", "PrefsRemote"],
            swiftSettings: strict
        ),
        // Sync through PostgreSQL on libpq: kept out of PrefsCore and of the `prefs` binary
        // (which stays static); `prefs sync` runs the `prefs-sync` helper.
        .target(
            name: "PrefsSync",
            dependencies: ["PrefsCore", "CPrefsPQ"],
            swiftSettings: strict
        ),
        // libpq, PostgreSQL's own client library: connection strings and URIs, PG* variables,
        // service files, .pgpass, unix sockets, multiple hosts and sslmode behave as in psql.
        // Needs libpq-dev.
        .systemLibrary(name: "CPrefsPQ", path: "Sources/CPrefsPQ"),
        .executableTarget(
            name: "prefs-sync",
            dependencies: ["PrefsCore", "PrefsSync"],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "prefs-sync-bench",
            dependencies: ["PrefsCore", "PrefsSync"],
            path: "Benchmarks/SyncBench",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "prefs-queue-bench",
            dependencies: ["PrefsCore"],
            path: "Benchmarks/QueueBench",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "prefs-flag-bench",
            dependencies: ["PrefsCore"],
            path: "Benchmarks/FlagBench",
            swiftSettings: strict
        ),
        // Helpers both test targets use (temporary directories, spawning detached programs);
        // Foundation only.
        .target(
            name: "PrefsTestSupport",
            path: "Tests/PrefsTestSupport",
            swiftSettings: strict
        ),
        .testTarget(
            name: "PrefsCoreTests",
            dependencies: ["PrefsCore", "PrefsTestSupport", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        .testTarget(
            name: "PrefsCLITests",
            dependencies: [
                "prefs", "prefs-http-get", "prefs-sync", "PrefsCore", "PrefsTestSupport", .product(name: "GRDB", package: "GRDB.swift"),
            ],
            exclude: ["Fixtures"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
