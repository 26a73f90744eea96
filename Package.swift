// swift-tools-version: 6.1
import PackageDescription

// CI sets PREFS_STRICT=1 to build the project's own targets with warnings as errors.
let strict: [SwiftSetting] = Context.environment["PREFS_STRICT"] == nil ? [] : [.unsafeFlags(["-warnings-as-errors"])]

// The HTTP server `prefs serve` runs on: its application (PrefsServeApp) and the helper's main.
let httpServer: [Target.Dependency] = [
    .product(name: "Hummingbird", package: "hummingbird"),
    .product(name: "HummingbirdCore", package: "hummingbird"),
    .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
    .product(name: "Logging", package: "swift-log"),
    .product(name: "NIOCore", package: "swift-nio"),
    .product(name: "NIOPosix", package: "swift-nio"),
    .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
    .product(name: "HTTPTypes", package: "swift-http-types"),
]

let package = Package(
    name: "prefs",
    products: [
        .library(name: "PrefsCore", targets: ["PrefsCore"]),
        .library(name: "PrefsRemote", targets: ["PrefsRemote"]),
        .library(name: "PrefsSync", targets: ["PrefsSync"]),
        // For the benchmarks package (Benchmarks/Package.swift).
        .library(name: "PrefsServe", targets: ["PrefsServe"]),
        .executable(name: "prefs", targets: ["prefs"]),
        .executable(name: "prefs-http-get", targets: ["prefs-http-get"]),
        .executable(name: "prefs-sync", targets: ["prefs-sync"]),
        .executable(name: "prefs-serve", targets: ["prefs-serve"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
        // `swift package generate-documentation --target PrefsCore` (DocC; CI builds it).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", exact: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log.git", exact: "1.16.2"),
        // prefs serve: HTTP server and graceful shutdown (traits off: no swift-configuration).
        .package(url: "https://github.com/hummingbird-project/hummingbird", exact: "2.28.1", traits: []),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", exact: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio.git", exact: "2.101.3"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", exact: "1.35.2"),
        .package(url: "https://github.com/apple/swift-http-types.git", exact: "1.8.0"),
    ],
    targets: [
        // The library in layers, each SQLite-free below PrefsCore (the fuzz targets build them
        // as modules): the error type and system helpers; JSON; the input language (domains,
        // keys, value types, batch lines); the schema's pattern engine; flagd evaluation and
        // inspection. PrefsCore (store, stack, queue, history, schema, sync capture) re-exports
        // what its public API shows.
        .target(name: "PrefsBase", swiftSettings: strict),
        .target(name: "PrefsJSON", dependencies: ["PrefsBase"], swiftSettings: strict),
        .target(name: "PrefsInput", dependencies: ["PrefsBase", "PrefsJSON"], swiftSettings: strict),
        .target(name: "PrefsPatterns", dependencies: ["PrefsBase"], swiftSettings: strict),
        .target(name: "PrefsFlags", dependencies: ["PrefsBase", "PrefsJSON"], swiftSettings: strict),
        .target(
            name: "PrefsCore",
            dependencies: [
                "PrefsBase",
                "PrefsJSON",
                "PrefsInput",
                "PrefsPatterns",
                "PrefsFlags",
                "CPrefsSQLite",
                "CPrefsSystem",
                "CSQLite",
            ],
            swiftSettings: strict
        ),
        // The system SQLite (libsqlite3-dev; scripts/install links libsqlite3.a). PrefsCore's
        // own small layer over it lives in Sources/PrefsCore/SQLite.
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite"),
        // One C function of glibc's posix_spawn that Swift's Glibc module does not show.
        .target(name: "CPrefsSystem"),
        // sqlite3_db_config is variadic, which Swift cannot call.
        .target(
            name: "CPrefsSQLite",
            dependencies: ["CSQLite"]
        ),
        // The command line as a library (commands, parsing, output; `PrefsCommandLine.run`), so
        // tests run commands in process; `prefs` is its thin main.
        .target(
            name: "PrefsCLI",
            dependencies: [
                "PrefsCore", "PrefsHelperConfiguration",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict + [.unsafeFlags(["-Xfrontend", "-disable-concrete-type-metadata-mangled-name-accessors"])]
        ),
        .executableTarget(
            name: "prefs",
            dependencies: ["PrefsCLI"],
            swiftSettings: strict + [.unsafeFlags(["-Xfrontend", "-disable-concrete-type-metadata-mangled-name-accessors"])]
        ),
        // The options `prefs serve` and `prefs sync` hand their helper, as one encoded value
        // (declared once, in `prefs`; the helper decodes them). Foundation only.
        .target(name: "PrefsHelperConfiguration", swiftSettings: strict),
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
            dependencies: ["PrefsHelpers"],
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
            dependencies: ["PrefsHelpers"],
            swiftSettings: strict
        ),
        // The programs prefs-http-get and prefs-sync as functions (they print and exit, so
        // they are no library product): installed, the helpers are one binary, prefs-serve,
        // which runs them when called by their names (scripts/install links them to it).
        .target(
            name: "PrefsHelpers",
            dependencies: ["PrefsCore", "PrefsRemote", "PrefsSync", "PrefsHelperConfiguration"],
            swiftSettings: strict
        ),
        // prefs serve: the serving core (routing, OFREP encoding, ETags, limits) without
        // sockets, and the Hummingbird helper that `prefs serve` runs.
        .target(
            name: "PrefsServe",
            dependencies: ["PrefsCore"],
            swiftSettings: strict
        ),
        // prefs serve's Hummingbird application as a value (`ServeServer`: OFREP and the
        // inspector through ServeCore, event streams, limits, the access log, the poller), so
        // tests drive it without sockets; only prefs-serve and the tests link it (never `prefs`).
        .target(
            name: "PrefsServeApp",
            dependencies: ["PrefsCore", "PrefsServe"] + httpServer,
            swiftSettings: strict
        ),
        .executableTarget(
            name: "prefs-serve",
            dependencies: ["PrefsCore", "PrefsServe", "PrefsServeApp", "PrefsHelpers", "PrefsHelperConfiguration"] + httpServer,
            swiftSettings: strict
        ),
        // Helpers both test targets use (temporary directories, spawning detached programs);
        // Foundation only.
        .target(
            name: "PrefsTestSupport",
            dependencies: ["PrefsTestHarness"],
            path: "Tests/PrefsTestSupport",
            swiftSettings: strict
        ),
        // Limits how many tests run at once, before Swift Testing starts (Tests/PrefsTestHarness).
        .target(name: "PrefsTestHarness", path: "Tests/PrefsTestHarness"),
        .testTarget(
            name: "PrefsCoreTests",
            dependencies: ["PrefsCore", "PrefsTestSupport"]
        ),
        .testTarget(
            name: "PrefsServeTests",
            dependencies: [
                "PrefsServe", "PrefsServeApp", "PrefsCore", "PrefsTestSupport",
                // Driven in process by Tests/PrefsServeTests/ApplicationDriver.swift: no
                // HummingbirdTesting, whose client libraries (AsyncHTTPClient, swift-nio-ssl and
                // BoringSSL) took minutes of a fresh test build.
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ] + httpServer
        ),
        .testTarget(
            name: "PrefsCLITests",
            dependencies: [
                "prefs", "prefs-http-get", "prefs-sync", "prefs-serve", "PrefsCLI", "PrefsCore", "PrefsSync", "PrefsTestSupport",
            ],
            exclude: ["Fixtures"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
