// swift-tools-version:6.0
import PackageDescription

/// The Swift blocks of README.md and of the DocC articles (`Sources/*/*.docc/*.md`), one executable each, compiled as
/// written from `Examples/Readme/<name>/main.swift` (`ReadmeSnippetTests` keeps each file equal to its block;
/// `ReadmeSnippetsLiveTests` runs them on the emulator).
let readmeSnippets = [
    "QuickStart", "WatchAQuery", "DeltaPolling", "WriteResults", "MapDocuments", "KeepAListInSync",
    "FirestoreQueryStore", "ApplicationDefault", "NamedCredentials", "RecordAndReplay", "DurableCheckpoints",
    "VectorSearch", "BulkWriter", "TestSecurityRules", "ReadsStreamsBundles", "WritingData", "FeedGroup",
    "LoggingAndMetrics", "RunningInAService", "MirrorToSQLite", "MirrorToPostgres", "PublishToPubSub",
    "LiveListInVapor", "LiveListInHummingbird",
]

/// The blocks written against swift-log, swift-service-lifecycle, Vapor or Hummingbird, which this package cannot depend
/// on: they compile against the shapes of those APIs in `Examples/Shims` (`import Logging` in the block is
/// `import LoggingShape` in its file, `import ServiceLifecycle` is `import ServiceLifecycleShape`, `import Vapor` is
/// `import VaporShape`, `import Hummingbird` is `import HummingbirdShape`); and the blocks of products beside
/// FirestoreFeed.
let readmeSnippetShims: [String: [Target.Dependency]] = [
    "LoggingAndMetrics": ["LoggingShape"],
    "RunningInAService": ["LoggingShape", "ServiceLifecycleShape"],
    "MirrorToPostgres": ["FirestorePostgres"],
    "PublishToPubSub": ["FirestorePubSub"],
    "LiveListInVapor": ["VaporShape"],
    "LiveListInHummingbird": ["HummingbirdShape"],
]

