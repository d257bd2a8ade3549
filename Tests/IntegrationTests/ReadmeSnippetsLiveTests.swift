import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

/// The Swift blocks of README.md and of the DocC articles, run as their executables (`Examples/Readme`, compiled as
/// written by every build; `ReadmeSnippetTests` keeps them equal to their blocks) against the emulator, with the data
/// the demo seeds in the project they name (`demo-fruits`), and README's manifest through `swift package
/// dump-package`. Serialized: the blocks share that project, which each test seeds afresh. Not run: the blocks that
/// need production credentials or keys (`NamedCredentials`), or that wait on data these tests do not make
/// (`DurableCheckpoints`, `VectorSearch`, `BulkWriter`, `TestSecurityRules`, `MirrorToSQLite`, `MirrorToPostgres`:
/// their rules are the live tests named in their articles).
@Suite(.serialized, .timeLimit(.minutes(5))) struct ReadmeSnippetsLiveTests {
    static let project = "demo-fruits"
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The demo's fruits (apple, banana, cherry, date; cherry is no favourite) and fig, a favourite.
    static func seed(_ host: String) async throws -> Firestore {
        let db = try Firestore.emulator(host: host, projectID: project)
        for old in try await db.collection("fruits").listDocuments() { try await old.reference.delete() }
        let fruits: [(String, String, Bool, Int64)] = [
            ("apple", "Apple", true, 52), ("banana", "Banana", true, 89), ("cherry", "Cherry", false, 50),
            ("date", "Date", true, 282), ("fig", "Fig", true, 74),
        ]
        for (id, name, isFavourite, calories) in fruits {
            try await db.document("fruits/\(id)").setData([
                "name": .value(.string(name)), "isFavourite": .value(.boolean(isFavourite)),
                "calories": .value(.integer(calories)),
            ])
        }
        return db
    }

    /// A block's executable, line-buffered (`stdbuf -oL`: Swift's `print` buffers a pipe), in `folder`.
    final class Run: Sendable {
        let process: Process
        let stdout: PipeCollector
        let stderr: PipeCollector

        init(_ snippet: String, host: String?, in folder: URL? = nil, environment extra: [String: String] = [:])
            throws
        {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/stdbuf")
            process.arguments = ["-oL", CLIProcess.builtExecutable("Readme" + snippet).path]
            var environment = ProcessInfo.processInfo.environment
            environment["FIRESTORE_EMULATOR_HOST"] = host
            environment["GOOGLE_CLOUD_PROJECT"] = nil
            environment["GCLOUD_PROJECT"] = nil
            environment.merge(extra) { $1 }
            process.environment = environment
            if let folder { process.currentDirectoryURL = folder }
            let out = Pipe()
            let err = Pipe()
            process.standardOutput = out
            process.standardError = err
            process.standardInput = FileHandle.nullDevice
            try process.run()
            self.process = process
            stdout = PipeCollector(out.fileHandleForReading)
            stderr = PipeCollector(err.fileHandleForReading)
        }

        deinit { process.end() }

        /// The lines printed once `condition` holds for them, or after 60 s.
        func lines(until condition: ([String]) -> Bool) async throws -> [String] {
            for _ in 0..<6_000 where !condition(stdout.lines) && process.isRunning {
                try await Task.sleep(for: .milliseconds(10))
            }
            return stdout.lines
        }

        /// The exit status and every line, once the block ends (after 60 s it is ended).
        func finish() async -> (status: Int32, lines: [String], stderr: String) {
            let status = await process.exitStatus(timeout: 60)
            _ = await stdout.all()
            return (status, stdout.lines, String(decoding: await stderr.all(), as: UTF8.self))
        }
    }

    /// README's first example: the favourites, Fig (which it writes) among them, each added once.
    @Test func quickStartPrintsTheFavourites() async throws {
        let host = try EmulatorEnvironment.requireHost()
        _ = try await Self.seed(host)
        let run = try Run("QuickStart", host: host)
        let first = ["added Apple", "added Banana", "added Date", "added Fig"]
        #expect(
            try await run.lines { $0.count >= first.count } == first,
            "stderr: \(String(decoding: run.stderr.data, as: UTF8.self))")
    }

    /// The swift-log block (against `Examples/Shims/LoggingShape`): the read succeeds, and the client's debug line for
    /// it reaches the `Logger` with its metadata.
    @Test func loggingAndMetricsLogsTheRequestThroughTheLogger() async throws {
        let host = try EmulatorEnvironment.requireHost()
        _ = try await Self.seed(host)
        let result = await (try Run("LoggingAndMetrics", host: host)).finish()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.lines == ["apple exists: true"])
        #expect(result.stderr.contains("debug firestore: "), "\(result.stderr)")
        #expect(result.stderr.contains("firestore.method="), "\(result.stderr)")
        #expect(result.stderr.contains("firestore.project=demo-fruits"), "\(result.stderr)")
    }

    /// The swift-service-lifecycle block (against `Examples/Shims`): it prints the order there is, and SIGTERM, a
    /// graceful shutdown, ends the feed and the program with exit 0 after the client's shutdown.
    @Test func runningInAServiceEndsOnSIGTERMWithExit0() async throws {
        let host = try EmulatorEnvironment.requireHost()
        let db = try Firestore.emulator(host: host, projectID: "demo-orders")
        for old in try await db.collection("orders").listDocuments() { try await old.reference.delete() }
        try await db.document("orders/o1").setData(["item": "Apple"])
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("readme-service-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let run = try Run("RunningInAService", host: host, in: folder)
        #expect(
            try await run.lines { $0.count >= 1 } == ["added o1"],
            "stderr: \(String(decoding: run.stderr.data, as: UTF8.self))")
        kill(run.process.processIdentifier, SIGTERM)
        let result = await run.finish()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.lines == ["added o1", "stopped"])
    }

    @Test func watchAQueryPrintsTheChangesAsREADMESays() async throws {
        let host = try EmulatorEnvironment.requireHost()
        let db = try await Self.seed(host)
        let run = try Run("WatchAQuery", host: host)
        let first = [
            "added Apple - -> 0", "added Banana - -> 1", "added Date - -> 2", "added Fig - -> 3",
            #"favourites: ["Apple", "Banana", "Date", "Fig"]"#,
        ]
        #expect(try await run.lines { $0.count >= first.count } == first)
        try await db.document("fruits/banana").updateData(["name": "Plantain"])
        // WatchingAQuery: "With the demo's data, renaming Banana to Plantain prints `modified Plantain 1 -> 3`."
        let all = first + ["modified Plantain 1 -> 3", #"favourites: ["Apple", "Date", "Fig", "Plantain"]"#]
        #expect(
            try await run.lines { $0.count >= all.count } == all,
            "stderr: \(String(decoding: run.stderr.data, as: UTF8.self))")
    }

    /// The feed group block: one member takes both shards of a new group (split at cherry by a keys scan) and prints
    /// every fruit once, as added.
    @Test func aFeedGroupMemberDeliversBothShards() async throws {
        let host = try EmulatorEnvironment.requireHost()
        let db = try await Self.seed(host)
        _ = try await db.recursiveDelete(db.collection("feedGroups"))
        let run = try Run("FeedGroup", host: host)
        let lines = try await run.lines { $0.count >= 5 }
        #expect(
            lines.sorted() == [
                "shard 0 generation 1: added apple", "shard 0 generation 1: added banana",
                "shard 1 generation 1: added cherry", "shard 1 generation 1: added date",
                "shard 1 generation 1: added fig",
            ], "stderr: \(String(decoding: run.stderr.data, as: UTF8.self))")
        // SIGTERM leaves the group: the loop ends, the leases are released, the block exits 0.
        kill(run.process.processIdentifier, SIGTERM)
        let result = await run.finish()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.lines.last == "left the feed group")
        let owners = try await db.collection("feedGroups/fruit-mailer/shards").getDocuments().documents.map {
            $0.get("owner")
        }
        #expect(owners == [.string(""), .string("")])
    }

    /// The delta block in project `demo`: the first poll is a keys scan, the one that finds the second order is not.
    @Test func deltaPollingFindsTheSecondOrderWithoutAScan() async throws {
        let host = try EmulatorEnvironment.requireHost()
        let db = try Firestore.emulator(host: host, projectID: "demo")
        for old in try await db.collection("orders").listDocuments() { try await old.reference.delete() }
        let result = await (try Run("DeltaPolling", host: host)).finish()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.lines == [#"["added o1"] keys scan: firstPoll"#, #"["added o2"] keys scan: none"#])
        let orders = try await db.collection("orders").getDocuments()
        #expect(
            orders.documents.map { document -> Bool in
                guard case .timestamp? = document.get("updatedAt") else { return false }
                return true
            } == [true, true])
    }

    /// The server SDK block: the transforms' results in path order, a read as of the write, a parent-only document
    /// listed, and the emulator counting, beside a sum, only the documents that have the summed field.
    @Test func writeResultsPrintTheTransformsAndTheAggregation() async throws {
        let host = try EmulatorEnvironment.requireHost()
        let db = try await Self.seed(host)
        for path in ["counters/visits", "users/ann/orders/o1"] { try await db.document(path).delete() }
        try await db.document("fruits/apple").updateData(["kcal": 52])
        try await db.document("fruits/fig").updateData(["kcal": 74])
        try await db.document("users/ann/orders/o1").setData(["item": "Apple"])  // users/ann exists only as a parent
        let result = await (try Run("WriteResults", host: host)).finish()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.lines.count == 3, "\(result.lines)")
        let time = try #require(result.lines.first?.components(separatedBy: "\"").dropFirst().first)
        #expect(try Timestamp(rfc3339: time) > Timestamp(rfc3339: "2024-01-01T00:00:00Z"))
        #expect(result.lines.first == #"[""# + time + #"", 42]"#)
        #expect(Array(result.lines.dropFirst()) == ["integer(126)", #"42 ["ann"] integer(2)"#])
    }

    /// The parity block of issue 28: a batch's commit time, a read-only transaction's sum, a stream in order with
    /// read times, the emulator's metric-less explanation, a bundle, and a raw PATCH.
    @Test func readsStreamsBundlesPrintsWhatTheCommentsSay() async throws {
        let host = try EmulatorEnvironment.requireHost()
        let db = try Firestore.emulator(host: host, projectID: "demo-accounts")
        for old in try await db.collection("accounts").listDocuments() { try await old.reference.delete() }
        let result = await (try Run("ReadsStreamsBundles", host: host)).finish()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.lines == [
                "true", "100", "b true", "a true", "true 2", "true",
                "projects/demo-accounts/databases/(default)/documents/accounts/c",
            ])
    }

    @Test func mapDocumentsDecodesWhatItWroteAndReportsTheRest() async throws {
        let host = try EmulatorEnvironment.requireHost()
        _ = try await Self.seed(host)
        let result = await (try Run("MapDocuments", host: host)).finish()
        #expect(result.status == 0, "\(result.stderr)")
        // The other four fruits have no kcal: with .ignore they are failures, not an error.
        #expect(result.lines == [#"Apple 52 true ["Apple"] 4"#])
    }

    @Test func keepAListInSyncEndsWithTheFavourites() async throws {
        let host = try EmulatorEnvironment.requireHost()
        _ = try await Self.seed(host)
        let run = try Run("KeepAListInSync", host: host)
        let favourites = #"["apple", "banana", "date", "fig"]"#
        let lines = try await run.lines { $0.contains(favourites) && $0.last == "4" }
        #expect(lines.contains(favourites), "\(lines)")
        #expect(lines.last == "4", "\(lines)")
    }

    @Test func writingDataWritesTheValuesAndTheRefusedBatchWritesNothing() async throws {
        let host = try EmulatorEnvironment.requireHost()
        let db = try Firestore.emulator(host: host, projectID: "demo-writes")
        for old in try await db.collection("fruits").listDocuments() { try await old.reference.delete() }
        let result = await (try Run("WritingData", host: host)).finish()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.lines == ["nothing written: not-found", "lime exists: false"])
        let kiwi = try await db.document("fruits/kiwi").getDocument()
        #expect(kiwi.get("name") == .string("Kiwi"))
        #expect(kiwi.get("isFavourite") == .boolean(true))
        #expect(kiwi.get("kcal") == .integer(61))  // the refused batch's increment was not applied
        #expect(kiwi.get("price") == .double(0.45))
        #expect(kiwi.get("tags") == .array([.string("green"), .string("fuzzy")]))
        #expect(kiwi.get("origin") == .map(["country": .string("NZ")]))
        #expect(kiwi.get("orchard") == .geoPoint(GeoPoint(latitude: -37.7, longitude: 176.2)))
    }

    @Test func firestoreQueryStoreHoldsTheDecodedFruits() async throws {
        let host = try EmulatorEnvironment.requireHost()
        _ = try await Self.seed(host)
        let result = await (try Run("FirestoreQueryStore", host: host)).finish()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.lines == [#"fruits: ["Apple", "Banana", "Cherry", "Date", "Fig"] problem: none"#])
    }

    @Test func applicationDefaultUsesTheEmulatorWhenItIsSet() async throws {
        let host = try EmulatorEnvironment.requireHost()
        _ = try await Self.seed(host)
        let result = await
            (try Run(
                "ApplicationDefault", host: host, environment: ["GOOGLE_CLOUD_PROJECT": Self.project])).finish()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.lines == ["apple exists: true"])
    }

    /// Records through the emulator, then replays the file with no emulator at all.
    @Test func recordAndReplayRecordsOnceThenReplaysOffline() async throws {
        let host = try EmulatorEnvironment.requireHost()
        _ = try await Self.seed(host)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("readme-replay-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let played =
            "failed-precondition: cassette: no unplayed interaction for POST "
            + "/v1/projects/demo-fruits/databases/(default)/documents:runQuery: interaction 0 matched and was played "
            + "(allowPlaybackRepeats repeats the last one)"
        let inMemory = #"in memory: ["added apple", "added banana", "added date", "added fig"]"#

        let recording = await (try Run("RecordAndReplay", host: host, in: folder)).finish()
        #expect(recording.status == 0, "\(recording.stderr)")
        #expect(recording.lines == [#"recorded: ["apple", "banana", "date", "fig"]"#, inMemory, played])
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("fruits-cassette.json").path))

        let replaying = await (try Run("RecordAndReplay", host: nil, in: folder)).finish()
        #expect(replaying.status == 0, "\(replaying.stderr)")
        #expect(replaying.lines == [#"replayed: ["apple", "banana", "date", "fig"]"#, inMemory, played])
    }

    /// README's manifest, as written, is a valid manifest whose dependency is this package (`firestore-feed`, a
    /// checkout beside the app); with the repository form of its comment instead, a URL ending in /firestore-feed
    /// gives the same package at branch main (no release is tagged). The products it names are this package's.
    @Test func theManifestResolvesToThisPackage() async throws {
        let manifest = try String(
            contentsOf: Self.root.appendingPathComponent("Examples/Readme/UseItInYourPackage/Package.swift"),
            encoding: .utf8)
        let checkout = try await Self.dumpPackage(manifest)
        #expect(
            Self.first(checkout["dependencies"])?["fileSystem"].flatMap(Self.first)?["identity"] == "firestore-feed")

        let release = try #require(
            manifest.components(separatedBy: "// From the repository: ").dropFirst().first?.components(
                separatedBy: "), "
            )
            .first)
        let filled =
            release.replacingOccurrences(
                of: "<repository URL>", with: "https://example.invalid/owner/firestore-feed.git") + "),"
        let tagged = try await Self.dumpPackage(
            manifest.replacingOccurrences(of: #".package(path: "../firestore-feed"),"#, with: filled))
        let source = Self.first(tagged["dependencies"])?["sourceControl"].flatMap(Self.first)
        #expect(source?["identity"] == "firestore-feed")
        #expect(source?["requirement"]?["branch"].flatMap(Self.first) == "main", "\(tagged)")

        let ours = try await Self.dumpPackage(
            try String(contentsOf: Self.root.appendingPathComponent("Package.swift"), encoding: .utf8))
        let products = Set(ours["products"]?.arrayValue?.compactMap { $0["name"]?.stringValue } ?? [])
        for name in ["FirestoreREST", "FirestoreFeed", "FirestoreTesting"] {
            #expect(products.contains(name))
            #expect(manifest.contains(#".product(name: "\#(name)", package: "firestore-feed")"#))
        }
    }

    /// The first element of an array.
    static func first(_ value: JSONValue?) -> JSONValue? { value?.arrayValue?.first }

    /// `swift package dump-package` of `manifest` in a folder of its own (no dependency is fetched).
    static func dumpPackage(_ manifest: String) async throws -> JSONValue {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("readme-app-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("Sources/App"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(manifest.utf8).write(to: folder.appendingPathComponent("Package.swift"))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["swift", "package", "--package-path", folder.path, "dump-package"]
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let stdout = PipeCollector(out.fileHandleForReading)
        let stderr = PipeCollector(err.fileHandleForReading)
        let status = await process.exitStatus(timeout: 120)
        let text = String(decoding: await stderr.all(), as: UTF8.self)
        #expect(status == 0, "dump-package: \(text)")
        return try JSONValue.parse(await stdout.all())
    }
}
