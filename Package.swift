// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "FirestoreFeed",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "FirestoreREST", targets: ["FirestoreREST"]),
        .library(name: "FirestoreFeed", targets: ["FirestoreFeed"]),
        .executable(name: "firestore-feed", targets: ["firestore-feed"]),
    ],
    targets: [
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"])]
        ),
        .target(
            name: "FirestoreREST",
            dependencies: ["CCurl", "COpenSSL"]
        ),
        .target(
            name: "FirestoreFeed",
            dependencies: ["FirestoreREST"]
        ),
        .executableTarget(
            name: "firestore-feed",
            dependencies: ["FirestoreFeed", "FirestoreREST"]
        ),
        .executableTarget(
            name: "FirestoreBenchmarks",
            dependencies: ["FirestoreFeed", "FirestoreREST"]
        ),
        .executableTarget(
            name: "FirestoreSoak",
            dependencies: ["FirestoreFeed", "FirestoreREST"]
        ),
        .testTarget(
            name: "FirestoreRESTTests",
            dependencies: ["FirestoreREST"]
        ),
        .testTarget(
            name: "FirestoreFeedTests",
            dependencies: ["FirestoreFeed", "FirestoreREST"]
        ),
        .testTarget(
            name: "ConformanceTests",
            dependencies: ["FirestoreFeed", "FirestoreREST"],
            resources: [.copy("Resources")]
        ),
        .testTarget(
            name: "EmulatorTests",
            dependencies: ["FirestoreFeed", "FirestoreREST", "firestore-feed", "FirestoreBenchmarks", "FirestoreSoak"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