let package = Package(
    name: "FirestoreFeed",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "FirestoreREST", targets: ["FirestoreREST"]),
        .library(name: "FirestoreFeed", targets: ["FirestoreFeed"]),
        .library(name: "FirestoreTesting", targets: ["FirestoreTesting"]),
        // The PostgreSQL mirror, a product of its own so that a package that does not use it never links libpq.
        .library(name: "FirestorePostgres", targets: ["FirestorePostgres"]),
        .library(name: "FirestorePubSub", targets: ["FirestorePubSub"]),
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
        // nghttp2, the HTTP/2 framing of the gRPC channel (libcurl sets up its connections).
        .systemLibrary(
            name: "CNghttp2",
            pkgConfig: "libnghttp2",
            providers: [.apt(["libnghttp2-dev"])]
        ),
        // SQLite 3, for the feed's durable checkpoints (FeedCheckpointStore).
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // libpq, for the PostgreSQL mirror (the FirestorePostgres product only).
        .systemLibrary(
            name: "CPostgres",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"])]
        ),
        // The wire, below the Firestore API: JSON, Protobuf, curl HTTP, HTTP/2 and gRPC, with the error type and the
        // primitives the codecs need. No product: FirestoreREST re-exports what users need.
        .target(
            name: "FirestoreWire",
            dependencies: ["CCurl", "COpenSSL", "CNghttp2"]
        ),
        .target(
            name: "FirestoreREST",
            dependencies: ["FirestoreWire", "CCurl", "COpenSSL", "CNghttp2"]
        ),
        .target(
            name: "FirestoreFeed",
            dependencies: ["FirestoreREST", "FirestoreWire", "COpenSSL", "CSQLite"]
        ),
        // A FeedSink in PostgreSQL over libpq (PostgresMirror).
        .target(
            name: "FirestorePostgres",
            dependencies: ["FirestoreFeed", "FirestoreREST", "FirestoreWire", "CPostgres"]
        ),
        // Record and replay for users testing their own code: cassettes, transports, a clock, an HTTP server.
        .target(
            name: "FirestorePubSub",
            dependencies: ["FirestoreFeed", "FirestoreREST", "FirestoreWire", "COpenSSL"]
        ),
        .target(
            name: "FirestoreTesting",
            dependencies: ["FirestoreFeed", "FirestoreREST"]
        ),
        // The command-line tool's commands, option declarations and parsers; the executable is a thin main.
        .target(
            name: "FirestoreFeedCLI",
            dependencies: [
                "FirestoreFeed", "FirestoreREST", "FirestoreTesting", "FirestorePostgres", "FirestorePubSub",
            ]
        ),
        .executableTarget(
            name: "firestore-feed",
            dependencies: ["FirestoreFeedCLI"]
        ),
        // Developer tools of this repository, not shipped as products.
        .executableTarget(
            name: "RecordRecordings",
            dependencies: ["FirestoreFeedCLI", "FirestoreREST", "FirestoreTesting"]
        ),
        .executableTarget(
            name: "FirestoreBenchmarks",
            dependencies: [
                "FirestoreFeed", "FirestorePostgres", "FirestorePubSub", "FirestoreREST", "FirestoreTesting",
            ]
        ),
        .executableTarget(
            name: "FirestoreSoak",
            dependencies: ["FirestoreFeed", "FirestoreREST", "FirestoreTesting"]
        ),
        // Breaks out of feeds in top-level code and in a function and counts what follows (FeedLeaveLiveTests).
        .executableTarget(
            name: "FeedLeaveCheck",
            dependencies: ["FirestoreFeed", "FirestoreREST"]
        ),
        // Shuts a busy client down and counts what is left of it in its own process (ShutdownLiveTests).
        .executableTarget(
            name: "ShutdownCheck",
            dependencies: ["FirestoreFeed", "FirestoreREST"]
        ),
        // The shapes of swift-log's and swift-service-lifecycle's APIs that two snippets compile against (not products;
        // named so as never to clash with the real `Logging` and `ServiceLifecycle` in a user's graph).
        .target(name: "LoggingShape", path: "Examples/Shims/LoggingShape"),
        .target(
            name: "ServiceLifecycleShape", dependencies: ["LoggingShape"], path: "Examples/Shims/ServiceLifecycleShape"),
        // The shapes of Vapor's and Hummingbird's APIs that the live-list route blocks compile against.
        .target(name: "VaporShape", path: "Examples/Shims/VaporShape"),
        .target(name: "HummingbirdShape", path: "Examples/Shims/HummingbirdShape"),
        // Test doubles and helpers shared by the test targets (used only by tests).
        .target(
            name: "FirestoreTestSupport",
            dependencies: ["FirestoreFeed", "FirestoreREST", "FirestoreTesting", "FirestorePubSub"],
            path: "Tests/TestSupport"
        ),
        // Unit tests: no emulator, no network, no child process.
        .testTarget(
            name: "FirestoreRESTTests",
            dependencies: ["FirestoreREST", "FirestoreTesting", "FirestoreTestSupport"]
        ),
        .testTarget(
            name: "FirestoreFeedTests",
            dependencies: ["FirestoreFeed", "FirestoreREST", "FirestoreTesting", "FirestoreTestSupport", "CSQLite"]
        ),
        // The PostgreSQL mirror against a real server (Scripts/test starts one: FIRESTORE_FEED_TEST_POSTGRES_URL).
        .testTarget(
            name: "FirestorePubSubTests",
            dependencies: ["FirestorePubSub", "FirestoreFeed", "FirestoreREST", "FirestoreTestSupport"]
        ),
        .testTarget(
            name: "FirestorePostgresTests",
            dependencies: ["FirestorePostgres", "FirestoreFeed", "FirestoreREST", "FirestoreTestSupport"]
        ),
        .testTarget(
            name: "FirestoreTestingTests",
            dependencies: ["FirestoreREST", "FirestoreTesting", "FirestoreTestSupport"]
        ),
        .testTarget(
            name: "ConformanceTests",
            dependencies: ["FirestoreFeed", "FirestoreREST", "FirestoreTesting", "FirestoreTestSupport"],
            resources: [.copy("Resources")]
        ),
        .testTarget(
            name: "CLITests",
            dependencies: ["FirestoreFeedCLI", "FirestoreFeed", "FirestoreREST", "FirestoreTesting"]
        ),
        // Tests that load the emulator on purpose (crowds of pollers, contended transactions, 10,000-document
        // queries). Scripts/test runs them after the rest, one at a time, with the emulator to themselves.
        .testTarget(
            name: "LoadTests",
            dependencies: [
                "FirestoreFeed", "FirestoreREST", "FirestoreTesting", "FirestoreTestSupport", "firestore-feed",
            ]
        ),
        // The emulator, loopback servers and child processes; `swift test --skip 'IntegrationTests|LoadTests'` leaves
        // them out with the load tests.
        .testTarget(
            name: "IntegrationTests",
            dependencies: [
                "FirestoreFeed", "FirestorePostgres", "FirestorePubSub", "FirestoreREST", "FirestoreTesting",
                "FirestoreTestSupport", "firestore-feed",
                "RecordRecordings", "FirestoreBenchmarks", "FirestoreSoak", "FeedLeaveCheck", "ShutdownCheck",
            ] + readmeSnippets.map { .target(name: "Readme" + $0) }
        ),
    ]
        + readmeSnippets.map { name in
            .executableTarget(
                name: "Readme" + name,
                dependencies: ["FirestoreFeed", "FirestoreREST", "FirestoreTesting"] + (readmeSnippetShims[name] ?? []),
                path: "Examples/Readme/" + name)
        },
    swiftLanguageModes: [.v6]
)
