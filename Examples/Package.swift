// swift-tools-version: 6.1
import PackageDescription

// A small app on the prefs library, depending on the package by path. Build and test it with
// Examples/test (CI runs it): the `prefs` command changes a setting and the app reacts.
let package = Package(
    name: "PrefsExamples",
    dependencies: [.package(name: "prefs", path: "..")],
    targets: [
        .executableTarget(
            name: "settings-follower",
            dependencies: [.product(name: "PrefsCore", package: "prefs")]
        )
    ],
    swiftLanguageModes: [.v6]
)
