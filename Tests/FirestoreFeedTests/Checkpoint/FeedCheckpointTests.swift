import FirestoreFeed
import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

/// Polling feeds with a durable checkpoint (`PollerPool.snapshots(of:mode:policy:checkpoint:key:onEvent:)`) on the
/// in-memory versioned server: the first snapshot after a restart lists only what changed while the feed was away
/// and says it resumed; a snapshot is written only once the consumer has finished with it (at least once); a slow
/// consumer's folded snapshot is written as received; a resumed delta feed starts with a delta poll.
@Suite(.timeLimit(.minutes(3))) struct FeedCheckpointTests {
    static func time(_ milliseconds: Int64) -> Timestamp { DeltaDifferentialTests.time(milliseconds) }
    static let delta = PollMode.delta(field: "updatedAt", margin: .milliseconds(500), reconcileInterval: .seconds(600))

    /// A server holding `i1`...`i5` (rank = number), committed before time 0.
    static func seeded() -> VersionedFirestore {
        let server = VersionedFirestore(now: time(0))
        for number in 1...5 {
            server.write(
                "i\(number)", ["rank": .integer(Int64(number))], requestTime: time(-3000), commitTime: time(-2990))
        }
        return server
    }

    /// One run of a feed with a checkpoint: a consumer on a pool of its own whose clock the test advances.
    struct Run {
        let consumer: GatedConsumer
        let clock: ManualClock

        init(_ query: Query, mode: PollMode, store: FeedCheckpointStore, key: String = "items") {
            let clock = ManualClock()
            let pool = PollerPool(clock: clock)
            let policy = PollingPolicy(interval: .seconds(1), jitter: 0)
            consumer = GatedConsumer { onEvent in
                pool.snapshots(of: query, mode: mode, policy: policy, checkpoint: store, key: key, onEvent: onEvent)
            }
            self.clock = clock
        }

        func next(_ count: Int) async -> QuerySnapshot? {
            await consumer.waitFor(count, clock: clock) ? consumer.received.withLock { $0[count - 1] } : nil
        }

        var resumed: [String] {
            consumer.events.withLock { events in
                events.compactMap { event in
                    guard case .resumedFromCheckpoint(let key, let readTime) = event else { return nil }
                    return "\(key) \(readTime?.rfc3339 ?? "-")"
                }
            }
        }
    }

    /// The scenario of issue 18, in keys, full and delta mode: a feed checkpoints its first snapshot and stops;
    /// while it is down one document is modified, one deleted, one added; the restarted feed's first snapshot
    /// lists exactly those three changes (indexes against the stored list) and says it resumed.
    @Test(arguments: [PollMode.keys, .full, delta])
    func theFirstSnapshotAfterARestartListsOnlyWhatChanged(mode: PollMode) async throws {
        let path = CheckpointFiles.temporaryPath()
        defer { CheckpointFiles.remove(path) }
        let server = Self.seeded()
        let query = try server.firestore().collection("items").order(by: "rank").query
        let store = try await FeedCheckpointStore(path: path)
        let first = Run(query, mode: mode, store: store)
        let initial = try #require(await first.next(1))
        #expect(initial.changeList == ["added i1", "added i2", "added i3", "added i4", "added i5"])
        #expect(first.resumed == [])
        try await store.acknowledge(key: "items")
        first.consumer.leave()
        #expect(await store.waitUntilReleased("items"))

        server.write("i2", ["rank": 9], requestTime: Self.time(100), commitTime: Self.time(120))
        server.delete("i4", commitTime: Self.time(130))
        server.write("i6", ["rank": 0], requestTime: Self.time(140), commitTime: Self.time(150))
        server.now = Self.time(1000)

        let second = Run(query, mode: mode, store: store)
        let resumed = try #require(await second.next(1))
        #expect(second.resumed == ["items \(Self.time(0).rfc3339)"])
        #expect(resumed.changeList == ["removed i4", "added i6", "modified i2"])
        #expect(
            resumed.documentChanges.map {
                "\($0.oldIndex.map(String.init) ?? "-")>\($0.newIndex.map(String.init) ?? "-")"
            }
                == ["3>-", "->0", "2>4"])
        #expect(resumed.ids == ["i6", "i1", "i3", "i5", "i2"])
        #expect(resumed.readTime == Self.time(1000))
        switch mode {
        case .keys:
            // The keys scan is billed in full (5 documents); only the 2 documents new or moved are fetched.
            #expect(resumed.statistics?.billedReads == 7)
            #expect(resumed.statistics?.documentsFetched == 2)
        case .full:
            #expect(resumed.statistics?.billedReads == 5)
        case .delta:
            // A delta poll from the stored watermark; the count then sees the deletion and scans.
            #expect(resumed.statistics?.keysScan == .countDiffers(counted: 5, expected: 6))
        }
        try await store.acknowledge(key: "items")
        second.consumer.leave()
        #expect(await store.waitUntilReleased("items"))
        let stored = try #require(try await store.checkpoint(key: "items"))
        #expect(stored.documents.map(\.id) == ["i1", "i2", "i3", "i5", "i6"])
        #expect(stored.readTime == Self.time(1000))
    }

    /// A resumed delta feed whose documents were only modified and added starts with a delta poll: 1 read for
    /// the changed documents' runQuery (2 returned: 2 reads) and 1 for the count, no keys scan.
    @Test func aResumedDeltaFeedStartsWithADeltaPoll() async throws {
        let path = CheckpointFiles.temporaryPath()
        defer { CheckpointFiles.remove(path) }
        let server = Self.seeded()
        let query = try server.firestore().collection("items").order(by: "rank").query
        let store = try await FeedCheckpointStore(path: path)
        let first = Run(query, mode: Self.delta, store: store)
        #expect(await first.next(1)?.count == 5)
        try await store.acknowledge(key: "items")
        first.consumer.leave()
        #expect(await store.waitUntilReleased("items"))
        let stored = try #require(try await store.checkpoint(key: "items"))
        #expect(stored.source == "delta")
        #expect(stored.deltaField == "updatedAt")
        #expect(stored.deltaWatermark == Self.time(-500))
        #expect(stored.lastKeysScan == Self.time(0))

        server.write("i3", ["rank": 3, "note": "moved"], requestTime: Self.time(200), commitTime: Self.time(230))
        server.write("i7", ["rank": 7], requestTime: Self.time(300), commitTime: Self.time(320))
        server.now = Self.time(2000)
        let requestsBefore = server.requests.count
        let second = Run(query, mode: Self.delta, store: store)
        let resumed = try #require(await second.next(1))
        #expect(resumed.changeList == ["added i7", "modified i3"])
        #expect(resumed.statistics?.keysScan == nil)
        #expect(resumed.statistics?.billedReads == 3)
        #expect(resumed.statistics?.requests == 2)
        #expect(Array(server.requests[requestsBefore...].prefix(2)) == ["runQuery", "runAggregationQuery"])
        second.consumer.leave()
    }

    /// At least once: a consumer that stops while handling a snapshot (it never asks for the next one, nor
    /// acknowledges it) gets the same changes again after the restart; once it asks for the next, they are not
    /// repeated.
    @Test func aSnapshotNotFinishedWithIsDeliveredAgainAfterARestart() async throws {
        let path = CheckpointFiles.temporaryPath()
        defer { CheckpointFiles.remove(path) }
        let server = Self.seeded()
        let query = try server.firestore().collection("items").order(by: "rank").query
        let store = try await FeedCheckpointStore(path: path)
        let first = Run(query, mode: .keys, store: store)
        #expect(await first.next(1)?.count == 5)
        server.write("i1", ["rank": 1, "paid": true], requestTime: Self.time(100), commitTime: Self.time(110))
        server.now = Self.time(1000)
        first.consumer.allowNext()  // the first snapshot is finished with: written
        let handled = try #require(await first.next(2))
        #expect(handled.changeList == ["modified i1"])
        first.consumer.leave()  // "crashes" while handling the second
        #expect(await store.waitUntilReleased("items"))
        #expect(try await store.checkpoint(key: "items")?.readTime == Self.time(0))

        server.now = Self.time(2000)
        let second = Run(query, mode: .keys, store: store)
        let again = try #require(await second.next(1))
        #expect(second.resumed == ["items \(Self.time(0).rfc3339)"])
        #expect(again.changeList == ["modified i1"])
        #expect(again.documentChanges.first?.document.data()?["paid"] == true)
        server.write("i5", ["rank": 5, "paid": true], requestTime: Self.time(2100), commitTime: Self.time(2110))
        server.now = Self.time(3000)
        second.consumer.allowNext()  // finished with the repeated change: written
        #expect(await second.next(2)?.changeList == ["modified i5"])
        second.consumer.leave()
        #expect(await store.waitUntilReleased("items"))

        server.now = Self.time(4000)
        let third = Run(query, mode: .keys, store: store)
        let resumed = try #require(await third.next(1))
        #expect(third.resumed == ["items \(Self.time(2000).rfc3339)"])
        #expect(resumed.changeList == ["modified i5"])
        third.consumer.leave()
    }

    /// A restart with nothing changed still delivers a first snapshot: no changes, every document.
    @Test func aRestartWithNothingChangedDeliversAnEmptyResumedSnapshot() async throws {
        let path = CheckpointFiles.temporaryPath()
        defer { CheckpointFiles.remove(path) }
        let server = Self.seeded()
        let query = try server.firestore().collection("items").order(by: "rank").query
        let store = try await FeedCheckpointStore(path: path)
        let first = Run(query, mode: .keys, store: store)
        #expect(await first.next(1)?.count == 5)
        try await store.acknowledge(key: "items")
        first.consumer.leave()
        #expect(await store.waitUntilReleased("items"))
        server.now = Self.time(1000)
        let second = Run(query, mode: .keys, store: store)
        let resumed = try #require(await second.next(1))
        #expect(resumed.changeList == [])
        #expect(resumed.ids == ["i1", "i2", "i3", "i4", "i5"])
        #expect(second.resumed == ["items \(Self.time(0).rfc3339)"])
        second.consumer.leave()
    }

    /// A consumer slower than the feed receives several polls folded into one snapshot; that snapshot, as
    /// received, is what is written: the restarted feed repeats nothing and misses nothing.
    @Test func aFoldedSnapshotIsWrittenAsTheConsumerReceivedIt() async throws {
        let path = CheckpointFiles.temporaryPath()
        defer { CheckpointFiles.remove(path) }
        let server = Self.seeded()
        let query = try server.firestore().collection("items").order(by: "rank").query
        let store = try await FeedCheckpointStore(path: path)
        let first = Run(query, mode: .keys, store: store)
        #expect(await first.next(1)?.count == 5)
        // Several polls' worth of changes while the consumer is busy with its first snapshot: i8 added and
        // removed again (no change), i3 modified twice (one modification), i9 added. The feed polls only when its
        // consumer asks (`FeedDemandTests`), so the intervals that pass meanwhile cost no poll, and no wait here
        // would change that: the one snapshot the consumer gets when it asks again holds them all, as the changes
        // from the snapshot it has.
        let writes: [(VersionedFirestore) -> Void] = [
            { $0.write("i8", ["rank": 8], requestTime: Self.time(100), commitTime: Self.time(110)) },
            { $0.write("i3", ["rank": 3, "v": 1], requestTime: Self.time(1100), commitTime: Self.time(1110)) },
            { $0.delete("i8", commitTime: Self.time(2110)) },
            { $0.write("i3", ["rank": 3, "v": 2], requestTime: Self.time(3100), commitTime: Self.time(3110)) },
            { $0.write("i9", ["rank": 9], requestTime: Self.time(4100), commitTime: Self.time(4110)) },
        ]
        for (step, write) in writes.enumerated() {
            write(server)
            server.now = Self.time(Int64(step + 1) * 1000)
            first.clock.advance(by: .seconds(1))
        }
        first.consumer.allowNext()
        let second = try #require(await first.next(2))
        #expect(second.changeList == ["added i9", "modified i3"])
        try await store.acknowledge(key: "items")
        first.consumer.leave()
        #expect(await store.waitUntilReleased("items"))
        let stored = try #require(try await store.checkpoint(key: "items"))
        #expect(stored.documents.map(\.id) == ["i1", "i2", "i3", "i4", "i5", "i9"])
        #expect(stored.documents.first { $0.id == "i3" }?.fields["v"] == 2)
        #expect(stored.readTime == second.readTime)
    }

    /// A key that holds another query's checkpoint is refused, never resumed from.
    @Test func aKeyHoldingAnotherQuerysCheckpointIsRefused() async throws {
        let path = CheckpointFiles.temporaryPath()
        defer { CheckpointFiles.remove(path) }
        let server = Self.seeded()
        let db = try server.firestore()
        let store = try await FeedCheckpointStore(path: path)
        let first = Run(db.collection("items").order(by: "rank").query, mode: .keys, store: store)
        #expect(await first.next(1)?.count == 5)
        try await store.acknowledge(key: "items")
        first.consumer.leave()
        #expect(await store.waitUntilReleased("items"))
        let other = Run(db.collection("items").whereField("rank", isGreaterThan: 2).query, mode: .keys, store: store)
        #expect(await other.consumer.waitForEnd())
        let error = try #require(other.consumer.failure.withLock { $0 })
        #expect(error.code == .failedPrecondition)
        #expect(
            error.message.hasPrefix(
                "checkpoint store \(path): key \"items\" holds the checkpoint of another query (projects/p/"))
        #expect(try await store.checkpoint(key: "items")?.documents.count == 5)
    }

    /// The Listen resume rule: the stored resume token is sent only by a Listen feed, for a checkpoint a Listen
    /// feed wrote, less than 30 minutes after its snapshot; later (or from a polling checkpoint) the target is
    /// listened to from scratch and billed as a new query.
    @Test func aListenFeedSendsTheResumeTokenOnlyWithinThirtyMinutes() throws {
        let readTime = Self.time(0)
        func checkpoint(source: String, token: [UInt8]?) -> FeedCheckpoint {
            FeedCheckpoint(
                key: "k", query: "q", source: source, deltaField: nil, documents: [], readTime: readTime,
                deltaWatermark: nil, lastKeysScan: nil, resumeToken: token, committedAt: readTime, generation: 1)
        }
        let listen = checkpoint(source: "listen", token: [1, 2, 3])
        #expect(
            CheckpointResume.resumeToken(of: listen, for: .listen, now: readTime.subtracting(.seconds(-29 * 60)))
                == [1, 2, 3])
        #expect(
            CheckpointResume.resumeToken(of: listen, for: .listen, now: readTime.subtracting(.seconds(-30 * 60)))
                == nil)
        #expect(CheckpointResume.resumeToken(of: listen, for: .poll(.keys), now: readTime) == nil)
        #expect(
            CheckpointResume.resumeToken(of: checkpoint(source: "keys", token: [1]), for: .listen, now: readTime)
                == nil)
        #expect(BilledReads.listenResumed(documentsDelivered: 3, resultSize: 10_000, sentResumeToken: true) == 3)
        #expect(BilledReads.listenResumed(documentsDelivered: 0, resultSize: 10_000, sentResumeToken: true) == 0)
        #expect(BilledReads.listenResumed(documentsDelivered: 3, resultSize: 10_000, sentResumeToken: false) == 10_000)
        #expect(BilledReads.listenResumed(documentsDelivered: 0, resultSize: 0, sentResumeToken: false) == 1)
    }
}
