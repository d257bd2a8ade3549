import FirestoreTestSupport
import Foundation
import Synchronization
import Testing

@testable import FirestoreREST

/// ``BulkWriter`` on an in-memory batchWrite server: batching, per-write results and failures, retries with the Node
/// SDK's back-off, flush and close, and the bound on pending writes. The throttle's arithmetic is `RateLimiterTests`.
@Suite(.timeLimit(.minutes(2))) struct BulkWriterTests {
    static let unthrottled = BulkWriter.Options(throttling: .disabled)

    static func ids(_ range: Range<Int>) -> [String] { range.map { "c/d\($0)" } }

    @Test func batchesOfTwentyAndThePartialOneAtFlush() async throws {
        let server = BatchWriteServer()
        let db = try server.firestore()
        let writer = try db.bulkWriter(options: Self.unthrottled)
        let events = BulkWriterEvents()
        writer.onWriteResult { document, _ in events.result(document) }
        var operations: [BulkWriter.Operation] = []
        for index in 0..<45 {
            operations.append(
                try await writer.setData(["n": .value(.integer(Int64(index)))], forDocument: db.document("c/d\(index)"))
            )
        }
        // The two full batches go at once; the last five wait for the flush.
        #expect(try await pollUntil { server.requests.count == 2 })
        #expect(operations[44].outcome == nil)
        try await writer.flush()
        #expect(server.requests.map(\.count).sorted() == [5, 20, 20])
        #expect(Set(server.requests.flatMap { $0 }) == Set(Self.ids(0..<45)))
        #expect(server.requests.last == Self.ids(40..<45))
        let written = try Timestamp(rfc3339: BatchWriteServer.updateTime)
        for operation in operations {
            #expect(try await operation.result == WriteResult(updateTime: written, writeTime: written))
        }
        #expect(events.results.sorted() == Self.ids(0..<45).sorted())
        #expect(writer.maxBatchSize == 20)
    }

    @Test func fullBatchesAreInFlightTogether() async throws {
        let server = BatchWriteServer(gated: true)
        let db = try server.firestore()
        let writer = try db.bulkWriter(options: Self.unthrottled)
        for index in 0..<100 { try await writer.deleteDocument(db.document("c/d\(index)")) }
        #expect(try await pollUntil { server.requests.count == 5 })
        server.open()
        try await writer.close()
        #expect(server.maxInFlight == 5)
    }

    /// The server refuses two writes to one document in one request: the second write starts a new batch (seen
    /// reaching the server first in 3 of 60 runs: batches are not ordered).
    @Test func twoWritesToOneDocumentGoInTwoBatches() async throws {
        let server = BatchWriteServer()
        let db = try server.firestore()
        let writer = try db.bulkWriter(options: Self.unthrottled)
        try await writer.setData(["n": 1], forDocument: db.document("c/a"))
        try await writer.setData(["n": 1], forDocument: db.document("c/b"))
        try await writer.updateData(["n": 2], forDocument: db.document("c/a"))
        try await writer.flush()
        // The two batches are sent concurrently (as the Node SDK's), so they may reach the server in either order.
        #expect(server.requests.count == 2)
        #expect(Set(server.requests) == [["c/a", "c/b"], ["c/a"]])
    }

    /// A write refused on its own (its `status`) fails alone, with its code, document, kind and attempt count; the
    /// default rule does not retry `ALREADY_EXISTS`; a delete's result has the epoch as its write time.
    @Test func aPerWriteFailureIsThatWritesOnly() async throws {
        let server = BatchWriteServer(rule: { id, _ in id == "c/b" ? (6, "Document already exists: c/b") : nil })
        let db = try server.firestore()
        let writer = try db.bulkWriter(options: Self.unthrottled)
        let events = BulkWriterEvents()
        writer.onWriteResult { document, _ in events.result(document) }
        let a = try await writer.setData(["n": 1], forDocument: db.document("c/a"))
        let b = try await writer.create(["n": 1], forDocument: db.document("c/b"))
        let c = try await writer.deleteDocument(db.document("c/c"))
        try await writer.close()
        #expect(server.requests == [["c/a", "c/b", "c/c"]])
        #expect(try await c.result == WriteResult(updateTime: nil, writeTime: ts(0)))
        #expect(try await a.result.updateTime == (try Timestamp(rfc3339: BatchWriteServer.updateTime)))
        do {
            _ = try await b.result
            Issue.record("the create should fail")
        } catch let error as BulkWriterError {
            #expect(error.code == .alreadyExists)
            #expect(error.message == "Document already exists: c/b")
            #expect(error.document.path == "c/b")
            #expect(error.operationType == .create)
            #expect(error.failedAttempts == 1)
            #expect("\(error)" == "create of c/b failed (attempt 1): already-exists: Document already exists: c/b")
        }
        #expect(events.results.sorted() == ["c/a", "c/c"])
    }

    /// `UNAVAILABLE` is retried after 1 s, then 1.5 s (no jitter with the random unit at 0.5), in a batch of its
    /// own; the callbacks hear each failed attempt and the success.
    @Test func retriesWaitTheBackOffOnTheClock() async throws {
        let server = BatchWriteServer(rule: { id, attempt in id == "c/x" && attempt <= 2 ? (14, "try again") : nil })
        let db = try server.firestore()
        let clock = ManualClock()
        let writer = try BulkWriter(
            firestore: db, options: BulkWriter.Options(clock: clock), randomUnit: { 0.5 })
        let events = BulkWriterEvents()
        writer.onWriteError { error in
            events.error(error)
            return BulkWriterBackoff.shouldRetry(error)
        }
        let x = try await writer.setData(["n": 1], forDocument: db.document("c/x"))
        try await writer.setData(["n": 1], forDocument: db.document("c/y"))
        let flush = Task { try await writer.flush() }
        #expect(try await pollUntil { server.requests.count == 1 && clock.sleeperCount == 1 })
        // `advance` wakes the sleepers whose deadline came before it returns: one still asleep right after it has
        // not reached its deadline, and its retry has not gone.
        clock.advance(by: .milliseconds(999))
        #expect(clock.sleeperCount == 1)
        #expect(server.requests.count == 1)
        clock.advance(by: .milliseconds(1))
        #expect(try await pollUntil { server.requests.count == 2 && clock.sleeperCount == 1 })
        clock.advance(by: .milliseconds(1499))
        #expect(clock.sleeperCount == 1)
        #expect(server.requests.count == 2)
        clock.advance(by: .milliseconds(1))
        try await flush.value
        #expect(server.requests == [["c/x", "c/y"], ["c/x"], ["c/x"]])
        #expect(try await x.result.updateTime != nil)
        #expect(
            events.errors == [
                "set of c/x failed (attempt 1): unavailable: try again",
                "set of c/x failed (attempt 2): unavailable: try again",
            ])
    }

    /// Retried writes go in batches of at most 10; a failure of the whole request is each write's failure.
    @Test func aFailedRequestIsRetriedInBatchesOfTen() async throws {
        let server = BatchWriteServer(requestFailure: { index in
            index == 0 ? .error(503, "UNAVAILABLE", "the backend is restarting") : nil
        })
        let db = try server.firestore()
        let clock = ManualClock()
        let writer = try BulkWriter(firestore: db, options: BulkWriter.Options(clock: clock), randomUnit: { 0.5 })
        for index in 0..<20 { try await writer.setData(["n": 1], forDocument: db.document("c/d\(index)")) }
        #expect(try await pollUntil { server.requests.count == 1 && clock.sleeperCount == 2 })
        clock.advance(by: .seconds(1))
        try await writer.flush()
        #expect(server.requests.map(\.count) == [20, 10, 10])
        #expect(Set(server.requests.dropFirst().flatMap { $0 }) == Set(Self.ids(0..<20)))
    }

    /// A request refused as a whole with a code the rule does not retry fails every write of it.
    @Test func aRefusedRequestFailsEveryWrite() async throws {
        let server = BatchWriteServer(requestFailure: { _ in .error(400, "INVALID_ARGUMENT", "bad write") })
        let db = try server.firestore()
        let writer = try db.bulkWriter(options: Self.unthrottled)
        let a = try await writer.setData(["n": 1], forDocument: db.document("c/a"))
        let b = try await writer.deleteDocument(db.document("c/b"))
        try await writer.flush()
        for operation in [a, b] {
            guard case .failure(let error)? = operation.outcome else {
                Issue.record("expected a failure")
                continue
            }
            #expect(error.error == FirestoreError(code: .invalidArgument, message: "bad write", httpStatus: 400))
        }
        #expect(server.requests.count == 1)
    }

    /// `onWriteError` replaces the default rule: here `ALREADY_EXISTS` is retried until the third attempt, and
    /// `UNAVAILABLE` is not retried at all.
    @Test func onWriteErrorDecides() async throws {
        let server = BatchWriteServer(rule: { id, _ in id == "c/a" ? (6, "exists") : (14, "down") })
        let db = try server.firestore()
        let clock = ManualClock()
        let writer = try BulkWriter(firestore: db, options: BulkWriter.Options(clock: clock), randomUnit: { 0.5 })
        writer.onWriteError { error in error.code == .alreadyExists && error.failedAttempts < 3 }
        let a = try await writer.create(["n": 1], forDocument: db.document("c/a"))
        let b = try await writer.create(["n": 1], forDocument: db.document("c/b"))
        let flush = Task { try await writer.flush() }
        #expect(try await pollUntil { clock.sleeperCount == 1 })
        clock.advance(by: .seconds(1))
        #expect(try await pollUntil { server.requests.count == 2 && clock.sleeperCount == 1 })
        clock.advance(by: .milliseconds(1500))
        try await flush.value
        #expect(server.requests == [["c/a", "c/b"], ["c/a"], ["c/a"]])
        if case .failure(let error)? = a.outcome { #expect(error.failedAttempts == 3) } else { Issue.record("a") }
        if case .failure(let error)? = b.outcome { #expect(error.failedAttempts == 1) } else { Issue.record("b") }
    }

    /// The default rule: `ABORTED`, `UNAVAILABLE`, `RESOURCE_EXHAUSTED` (and `INTERNAL` for a delete) while fewer
    /// than 10 attempts have failed.
    @Test func theDefaultRetryRule() throws {
        let db = try BatchWriteServer().firestore()
        func error(_ code: FirestoreError.Code, _ type: BulkWriter.OperationType, _ attempts: Int) -> BulkWriterError {
            BulkWriterError(
                error: FirestoreError(code: code, message: ""), document: db.document("c/d"), operationType: type,
                failedAttempts: attempts)
        }
        #expect(BulkWriterBackoff.shouldRetry(error(.aborted, .set, 1)))
        #expect(BulkWriterBackoff.shouldRetry(error(.unavailable, .update, 9)))
        #expect(!BulkWriterBackoff.shouldRetry(error(.unavailable, .update, 10)))
        #expect(BulkWriterBackoff.shouldRetry(error(.resourceExhausted, .create, 1)))
        #expect(BulkWriterBackoff.shouldRetry(error(.internal, .delete, 1)))
        #expect(!BulkWriterBackoff.shouldRetry(error(.internal, .set, 1)))
        for code in [FirestoreError.Code.alreadyExists, .notFound, .failedPrecondition, .deadlineExceeded, .cancelled] {
            #expect(!BulkWriterBackoff.shouldRetry(error(code, .set, 1)), "\(code)")
        }
    }

    /// The back-off: 1 s, then × 1.5; 60 s after `RESOURCE_EXHAUSTED`; ± 30 % jitter, capped at 60 s.
    @Test func theBackOffArithmetic() {
        var waits: [Duration] = []
        var wait = Duration.zero
        for _ in 0..<4 {
            wait = BulkWriterBackoff.next(after: wait, failedWith: .aborted)
            waits.append(wait)
        }
        #expect(waits == [.seconds(1), .milliseconds(1500), .milliseconds(2250), .milliseconds(3375)])
        #expect(BulkWriterBackoff.next(after: .seconds(1), failedWith: .resourceExhausted) == .seconds(60))
        #expect(BulkWriterBackoff.jittered(.seconds(1), randomUnit: 0) == .milliseconds(700))
        #expect(BulkWriterBackoff.jittered(.seconds(1), randomUnit: 0.5) == .seconds(1))
        #expect(BulkWriterBackoff.jittered(.seconds(1), randomUnit: 1) == .milliseconds(1300))
        #expect(BulkWriterBackoff.jittered(.seconds(60), randomUnit: 1) == .seconds(60))
        #expect(BulkWriterBackoff.jittered(.seconds(60), randomUnit: 0) == .seconds(42))
        #expect(BulkWriterBackoff.jittered(.zero, randomUnit: 1) == .zero)
    }

    /// `RESOURCE_EXHAUSTED` waits 60 s (jittered down to 42 s with the random unit at 0).
    @Test func resourceExhaustedWaitsAMinute() async throws {
        let server = BatchWriteServer(rule: { _, attempt in attempt == 1 ? (8, "quota") : nil })
        let db = try server.firestore()
        let clock = ManualClock()
        let writer = try BulkWriter(firestore: db, options: BulkWriter.Options(clock: clock), randomUnit: { 0 })
        try await writer.deleteDocument(db.document("c/a"))
        let flush = Task { try await writer.flush() }
        #expect(try await pollUntil { clock.sleeperCount == 1 })
        // Still asleep right after `advance` (which wakes the sleepers whose deadline came): the retry waits.
        clock.advance(by: .milliseconds(41_999))
        #expect(clock.sleeperCount == 1)
        #expect(server.requests.count == 1)
        clock.advance(by: .milliseconds(1))
        try await flush.value
        #expect(server.requests.count == 2)
    }

    /// With `maxPendingOperations` writes pending, the next write method waits until one finishes; cancelled while
    /// waiting, it throws `.cancelled` and enqueues nothing.
    @Test func writesWaitForRoomAmongThePendingOnes() async throws {
        let server = BatchWriteServer(gated: true)
        let db = try server.firestore()
        let writer = try db.bulkWriter(options: BulkWriter.Options(throttling: .disabled, maxPendingOperations: 20))
        for index in 0..<20 { try await writer.setData(["n": 1], forDocument: db.document("c/d\(index)")) }
        #expect(try await pollUntil { server.requests.count == 1 })
        let returned = Mutex(false)
        let waiting = Task {
            let operation = try await writer.setData(["n": 1], forDocument: db.document("c/late"))
            returned.withLock { $0 = true }
            return operation
        }
        let cancelled = Task { try await writer.setData(["n": 1], forDocument: db.document("c/never")) }
        // Both wait for room (however long their tasks take to start): neither has returned, and the one cancelled
        // is cancelled while it waits.
        #expect(try await pollUntil { writer.roomWaiterCount == 2 })
        #expect(returned.withLock { $0 } == false)
        cancelled.cancel()
        await #expect(
            throws: FirestoreError(
                code: .cancelled, message: "cancelled while waiting for room among the BulkWriter's pending writes")
        ) { try await cancelled.value }
        server.open()
        let late = try await waiting.value
        try await writer.close()
        #expect(try await late.result.updateTime != nil)
        #expect(server.requests.map(\.count) == [20, 1])
        #expect(!server.requests.joined().contains("c/never"))
    }

    /// `flush()` waits for what was enqueued before it, not for what comes after; `close()` refuses new writes and
    /// may be called again.
    @Test func flushAndClose() async throws {
        let server = BatchWriteServer(gated: true)
        let db = try server.firestore()
        let writer = try db.bulkWriter(options: Self.unthrottled)
        let a = try await writer.setData(["n": 1], forDocument: db.document("c/a"))
        let flush = Task { try await writer.flush() }
        #expect(try await pollUntil { server.requests.count == 1 })
        let b = try await writer.setData(["n": 1], forDocument: db.document("c/b"))
        server.open()
        try await flush.value
        #expect(a.outcome != nil)
        #expect(b.outcome == nil)
        try await writer.close()
        #expect(b.outcome != nil)
        #expect(writer.isClosed)
        await #expect(
            throws: FirestoreError(code: .failedPrecondition, message: "this BulkWriter was closed; make a new one")
        ) { try await writer.deleteDocument(db.document("c/c")) }
        try await writer.close()
        #expect(server.requests == [["c/a"], ["c/b"]])
        // A flush with nothing pending returns at once.
        try await db.bulkWriter().flush()
    }

    /// Bad data throws when enqueued, before anything is sent; a document of another database is refused.
    @Test func badWritesThrowWhenEnqueued() async throws {
        let server = BatchWriteServer()
        let db = try server.firestore()
        let writer = try db.bulkWriter(options: Self.unthrottled)
        await #expect(
            throws: FirestoreError.invalidArgument(
                #"field name "__x__" is reserved: names matching __.*__ cannot be written"#)
        ) { try await writer.setData(["__x__": 1], forDocument: db.document("c/a")) }
        let other = Firestore(
            database: try DatabaseID(projectID: "q"), baseURL: "http://test.invalid/v1/",
            credentials: NoCredentials(), transport: server, isEmulator: false)
        await #expect(throws: FirestoreError.self) { try await writer.deleteDocument(other.document("c/a")) }
        try await writer.close()
        #expect(server.requests.isEmpty)
    }

    /// An awaiting task that is cancelled stops waiting with `CancellationError`; the write goes on.
    @Test func awaitingAResultIsCancellable() async throws {
        let server = BatchWriteServer(gated: true)
        let db = try server.firestore()
        let writer = try db.bulkWriter(options: Self.unthrottled)
        let a = try await writer.setData(["n": 1], forDocument: db.document("c/a"))
        let waiter = Task { try await a.result }
        let flush = Task { try await writer.flush() }
        #expect(try await pollUntil { server.requests.count == 1 })
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        server.open()
        try await flush.value
        #expect(try await a.result.updateTime != nil)
    }

    /// The options the Node SDK refuses, and a start rate below 20 capping the batch size.
    @Test func options() throws {
        let db = try BatchWriteServer().firestore()
        let refusals: [(BulkWriter.Options, String)] = [
            (
                .init(throttling: .rampUp(initialOpsPerSecond: 0)),
                "BulkWriter: initialOpsPerSecond must be at least 1, got 0"
            ),
            (.init(throttling: .rampUp(maxOpsPerSecond: 0)), "BulkWriter: maxOpsPerSecond must be at least 1, got 0"),
            (
                .init(throttling: .rampUp(initialOpsPerSecond: 600, maxOpsPerSecond: 550)),
                "BulkWriter: maxOpsPerSecond (550) cannot be less than initialOpsPerSecond (600)"
            ),
            (
                .init(maxPendingOperations: 19),
                "BulkWriter: maxPendingOperations must be at least 20 (one batch), got 19"
            ),
        ]
        for (options, message) in refusals {
            #expect(throws: FirestoreError.invalidArgument(message)) { try db.bulkWriter(options: options) }
        }
        #expect(try db.bulkWriter(options: .init(throttling: .rampUp(initialOpsPerSecond: 5))).maxBatchSize == 5)
        #expect(try db.bulkWriter(options: .init(throttling: .rampUp(maxOpsPerSecond: 8))).maxBatchSize == 8)
        #expect(try db.bulkWriter(options: .init(throttling: .rampUp(initialOpsPerSecond: 5))).retryBatchSize == 5)
        #expect(try db.bulkWriter().maxBatchSize == 20)
        #expect(try db.bulkWriter().retryBatchSize == 10)
    }

    /// The throttle through the writer: at 100 writes per second, five batches of 20 go at once and the sixth
    /// 200 ms later (`ceil(20 × 1000 / 100)`), not before.
    @Test func theThrottleHoldsBatchesOnTheClock() async throws {
        let server = BatchWriteServer()
        let db = try server.firestore()
        let clock = ManualClock()
        let writer = try BulkWriter(
            firestore: db,
            options: BulkWriter.Options(
                throttling: .rampUp(initialOpsPerSecond: 100, maxOpsPerSecond: 100), clock: clock))
        for index in 0..<120 { try await writer.setData(["n": 1], forDocument: db.document("c/d\(index)")) }
        #expect(try await pollUntil { server.requests.count == 5 && clock.sleeperCount == 1 })
        clock.advance(by: .milliseconds(190))
        // The sixth batch asked for 20 tokens at 0 ms and sleeps until they are there, at 200 ms: after 190 ms
        // (19 tokens) it is still asleep, right after `advance` (which wakes the sleepers whose deadline came), and
        // has sent nothing.
        #expect(clock.sleeperCount == 1)
        #expect(server.requests.count == 5)
        clock.advance(by: .milliseconds(10))
        try await writer.close()
        #expect(server.requests.count == 6)
    }

    /// A batchWrite response that does not fit the request is an `.internal` error for every write of it; the default
    /// rule retries only the deletes among them.
    @Test func aMalformedResponseFailsTheRequestsWrites() async throws {
        let server = BatchWriteServer(requestFailure: { index in
            index == 0 ? .ok(["writeResults": [.object([:])], "status": [.object([:])]]) : nil
        })
        let db = try server.firestore()
        let clock = ManualClock()
        let writer = try BulkWriter(firestore: db, options: BulkWriter.Options(clock: clock), randomUnit: { 0.5 })
        let set = try await writer.setData(["n": 1], forDocument: db.document("c/a"))
        let delete = try await writer.deleteDocument(db.document("c/b"))
        let flush = Task { try await writer.flush() }
        #expect(try await pollUntil { clock.sleeperCount == 1 })
        clock.advance(by: .seconds(1))
        try await flush.value
        guard case .failure(let error)? = set.outcome else {
            Issue.record("the set should fail")
            return
        }
        #expect(
            error.error
                == FirestoreError(
                    code: .internal,
                    message: "batchWrite response (writes may have been applied): 1 writeResults elements for 2 writes")
        )
        #expect(try await delete.result == WriteResult(updateTime: nil, writeTime: ts(0)))
        #expect(server.requests == [["c/a", "c/b"], ["c/b"]])
    }
}
