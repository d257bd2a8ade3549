import FirestoreFeed
import FirestoreREST
import FirestoreTestSupport
import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The backfill of `mirror(into:)` on the emulator (issue 36): a collection loaded into an SQLite mirror in pages at
/// one read time, a load interrupted after its first page going on from its cursor at the same time, writes made
/// after that time arriving through the Listen tail, and the `firestore-feed mirror` command ending on SIGTERM.
@Suite(.timeLimit(.minutes(4))) struct MirrorBackfillLiveTests {
    /// The backfill's pages as `loaded@readTime` (`complete` marked), and the feed's resumptions.
    final class Events: Sendable {
        let pages = Mutex<[(loaded: Int, readTime: Timestamp, complete: Bool, billed: Int)]>([])
        let resumed = Mutex<[Timestamp?]>([])
        func note(_ event: FeedEvent) {
            switch event {
            case .backfillPage(let loaded, let readTime, let complete, let statistics):
                pages.withLock { $0.append((loaded, readTime, complete, statistics.billedReads)) }
            case .resumedFromCheckpoint(_, let readTime): resumed.withLock { $0.append(readTime) }
            default: break
            }
        }
    }

    /// An SQLite mirror whose `apply` fails from the batch `failFrom` on (1-based), applying nothing of it.
    final class FailingSink: FeedSink {
        let base: SQLiteMirror
        let failFrom: Int
        let attempts = Mutex(0)
        init(_ base: SQLiteMirror, failFrom: Int) {
            self.base = base
            self.failFrom = failFrom
        }
        func resumePoint(shard: Int) async throws -> FeedSinkResumePoint? { try await base.resumePoint(shard: shard) }
        func documents() async throws -> [Document] { try await base.documents() }
        func apply(_ batch: FeedSinkBatch) async throws {
            let attempt = attempts.withLock {
                $0 += 1
                return $0
            }
            if attempt >= failFrom {
                throw FirestoreError(code: .unavailable, message: "the test's sink fails batch \(attempt)")
            }
            try await base.apply(batch)
        }
    }

    /// Writes `count` documents `items/d0000`... with `n` = their number, 500 to a batch.
    static func seed(_ db: Firestore, count: Int) async throws {
        for start in stride(from: 0, to: count, by: 500) {
            let batch = db.batch()
            for index in start..<min(count, start + 500) {
                try batch.setData(["n": .integer(Int64(index))], forDocument: db.document("items/" + id(index)))
            }
            try await batch.commit()
        }
    }

    static func id(_ index: Int) -> String { "d" + String(format: "%04d", index) }

    static func temporaryPath() -> String { NSTemporaryDirectory() + "mirror-backfill-\(UUID().uuidString).sqlite" }

    static func remove(_ path: String) {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    /// Whether the mirror's documents equal the query's (names, fields, times), within 60 s.
    static func converges(_ mirror: SQLiteMirror, to query: Query) async -> Bool {
        await SQLiteMirrorLiveTests.converges(mirror, to: query)
    }

    @Test func twoThousandFiveHundredDocumentsLoadInThreePagesThenTheTableFollowsTheCollection() async throws {
        let host = try EmulatorEnvironment.requireHost()
        let db = try Firestore.emulator(host: host, projectID: EmulatorEnvironment.uniqueProjectID("backfill"))
        try await Self.seed(db, count: 2500)
        let query = db.collection("items").query
        let path = Self.temporaryPath()
        defer { Self.remove(path) }
        let mirror = try await SQLiteMirror(path: path, table: "items")
        let events = Events()
        let run = Task { try await query.mirror(into: mirror, pageSize: 1000, onEvent: events.note) }
        #expect(await Self.converges(mirror, to: query))
        let pages = events.pages.withLock { $0 }
        #expect(pages.map(\.loaded) == [1000, 2000, 2500])
        #expect(pages.map(\.complete) == [false, false, true])
        #expect(pages.map(\.billed) == [1000, 1000, 500])
        let loadedAt = try #require(pages.first?.readTime)
        #expect(pages.allSatisfy { $0.readTime == loadedAt })
        // The table is whole once the last page commits; the Listen tail's first snapshot follows.
        #expect(await eventually(seconds: 60) { !events.resumed.withLock { $0.isEmpty } })
        #expect(events.resumed.withLock { $0 } == [loadedAt])
        try await db.document("items/d0001").setData(["n": -1])
        try await db.document("items/d2400").delete()
        #expect(await Self.converges(mirror, to: query))
        run.cancel()
        try await run.value
        let stored = try #require(try await mirror.resumePoint(shard: 0))
        #expect(stored.loadCursor == nil)
        #expect(stored.resumeToken?.isEmpty == false)
        #expect(try await mirror.documents().count == 2499)
    }

    /// The sink fails on page 2: page 1 stays with its cursor at T. Writes after T: a document of page 1 changed, one
    /// of page 3 deleted, one added. A fresh mirror reads only the 1,500 documents after the cursor, at T (so the
    /// deleted one is loaded, as it was at T), then the Listen tail from T brings the three changes.
    @Test func aLoadInterruptedAfterItsFirstPageGoesOnFromItsCursorAndTheTailBringsTheLaterWrites() async throws {
        let host = try EmulatorEnvironment.requireHost()
        let db = try Firestore.emulator(host: host, projectID: EmulatorEnvironment.uniqueProjectID("backfill-resume"))
        try await Self.seed(db, count: 2500)
        let query = db.collection("items").query
        let path = Self.temporaryPath()
        defer { Self.remove(path) }

        let first = Events()
        let failing = FailingSink(try await SQLiteMirror(path: path, table: "items"), failFrom: 2)
        await #expect(throws: FirestoreError.self) {
            try await query.mirror(into: failing, pageSize: 1000, onEvent: first.note)
        }
        let loadedAt = try #require(first.pages.withLock { $0.first?.readTime })
        let stored = try #require(try await failing.base.resumePoint(shard: 0))
        #expect(stored.loadCursor?.hasSuffix("/documents/items/d0999") == true)
        #expect(stored.readTime == loadedAt)
        #expect(try await failing.base.documents().count == 1000)

        try await db.document("items/d0005").setData(["n": 5000])
        try await db.document("items/d2100").delete()
        try await db.document("items/e0000").setData(["n": 9999])

        let second = Events()
        let mirror = try await SQLiteMirror(path: path, table: "items")
        let run = Task { try await query.mirror(into: mirror, pageSize: 1000, onEvent: second.note) }
        #expect(await Self.converges(mirror, to: query))
        let pages = second.pages.withLock { $0 }
        #expect(pages.map(\.loaded) == [1000, 1500])
        #expect(pages.allSatisfy { $0.readTime == loadedAt })
        #expect(second.resumed.withLock { $0 } == [loadedAt])
        run.cancel()
        try await run.value
        let held = try await mirror.documents()
        #expect(held.count == 2500)
        #expect(held.first { $0.name.hasSuffix("/d0005") }?.fields["n"] == .integer(5000))
        #expect(!held.contains { $0.name.hasSuffix("/d2100") })
        #expect(held.last?.fields["n"] == .integer(9999))
        #expect(try await mirror.resumePoint(shard: 0)?.loadCursor == nil)
    }

    /// `firestore-feed mirror` loads the collection in pages, applies a later write, and on SIGTERM or SIGINT exits 0
    /// with the table equal to the collection.
    @Test(arguments: [SIGTERM, SIGINT])
    func theMirrorCommandLoadsFollowsAndExitsZeroOnASignal(signal: Int32) async throws {
        let host = try EmulatorEnvironment.requireHost()
        let project = EmulatorEnvironment.uniqueProjectID("backfill-cli")
        let db = try Firestore.emulator(host: host, projectID: project)
        try await Self.seed(db, count: 25)
        let path = Self.temporaryPath()
        defer { Self.remove(path) }
        let process = try CLIProcess([
            "mirror", "items", "--emulator", host, "--project", project, "--sqlite", path, "--table", "items",
            "--page-size", "10", "--verbose",
        ])
        let query = db.collection("items").query
        let mirror = try await SQLiteMirror(path: path, table: "items")
        #expect(await Self.converges(mirror, to: query))
        try await db.document("items/d0003").setData(["n": 333])
        #expect(await Self.converges(mirror, to: query))
        kill(process.process.processIdentifier, signal)
        let result = await process.finish(timeout: 60)
        #expect(result.status == 0, "stderr:\n\(result.stderr)")
        let pageLines = result.stderr.split(separator: "\n").filter { $0.hasPrefix("mirror: backfill page of ") }
        #expect(pageLines.count == 3, "stderr:\n\(result.stderr)")
        #expect(result.stderr.contains("note: backfill complete at "), "stderr:\n\(result.stderr)")
        let reopened = try await SQLiteMirror(path: path, table: "items")
        let direct = try await query.getDocuments().documents.compactMap(\.document)
        #expect(try await reopened.documents() == direct)
        #expect(try await reopened.resumePoint(shard: 0)?.loadCursor == nil)
    }

    /// SIGTERM during the load (pages of 1 document): the command exits 0 with every committed page whole (the table
    /// holds exactly the documents up to the stored cursor, or all of them if the load finished first); a restarted
    /// command goes on from the cursor at the same read time and follows the collection.
    @Test func theMirrorCommandStoppedDuringItsLoadExitsZeroAndARestartGoesOn() async throws {
        let host = try EmulatorEnvironment.requireHost()
        let project = EmulatorEnvironment.uniqueProjectID("backfill-cli-stop")
        let db = try Firestore.emulator(host: host, projectID: project)
        try await Self.seed(db, count: 300)
        let path = Self.temporaryPath()
        defer { Self.remove(path) }
        let arguments = [
            "mirror", "items", "--emulator", host, "--project", project, "--sqlite", path, "--table", "items",
            "--page-size", "1", "--verbose",
        ]
        let first = try CLIProcess(arguments)
        _ = await first.stderr.lines(atLeast: 1, timeout: 60)
        kill(first.process.processIdentifier, SIGTERM)
        let stopped = await first.finish(timeout: 60)
        #expect(stopped.status == 0, "stderr:\n\(stopped.stderr)")
        let mirror = try await SQLiteMirror(path: path, table: "items")
        let stored = try #require(try await mirror.resumePoint(shard: 0))
        let held = try await mirror.documents().map { String($0.name.split(separator: "/").last ?? "") }
        if let cursor = stored.loadCursor {
            let last = String(cursor.split(separator: "/").last ?? "")
            #expect(held == (0..<300).map(Self.id).filter { $0 <= last })
        } else {
            #expect(held.count == 300)
        }
        print("stopped with \(held.count) of 300 loaded, cursor \(stored.loadCursor ?? "none")")

        let second = try CLIProcess(arguments)
        try await db.document("items/d0299").delete()
        // The table may equal the collection for a moment mid-load (d0299 is loaded last, as it was at the read
        // time): wait for the tail's first snapshot (a resume token), after which it follows the collection.
        #expect(
            await eventuallyAsync(seconds: 60) {
                (try? await mirror.resumePoint(shard: 0))??.resumeToken != nil
            })
        #expect(await Self.converges(mirror, to: db.collection("items").query))
        kill(second.process.processIdentifier, SIGTERM)
        let resumed = await second.finish(timeout: 60)
        #expect(resumed.status == 0, "stderr:\n\(resumed.stderr)")
        if stored.loadCursor != nil {
            // Every page of the second run is read at the first run's read time.
            let times = Set(
                resumed.stderr.split(separator: "\n").filter { $0.hasPrefix("mirror: backfill page of ") }.compactMap {
                    $0.split(separator: " ").dropFirst(7).first
                })
            #expect(times.count == 1, "stderr:\n\(resumed.stderr)")
            #expect(times.first.map { String($0.dropLast()) } == stored.readTime?.rfc3339, "stderr:\n\(resumed.stderr)")
        }
        #expect(try await mirror.documents().count == 299)
    }

    /// `mirror --group`: one member mirrors the one shard of its group into the table (the sink's fencing at the
    /// lease's generation), follows a later write, and on SIGTERM releases its lease and exits 0.
    @Test func aGroupMemberMirrorsItsShardsAndExitsZeroOnSIGTERM() async throws {
        let host = try EmulatorEnvironment.requireHost()
        let project = EmulatorEnvironment.uniqueProjectID("backfill-cli-group")
        let db = try Firestore.emulator(host: host, projectID: project)
        try await Self.seed(db, count: 5)
        let path = Self.temporaryPath()
        defer { Self.remove(path) }
        let process = try CLIProcess([
            "mirror", "items", "--emulator", host, "--project", project, "--sqlite", path, "--table", "items",
            "--group", "g", "--shards", "1", "--member", "a",
        ])
        let query = db.collection("items").query
        let mirror = try await SQLiteMirror(path: path, table: "items")
        #expect(await Self.converges(mirror, to: query))
        try await db.document("items/d0002").delete()
        #expect(await Self.converges(mirror, to: query))
        kill(process.process.processIdentifier, SIGTERM)
        let result = await process.finish(timeout: 60)
        #expect(result.status == 0, "stderr:\n\(result.stderr)")
        #expect(result.stderr.contains("took the lease of shard 0 (generation 1)"), "stderr:\n\(result.stderr)")
        #expect(try await mirror.resumePoint(shard: 0)?.generation == 1)
        #expect(try await mirror.documents().count == 4)
    }
}
