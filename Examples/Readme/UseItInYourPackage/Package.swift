// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "App",
    platforms: [.macOS(.v15)],
    dependencies: [
        // From the repository: .package(url: "<repository URL>", branch: "main"), the URL ending in
        // /firestore-feed (no release is tagged yet); or a local checkout (SwiftPM names a path dependency after
        // its folder, here firestore-feed):
        .package(path: "../firestore-feed"),
    ],
    targets: [
        .executableTarget(name: "App", dependencies: [
            .product(name: "FirestoreREST", package: "firestore-feed"),
            .product(name: "FirestoreFeed", package: "firestore-feed"),
            .product(name: "FirestoreTesting", package: "firestore-feed"),  // record and replay (README's cassette block)
        ]),
        // Record and replay in your own tests (cassettes, ReplayTransport, ImmediateClock):
        .testTarget(name: "AppTests", dependencies: [
            "App", .product(name: "FirestoreTesting", package: "firestore-feed"),
        ]),
    ]
)
