import FirestoreFeed
import FirestoreREST
import FirestoreTestSupport
import FirestoreTesting
import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Durable checkpoints on the emulator (`query.snapshots(..., checkpoint:key:)`): a feed stopped and started again
/// lists only what changed meanwhile, in keys and delta polling and on the Listen stream (which resumes with the
/// stored resume token and is billed only for the changes); a second process on the same key is refused.
@Suite(.timeLimit(.minutes(2))) struct CheckpointLiveTests {
    /// A temporary store path, and the removal of the store and its side files.
    static func temporaryPath() -> String {
        NSTemporaryDirectory() + "checkpoint-live-\(UUID().uuidString).sqlite"
    }

    static func remove(_ path: String) {
        let folder = (path as NSString).deletingLastPathComponent
        let base = (path as NSString).lastPathComponent
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] where name.hasPrefix(base) {
            try? FileManager.default.removeItem(atPath: folder + "/" + name)
        }
    }

    final class Events: Sendable {
        let all = Mutex<[FeedEvent]>([])
        func note(_ event: FeedEvent) { all.withLock { $0.append(event) } }
        var resumed: [Timestamp?] {
            all.withLock { events in
                events.compactMap { event in
                    guard case .resumedFromCheckpoint(_, let readTime) = event else { return nil }
                    return .some(readTime)
                }
            }
        }
    }

    /// The first snapshot of the feed `make` starts, which is then acknowledged (written) and left; returns once
    /// the key is free again.
    /// - Throws: `deadline-exceeded` when the left feed still holds the key a minute later: a hang guard, which says
    ///   what hung (going on, the test would fail later and less clearly, at the next feed refused the key).
    static func firstAndLeave(
        _ make: () -> AsyncThrowingStream<QuerySnapshot, any Error>, store: FeedCheckpointStore, key: String
    ) async throws -> QuerySnapshot? {
        let first = try await firstAcknowledged(make(), store: store, key: key)
        let deadline = ContinuousClock.now + .seconds(60)
        while store.isFeedRunning(key: key) {
            guard ContinuousClock.now < deadline else {
                throw FirestoreError(
                    code: .deadlineExceeded,
                    message: "the feed on key \"\(key)\" still holds it 60 s after it was left")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        return first
    }

    private static func firstAcknowledged(
        _ feed: AsyncThrowingStream<QuerySnapshot, any Error>, store: FeedCheckpointStore, key: String
    ) async throws -> QuerySnapshot? {
        for try await snapshot in feed {
            try await store.acknowledge(key: key)
            return snapshot
        }
        return nil
    }

    static func changeList(_ snapshot: QuerySnapshot?) -> [String] {
        snapshot?.documentChanges.map { "\($0.type.rawValue) \($0.document.documentID)" } ?? ["no snapshot"]
    }

    /// Keys and delta polling: stopped after its first snapshot, the feed misses a modification, a deletion and an
    /// addition; started again it lists exactly those three, says it resumed, and ends equal to a direct query.
    @Test(arguments: ["keys", "delta"])
    func aPollingFeedResumesWithOnlyWhatChangedMeanwhile(mode: String) async throws {
        let host = try EmulatorEnvironment.requireHost()
        let db = try Firestore.emulator(
            host: host, projectID: EmulatorEnvironment.uniqueProjectID("checkpoint-\(mode)")
        )
        .settingServerTimestamp(on: "updatedAt")
        let path = Self.temporaryPath()
        defer { Self.remove(path) }
        for (id, rank) in [("apple", 1), ("banana", 2), ("cherry", 3)] {
            try await db.document("fruits/\(id)").setData(["rank": .integer(Int64(rank))])
        }
        let query = db.collection("fruits").order(by: "rank")
        let pollMode: PollMode =
            mode == "keys"
            ? .keys : .delta(field: "updatedAt", margin: .milliseconds(500), reconcileInterval: .seconds(600))
        let store = try await FeedCheckpointStore(path: path)
        let events = Events()
        func feed() -> AsyncThrowingStream<QuerySnapshot, any Error> {
            query.snapshots(
                source: .poll(pollMode), policy: PollingPolicy(interval: .milliseconds(50)), checkpoint: store,
                key: "fruits",
                onEvent: events.note)
        }
        let first = try await Self.firstAndLeave(feed, store: store, key: "fruits")
        #expect(Self.changeList(first) == ["added apple", "added banana", "added cherry"])
        #expect(events.resumed.isEmpty)

        try await db.document("fruits/apple").setData(["rank": 5])
        try await db.document("fruits/banana").delete()
        try await db.document("fruits/date").setData(["rank": 4])
        let resumed = try await Self.firstAndLeave(feed, store: store, key: "fruits")
        #expect(events.resumed == [first?.readTime])
        #expect(Self.changeList(resumed) == ["removed banana", "added date", "modified apple"])
        #expect(resumed?.documents.map(\.documentID) == ["cherry", "date", "apple"])
        if mode == "delta" {
            // A delta poll from the stored watermark; the count sees the deletion and scans.
            #expect(resumed?.statistics?.keysScan == .countDiffers(counted: 3, expected: 4))
        }
        let direct = try await query.getDocuments()
        let stored = try #require(try await store.checkpoint(key: "fruits"))
        let storedVersions = stored.documents.map { "\($0.id)@\($0.updateTime?.rfc3339 ?? "-")" }.sorted()
        let directVersions = direct.documents.map { "\($0.documentID)@\($0.updateTime?.rfc3339 ?? "-")" }.sorted()
        #expect(storedVersions == directVersions)
    }

    /// The Listen stream: restarted within 30 minutes, the feed sends the stored resume token with its target
    /// (seen in the recorded `ListenRequest`); the first snapshot lists the three changes and is billed as a
    /// resumed listener, 2 reads (the documents added or modified meanwhile) instead of the whole result.
    @Test func aListenFeedResumesWithItsResumeToken() async throws {
        let host = try EmulatorEnvironment.requireHost()
        let project = EmulatorEnvironment.uniqueProjectID("checkpoint-listen")
        let writer = try Firestore.emulator(host: host, projectID: project)
        for (id, rank) in [("apple", 1), ("banana", 2), ("cherry", 3), ("fig", 6)] {
            try await writer.document("fruits/\(id)").setData(["rank": .integer(Int64(rank))])
        }
        let path = Self.temporaryPath()
        defer { Self.remove(path) }
        let store = try await FeedCheckpointStore(path: path)
        let events = Events()
        let first = try await Self.firstAndLeave(
            {
                writer.collection("fruits").order(by: "rank").snapshots(
                    checkpoint: store, key: "fruits", onEvent: events.note)
            }, store: store, key: "fruits")
        #expect(Self.changeList(first) == ["added apple", "added banana", "added cherry", "added fig"])
        #expect(first?.statistics?.billedReads == 4)
        let stored = try #require(try await store.checkpoint(key: "fruits"))
        let token = try #require(stored.resumeToken)
        #expect(stored.source == "listen")
        #expect(!token.isEmpty)

        try await writer.document("fruits/apple").setData(["rank": 5])
        try await writer.document("fruits/banana").delete()
        try await writer.document("fruits/date").setData(["rank": 4])
        let recorder = RecordingTransport(wrapping: CurlTransport())
        let listening = try Firestore.emulator(host: host, projectID: project, transport: recorder)
        let resumed = try await Self.firstAndLeave(
            {
                listening.collection("fruits").order(by: "rank").snapshots(
                    checkpoint: store, key: "fruits", onEvent: events.note)
            }, store: store, key: "fruits")
        #expect(events.resumed == [stored.readTime])
        #expect(Self.changeList(resumed) == ["removed banana", "added date", "modified apple"])
        #expect(resumed?.documents.map(\.documentID) == ["cherry", "date", "apple", "fig"])
        #expect(resumed?.statistics?.billedReads == 2)
        let session = try #require(recorder.cassette.listenSessions.first)
        let sentToken = session.requests.first?["addTarget"]?["resumeToken"]?.stringValue
        #expect(sentToken == Data(token).base64EncodedString())
        // The emulator answers a resume token of an earlier stream with a RESET and the whole result (observed;
        // production sends only what changed after the token). The feed's changes are the same either way: the
        // RESET marks the resumed view's documents gone until sent again, and those sent again unchanged are no
        // change. A test that notices the day the emulator honours the token.
        let types = session.responses.compactMap { $0["targetChange"]?["targetChangeType"]?.stringValue }
        #expect(types == ["ADD", "RESET", "CURRENT"])
        let delivered = session.responses.compactMap { $0["documentChange"]?["document"]?["name"]?.stringValue }
        #expect(
            Set(delivered.map { String($0.split(separator: "/").last ?? "") }) == ["apple", "cherry", "date", "fig"])
        let now = try #require(try await store.checkpoint(key: "fruits"))
        #expect(now.documents.map(\.id) == ["apple", "cherry", "date", "fig"])
        #expect(now.resumeToken != nil && now.resumeToken != token)
    }

    /// A second process on the same key is refused with the holder's process ID; so is this process while the
    /// child holds it.
    @Test func aSecondProcessOnTheSameKeyIsRefused() async throws {
        let host = try EmulatorEnvironment.requireHost()
        let project = EmulatorEnvironment.uniqueProjectID("checkpoint-lock")
        let db = try Firestore.emulator(host: host, projectID: project)
        try await db.document("fruits/apple").setData(["rank": 1])
        let path = Self.temporaryPath()
        defer { Self.remove(path) }
        let child = try CLIProcess([
            "watch", "fruits", "--emulator", host, "--project", project, "--mode", "keys", "--format", "jsonl",
            "--checkpoint", path, "--checkpoint-key", "fruits",
        ])
        defer { child.process.end() }
        #expect(await child.stdout.lines(atLeast: 1, timeout: 30).count == 1)
        let store = try await FeedCheckpointStore(path: path)
        var failure: FirestoreError?
        do {
            for try await _ in db.collection("fruits").snapshots(source: .poll(.keys), checkpoint: store, key: "fruits")
            {
                break
            }
        } catch {
            failure = error as? FirestoreError
        }
        #expect(failure?.code == .failedPrecondition)
        #expect(
            failure?.message
                == "checkpoint store \(path): key \"fruits\" is in use by another feed (process "
                + "\(child.process.processIdentifier)); one feed at a time resumes from a key: stop that one or give "
                + "this one another key")
        child.process.end()
        _ = await child.finish(timeout: 30)

        // Now this process holds the key: the CLI is refused.
        var feed = db.collection("fruits").snapshots(source: .poll(.keys), checkpoint: store, key: "fruits")
            .makeAsyncIterator()
        #expect(try await feed.next()?.count == 1)
        let refused = try await CLIProcess.run([
            "watch", "fruits", "--emulator", host, "--project", project, "--mode", "keys", "--checkpoint", path,
            "--checkpoint-key", "fruits",
        ])
        #expect(refused.status == 1)
        #expect(
            refused.stderr.hasPrefix(
                "error: failed-precondition: checkpoint store \(path): key \"fruits\" is in use by another feed "
                    + "(process \(getpid()))"), "stderr: \(refused.stderr)")
        _ = feed
    }
}
