import FirestoreFeed
import FirestoreREST
import Foundation
import Synchronization
import Testing

/// BatchedArray driven by scripted snapshot sources (no network): FUIBatchedArray semantics
/// (`firebase-semantics.md` §1.2-1.3, §2.1's suggested cases) and field cases and B-10.
@Suite(.timeLimit(.minutes(2))) struct BatchedArrayTests {
    static func ids(_ documents: [DocumentSnapshot]) -> [String] { documents.map(\.documentID) }

    @Test func nothingHappensBeforeObserveQuery() async throws {
        let source = ScriptedSnapshotSource()
        let array = BatchedArray(source: source)
        #expect(source.listenCount == 0)
        #expect(array.items.isEmpty && array.count == 0 && array[0] == nil)
        #expect(!array.isObserving)
        array.stopObserving()  // a no-op when not observing
        #expect(source.listenCount == 0)
    }

    @Test func firstSnapshotIsAllInsertions() async throws {
        let source = ScriptedSnapshotSource()
        let array = BatchedArray(source: source)
        var updates = array.updates().makeAsyncIterator()
        array.observeQuery()
        #expect(array.isObserving)
        source.send(Fruits.documents("apple", "banana", "cherry"))
        let update = try #require(await updates.next())
        #expect(update.diff.insertedIndexes == [0, 1, 2])
        #expect(
            update.diff.deletedIndexes == [] && update.diff.movedInitialIndexes == []
                && update.diff.changedIndexes == [])
        #expect(Self.ids(update.items) == ["apple", "banana", "cherry"])
        #expect(Self.ids(array.items) == ["apple", "banana", "cherry"])
        #expect(array.count == 3)
        #expect(array[1]?.documentID == "banana")
        #expect(array[3] == nil && array[-1] == nil)
    }

    /// Field case B-11's rule for arrays: observing is idempotent, one listen however often it is called.
    @Test func observeQueryIsIdempotent() async throws {
        let source = ScriptedSnapshotSource()
        let array = BatchedArray(source: source)
        array.observeQuery()
        array.observeQuery()
        array.observeQuery()
        #expect(source.listenCount == 1)
    }

    /// Field case A-1: items [a,b], next poll [a,b,c]. In willUpdate the array shows [a,b] (count 2), in
    /// didUpdate [a,b,c]; every diff satisfies old - deleted + inserted == new; 40 quick snapshots arrive in
    /// order, one call at a time (each callback lingers 1 ms so an overlap would be seen).
    @Test func a1WillUpdateShowsOldContentsAndUpdatesNeverOverlap() async throws {
        let source = ScriptedSnapshotSource()
        let delegate = RecordingDelegate(linger: 0.001)
        // Lingering blocks its thread: the delegate runs on a queue of its own, off the cooperative pool.
        let array = BatchedArray(source: source, delegate: delegate, delegateQueue: DispatchQueue(label: "a1"))
        var events = delegate.events.makeAsyncIterator()
        array.observeQuery()
        source.send(Fruits.documents("a", "b"))
        #expect(await events.next() == .will(shown: [], deleted: [], inserted: [0, 1]))
        #expect(await events.next() == .did(shown: ["a", "b"]))
        source.send(Fruits.documents("a", "b", "c"))
        #expect(await events.next() == .will(shown: ["a", "b"], deleted: [], inserted: [2]))
        #expect(await events.next() == .did(shown: ["a", "b", "c"]))

        // 40 snapshots sent back to back: growing to 23 items, then shrinking from the front.
        var expected: [RecordingDelegate.Event] = []
        var shown = ["a", "b", "c"]
        for step in 0..<40 {
            let next = step < 20 ? shown + ["n\(step)"] : Array(shown.dropFirst())
            source.send(next.map { Fruits.document($0) })
            expected.append(
                .will(shown: shown, deleted: step < 20 ? [] : [0], inserted: step < 20 ? [shown.count] : []))
            expected.append(.did(shown: next))
            shown = next
        }
        var received: [RecordingDelegate.Event] = []
        for _ in 0..<80 { if let event = await events.next() { received.append(event) } }
        #expect(received == expected)
        #expect(delegate.violations == [])
        #expect(Self.ids(array.items) == Array(shown))
    }

    /// Field case B-10 shape: [a,b], then a failed poll, then [a,b,c]. The error is reported, the items stay,
    /// no update is published; the next snapshot is insert(c @2) and clears the error.
    @Test func anErrorIsReportedAndNeverChangesTheItems() async throws {
        let source = ScriptedSnapshotSource()
        let delegate = RecordingDelegate()
        let array = BatchedArray(source: source, delegate: delegate)
        var updates = array.updates().makeAsyncIterator()
        var events = delegate.events.makeAsyncIterator()
        array.observeQuery()
        source.send(Fruits.documents("a", "b"))
        _ = await updates.next()
        _ = await events.next()
        _ = await events.next()

        source.send(.failure(FirestoreError(code: .unavailable, message: "poll failed", httpStatus: 503)))
        #expect(await events.next() == .error("UNAVAILABLE"))
        #expect(Self.ids(array.items) == ["a", "b"])
        #expect((array.lastError as? FirestoreError)?.code == .unavailable)
        #expect(array.isObserving)

        source.send(Fruits.documents("a", "b", "c"))
        let update = try #require(await updates.next())
        #expect(update.diff.insertedIndexes == [2])
        #expect(
            update.diff.deletedIndexes == [] && update.diff.movedInitialIndexes == []
                && update.diff.changedIndexes == [])
        #expect(array.lastError == nil)
        #expect(
            delegate.log == [
                .will(shown: [], deleted: [], inserted: [0, 1]), .did(shown: ["a", "b"]), .error("UNAVAILABLE"),
                .will(shown: ["a", "b"], deleted: [], inserted: [2]), .did(shown: ["a", "b", "c"]),
            ])
    }

    /// A source that recovers without a new result clears lastError; nothing else happens.
    @Test func recoveryClearsTheLastError() async throws {
        let source = ScriptedSnapshotSource()
        let delegate = RecordingDelegate()
        let array = BatchedArray(source: source, delegate: delegate)
        var events = delegate.events.makeAsyncIterator()
        array.observeQuery()
        source.send(Fruits.documents("a"))
        source.send(.failure(FirestoreError(code: .deadlineExceeded, message: "slow")))
        source.send(.recovered)
        _ = await events.next()
        _ = await events.next()
        #expect(await events.next() == .error("DEADLINE_EXCEEDED"))
        #expect(await eventually { array.lastError == nil })
        #expect(Self.ids(array.items) == ["a"])
        #expect(delegate.log.count == 3)
    }

    @Test func stopObservingKeepsTheItemsAndStopsTheListen() async throws {
        let source = ScriptedSnapshotSource()
        let delegate = RecordingDelegate()
        let array = BatchedArray(source: source, delegate: delegate)
        var updates = array.updates().makeAsyncIterator()
        array.observeQuery()
        source.send(Fruits.documents("a", "b"))
        _ = await updates.next()
        array.stopObserving()
        array.stopObserving()
        #expect(!array.isObserving)
        #expect(await eventually { source.isTerminated(0) })
        #expect(Self.ids(array.items) == ["a", "b"])
        // Anything the stopped listen still sends is ignored.
        source.send(Fruits.documents("x"), on: 0)
        source.send(.failure(FirestoreError(code: .unavailable, message: "late")), on: 0)
        array.observeQuery()
        #expect(source.listenCount == 2)
        source.send(Fruits.documents("a", "b", "c"), on: 1)
        let update = try #require(await updates.next())
        #expect(update.diff.insertedIndexes == [2])
        #expect(Self.ids(array.items) == ["a", "b", "c"])
        #expect(array.lastError == nil)
        #expect(delegate.log.filter { if case .error = $0 { true } else { false } } == [])
    }

    /// Events a listen had already handed over before stopObserving() are dropped: the delivery task is held
    /// inside the first willUpdate while the second snapshot waits in its queue (and the third in the listen's
    /// stream); the array is stopped; when released, only the first update completes. Observing again then
    /// delivers a marker snapshot: the delivery task takes events in order, so nothing of the stopped listen can
    /// be delivered after it, and the log up to it is final.
    @Test func eventsQueuedBeforeStopAreDropped() async throws {
        let source = ScriptedSnapshotSource()
        let entered = Atomic<Int>(0)
        let gate = DispatchSemaphore(value: 0)
        let delegate = RecordingDelegate { _ in
            if entered.add(1, ordering: .sequentiallyConsistent).newValue == 1 { gate.wait() }
        }
        // The delegate blocks on a queue of its own, never on a thread of the cooperative pool.
        let array = BatchedArray(
            source: source, delegate: delegate, delegateQueue: DispatchQueue(label: "eventsQueuedBeforeStop"))
        var events = delegate.events.makeAsyncIterator()
        array.observeQuery()
        source.send(Fruits.documents("a"))
        source.send(Fruits.documents("a", "b"))
        source.send(Fruits.documents("a", "b", "c"))
        #expect(await eventually { entered.load(ordering: .sequentiallyConsistent) == 1 })
        // The listen has handed the second snapshot over: it waits for the delivery task.
        #expect(await eventually { array.queuedEventCount == 1 })
        array.stopObserving()
        gate.signal()
        #expect(await events.next() == .will(shown: [], deleted: [], inserted: [0]))
        #expect(await events.next() == .did(shown: ["a"]))
        #expect(Self.ids(array.items) == ["a"])
        array.observeQuery()
        source.send(Fruits.documents("z"), on: 1)
        #expect(await events.next() == .will(shown: ["a"], deleted: [0], inserted: [0]))
        #expect(await events.next() == .did(shown: ["z"]))
        #expect(
            delegate.log == [
                .will(shown: [], deleted: [], inserted: [0]), .did(shown: ["a"]),
                .will(shown: ["a"], deleted: [0], inserted: [0]), .did(shown: ["z"]),
            ])
        #expect(entered.load(ordering: .sequentiallyConsistent) == 2)
        #expect(delegate.violations == [])
    }

    /// Field case A-8: [a,b] held; stop and observe again; the new listen's first snapshot [a,b] is an empty diff
    /// against the current items, never two rows with one name. A snapshot repeating a name keeps it once.
    @Test func a8RestartDiffsAgainstTheCurrentItems() async throws {
        let source = ScriptedSnapshotSource()
        let array = BatchedArray(source: source)
        var updates = array.updates().makeAsyncIterator()
        array.observeQuery()
        source.send(Fruits.documents("a", "b"))
        _ = await updates.next()
        array.stopObserving()
        array.observeQuery()
        source.send(Fruits.documents("a", "b"))
        let restart = try #require(await updates.next())
        #expect(restart.diff.isEmpty)
        #expect(Self.ids(array.items) == ["a", "b"])

        source.send(Fruits.documents("a", "a", "b", "b"))
        let repeated = try #require(await updates.next())
        #expect(repeated.diff.isEmpty)
        #expect(Self.ids(array.items) == ["a", "b"])
    }

    /// Replacing the source while observing: the old listen stops, the new one starts, and its first snapshot
    /// is diffed against the old contents by identity and content: a deleted, d inserted, c moved 2 -> 0, b
    /// changed in place.
    @Test func replacingTheSourceDiffsOldContentsAgainstTheNewFirstSnapshot() async throws {
        let first = ScriptedSnapshotSource()
        let second = ScriptedSnapshotSource()
        let array = BatchedArray(source: first)
        var updates = array.updates().makeAsyncIterator()
        array.observeQuery()
        first.send(Fruits.documents("a", "b", "c"))
        _ = await updates.next()

        array.source = second
        #expect(array.isObserving)
        #expect(second.listenCount == 1)
        #expect(await eventually { first.isTerminated(0) })
        first.send(Fruits.documents("stale"), on: 0)
        second.send([Fruits.document("c"), Fruits.document("b", 1), Fruits.document("d")])
        let update = try #require(await updates.next())
        #expect(update.diff.deletedIndexes == [0])
        #expect(update.diff.insertedIndexes == [2])
        #expect(update.diff.movedInitialIndexes == [2])
        #expect(update.diff.movedResultIndexes == [0])
        #expect(update.diff.changedIndexes == [1])
        #expect(update.diff.changedResultIndexes == [1])
        #expect(Self.ids(array.items) == ["c", "b", "d"])
        #expect(array[1]?.get("version") == .integer(1))
    }

    @Test func replacingTheSourceWhileStoppedWaitsForObserveQuery() async throws {
        let first = ScriptedSnapshotSource()
        let second = ScriptedSnapshotSource()
        let array = BatchedArray(source: first)
        array.source = second
        #expect(first.listenCount == 0 && second.listenCount == 0)
        #expect(!array.isObserving)
        array.observeQuery()
        #expect(first.listenCount == 0 && second.listenCount == 1)
    }

    /// A listen that ends (after an error that ends it) is reported, keeps the items and leaves the array
    /// stopped; observeQuery starts a new listen.
    @Test func aListenThatEndsLeavesTheArrayStopped() async throws {
        let source = ScriptedSnapshotSource()
        let delegate = RecordingDelegate()
        let array = BatchedArray(source: source, delegate: delegate)
        var events = delegate.events.makeAsyncIterator()
        array.observeQuery()
        source.send(Fruits.documents("a"))
        _ = await events.next()
        _ = await events.next()
        source.send(.failure(FirestoreError(code: .permissionDenied, message: "denied", httpStatus: 403)))
        source.finish()
        #expect(await events.next() == .error("PERMISSION_DENIED"))
        #expect(await eventually { !array.isObserving })
        #expect(Self.ids(array.items) == ["a"])
        array.observeQuery()
        #expect(source.listenCount == 2)
        #expect(array.isObserving)
    }

    /// A delegate may stop observing from inside willUpdate: that update still completes, nothing after it is
    /// applied, and nothing deadlocks.
    @Test func aDelegateMayStopObservingFromACallback() async throws {
        let source = ScriptedSnapshotSource()
        let delegate = RecordingDelegate { array in
            array.stopObserving()
            array.observeQuery()
            array.stopObserving()
        }
        let array = BatchedArray(source: source, delegate: delegate)
        var events = delegate.events.makeAsyncIterator()
        array.observeQuery()
        source.send(Fruits.documents("a", "b"), on: 0)
        source.send(Fruits.documents("a", "b", "c"), on: 0)
        #expect(await events.next() == .will(shown: [], deleted: [], inserted: [0, 1]))
        #expect(await events.next() == .did(shown: ["a", "b"]))
        #expect(!array.isObserving)
        #expect(await eventually { source.isTerminated(0) })
        #expect(Self.ids(array.items) == ["a", "b"])
        #expect(delegate.violations == [])
        #expect(delegate.log.count == 2)
    }

    /// Subscribers that keep up (each takes an update before the next is applied) get every update in order.
    @Test func everySubscriberGetsEveryUpdateInOrder() async throws {
        let source = ScriptedSnapshotSource()
        let array = BatchedArray(source: source)
        var first = array.updates().makeAsyncIterator()
        var second = array.updates().makeAsyncIterator()
        array.observeQuery()
        source.send(Fruits.documents("a"))
        #expect(Self.ids(try #require(await first.next()).items) == ["a"])
        #expect(Self.ids(try #require(await second.next()).items) == ["a"])
        source.send(Fruits.documents("b", "a"))
        for update in [try #require(await first.next()), try #require(await second.next())] {
            #expect(update.diff.insertedIndexes == [0])
            #expect(Self.ids(update.items) == ["b", "a"])
        }
    }

    /// Issue 19: a subscriber that takes nothing while three updates are applied holds one, and gets them as one
    /// update whose diff goes from the items it had (none, when it subscribed) to the newest.
    @Test func aSubscriberThatFallsBehindGetsTheUpdatesAsOne() async throws {
        let source = ScriptedSnapshotSource()
        let array = BatchedArray(source: source)
        var keepingUp = array.updates().makeAsyncIterator()
        var behind = array.updates().makeAsyncIterator()
        array.observeQuery()
        source.send(Fruits.documents("a"))
        #expect(Self.ids(try #require(await keepingUp.next()).items) == ["a"])
        source.send(Fruits.documents("a", "b"))
        #expect(Self.ids(try #require(await keepingUp.next()).items) == ["a", "b"])
        source.send(Fruits.documents("c", "b"))
        #expect(Self.ids(try #require(await keepingUp.next()).items) == ["c", "b"])
        let folded = try #require(await behind.next())
        #expect(folded.diff.initial.isEmpty)
        #expect(folded.diff.insertedIndexes == [0, 1])
        #expect(Self.ids(folded.items) == ["c", "b"])
        source.send(Fruits.documents("c"))
        // Back in step: the next update is the array's own, from ["c", "b"].
        let next = try #require(await behind.next())
        #expect(next.diff.deletedIndexes == [1])
        #expect(Self.ids(next.items) == ["c"])
    }

    /// Releasing the array stops its listen and ends its update sequences.
    @Test func releasingTheArrayStopsTheListen() async throws {
        let source = ScriptedSnapshotSource()
        weak var released: BatchedArray?
        var updates: AsyncStream<BatchedArray.Update>.Iterator
        do {
            let array = BatchedArray(source: source)
            released = array
            updates = array.updates().makeAsyncIterator()
            array.observeQuery()
            source.send(Fruits.documents("a"))
            _ = await updates.next()
        }
        #expect(await eventually { released == nil })
        #expect(await eventually { source.isTerminated(0) })
        #expect(await updates.next() == nil)
    }
}
