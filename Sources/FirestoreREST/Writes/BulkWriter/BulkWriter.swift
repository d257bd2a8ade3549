import FirestoreWire
import Synchronization

/// Many independent writes, sent in parallel batches of up to 20 over `batchWrite`, throttled, each retried on its own
/// when it fails for a transient reason: the server SDKs' `BulkWriter` (Node:
/// https://googleapis.dev/nodejs/firestore/latest/BulkWriter.html ; REST `batchWrite`:
/// https://cloud.google.com/firestore/docs/reference/rest/v1/projects.databases.documents/batchWrite). Unlike a
/// ``WriteBatch`` the writes are **not atomic**: each succeeds or fails alone, in no guaranteed order. Make one with
/// ``Firestore/bulkWriter(options:)``.
///
/// ```swift
/// let writer = try db.bulkWriter()
/// writer.onWriteError { error in
///     print("failed:", error)                        // create of fruits/apple failed (attempt 1): already-exists ...
///     return error.code == .unavailable && error.failedAttempts < 5
/// }
/// for fruit in fruits {
///     try await writer.setData(["name": .value(.string(fruit))], forDocument: db.collection("fruits").document(fruit))
/// }
/// let apple = try await writer.create(["name": "Apple"], forDocument: db.document("fruits/apple"))
/// try await writer.close()                           // sends what is left and waits for every result
/// print(try await apple.result.writeTime)
/// ```
///
/// The rules, as the Node SDK's:
/// - **Batching.** Writes fill a batch of 20 (``maxBatchSize``); a full batch is sent at once, in parallel with the
///   ones before it; ``flush()`` and ``close()`` send a partial one. A batch never holds two writes to one document
///   (the server refuses that): such a write starts the next batch.
/// - **Results.** Each write method returns an ``Operation``; its ``Operation/result`` is the server's
///   ``WriteResult`` or a ``BulkWriterError``. ``onWriteResult(_:)`` hears every success, ``onWriteError(_:)`` every
///   failed attempt. A failure of the whole request (a transport error, a 503) is every one of its writes' failure.
/// - **Retries.** By default a write that fails with `ABORTED`, `UNAVAILABLE` or `RESOURCE_EXHAUSTED` (a delete
///   also with `INTERNAL`) is retried while fewer than 10 attempts have failed; ``onWriteError(_:)`` replaces that
///   rule. A retried write waits 1 s, then 1.5 times longer at each further retry (60 s after
///   `RESOURCE_EXHAUSTED`), ± 30 % jitter, at most 60 s; retried writes go in batches of at most 10, as soon as
///   their wait is over.
/// - **Throttle.** By default the 500/50/5 rule (Firestore best practices, "Ramping up traffic"): 500 writes per
///   second at first, 50 % more every 5 minutes, at most 10,000 (``Throttling``).
/// - **Memory.** At most ``Options/maxPendingOperations`` (500) writes are pending at once (enqueued and not
///   finished); a write method called beyond that waits, without blocking a thread, until one finishes. So a loop
///   that enqueues faster than the server drains holds at most 500 writes.
///
/// Every method may be called from any task; callbacks run on the writer's tasks, one at a time per batch, and must
/// not block.
public final class BulkWriter: Sendable {
    /// The client the writes go through.
    public let firestore: Firestore
    /// The options, as given.
    public let options: Options
    /// Writes per `batchWrite` request: 20, or a lower initial throttle rate.
    public let maxBatchSize: Int
    /// Writes per request of retried writes: 10 (Node's `RETRY_MAX_BATCH_SIZE`, keeping such requests well under
    /// the 10 MiB request limit), or ``maxBatchSize`` when lower.
    package var retryBatchSize: Int { min(10, maxBatchSize) }

    private let clock: ElapsedClock
    private let randomUnit: @Sendable () -> Double
    private let state: Mutex<State>

    private struct SlotWaiter {
        let id: Int
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct FlushWaiter {
        let id: Int
        /// Waits for the operations with a lower sequence number.
        let threshold: UInt64
        /// How many of those are not finished.
        var remaining: Int
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var closed = false
        var nextSequence: UInt64 = 0
        /// The batch being filled, and its documents' names.
        var batch: [Operation] = []
        var batchNames: Set<ByteExactName> = []
        /// Operations enqueued (or granted a place) and not finished: at most `maxPendingOperations`.
        var slots = 0
        /// Operations created and not finished (what a flush waits for).
        var live = 0
        var slotWaiters: [SlotWaiter] = []
        var flushWaiters: [FlushWaiter] = []
        var nextWaiterID = 0
        var limiter: RateLimiter?
        var onResult: (@Sendable (DocumentReference, WriteResult) -> Void)?
        var onError: (@Sendable (BulkWriterError) -> Bool)?
    }

    /// A writer on `firestore`; see ``Firestore/bulkWriter(options:)``.
    /// - Parameter randomUnit: the random numbers in `0 ..< 1` behind the back-off jitter (injected for tests).
    /// - Throws: ``FirestoreError`` `.invalidArgument` for invalid options.
    package init(
        firestore: Firestore, options: Options = Options(),
        randomUnit: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) throws(FirestoreError) {
        var batchSize = 20
        var limiter: RateLimiter?
        if case .rampUp(let initial, let maximum) = options.throttling {
            if let initial, initial < 1 {
                throw .invalidArgument("BulkWriter: initialOpsPerSecond must be at least 1, got \(initial)")
            }
            if let maximum, maximum < 1 {
                throw .invalidArgument("BulkWriter: maxOpsPerSecond must be at least 1, got \(maximum)")
            }
            if let initial, let maximum, initial > maximum {
                throw .invalidArgument(
                    "BulkWriter: maxOpsPerSecond (\(maximum)) cannot be less than initialOpsPerSecond (\(initial))")
            }
            let maxRate = maximum ?? 10_000
            let startRate = min(initial ?? 500, maxRate)
            batchSize = min(batchSize, startRate)
            limiter = .rampUp(initialOpsPerSecond: startRate, maxOpsPerSecond: maxRate)
        }
        guard options.maxPendingOperations >= 20 else {
            throw .invalidArgument(
                "BulkWriter: maxPendingOperations must be at least 20 (one batch), got \(options.maxPendingOperations)")
        }
        self.firestore = firestore
        self.options = options
        self.maxBatchSize = batchSize
        self.clock = ElapsedClock(options.clock)
        self.randomUnit = randomUnit
        var initial = State()
        initial.limiter = limiter
        self.state = Mutex(initial)
    }

    // MARK: - Callbacks

    /// Sets the callback told of every successful write, with its document and result (Node `onWriteResult`),
    /// before the write's ``Operation/result`` returns. It runs on the writer's task: keep it short, never block.
    public func onWriteResult(_ callback: @escaping @Sendable (DocumentReference, WriteResult) -> Void) {
        state.withLock { $0.onResult = callback }
    }

    /// Sets the callback that decides, after each failed attempt of a write, whether to retry it (Node
    /// `onWriteError`): `true` retries after the back-off, `false` fails the write with this error. It replaces the
    /// default rule (`ABORTED`, `UNAVAILABLE`, `RESOURCE_EXHAUSTED`, and `INTERNAL` for deletes, while fewer than 10
    /// attempts failed). It runs on the writer's task: keep it short, never block.
    public func onWriteError(_ callback: @escaping @Sendable (BulkWriterError) -> Bool) {
        state.withLock { $0.onError = callback }
    }

    // MARK: - Flush and close

    /// Sends the writes enqueued so far and waits until each of them has its result (succeeded, or failed for good
    /// after its retries). Writes enqueued meanwhile are sent too, but not waited for. Never throws for a failed
    /// write: those are in each ``Operation/result``.
    /// - Throws: `CancellationError` when the calling task is cancelled (the writes go on).
    public func flush() async throws {
        let id = state.withLock { state -> Int in
            state.nextWaiterID += 1
            return state.nextWaiterID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                // Sealing the batch and counting what to wait for happen together, so that nothing the flush
                // waits for stays behind in an unsent batch.
                let (sealed, outcome) = state.withLock { state -> ([Operation], Result<Void, any Error>?) in
                    let sealed = Self.takeBatch(&state)
                    if Task.isCancelled { return (sealed, .failure(CancellationError())) }
                    if state.live == 0 { return (sealed, .success(())) }
                    state.flushWaiters.append(
                        FlushWaiter(
                            id: id, threshold: state.nextSequence, remaining: state.live, continuation: continuation))
                    return (sealed, nil)
                }
                if !sealed.isEmpty { schedule(sealed) }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> FlushWaiter? in
                guard let index = state.flushWaiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.flushWaiters.remove(at: index)
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Stops taking writes (every write method then throws `.failedPrecondition`), sends what is enqueued and waits
    /// until every write has its result, retries included, as ``flush()``. Calling it again waits again.
    /// - Throws: `CancellationError` when the calling task is cancelled (the writes go on).
    public func close() async throws {
        state.withLock { $0.closed = true }
        try await flush()
    }

    /// Whether ``close()`` was called.
    public var isClosed: Bool { state.withLock { $0.closed } }

    // MARK: - Enqueueing

    /// Encodes a write for `document`, waits for room among the pending writes, and adds it to the batch being
    /// filled (sending the batch when it is full).
    /// - Throws: ``FirestoreError`` from `encode` (`.invalidArgument` for bad data), `.invalidArgument` for a document
    ///   of another database, `.failedPrecondition` after ``close()``, `.cancelled` when the task is cancelled while
    ///   waiting for room.
    func enqueue(
        _ document: DocumentReference, _ type: OperationType,
        _ encode: (DocumentReference) throws(FirestoreError) -> Write
    ) async throws(FirestoreError) -> Operation {
        try firestore.checkOwns(document)
        let write = try encode(document)
        _ = try firestore.stampingServerTime([write])
        guard !isClosed else { throw Self.closedError }
        try await acquireSlot()
        let name = ByteExactName(name: document.resourceName)
        let (operation, sealed, handed) = state.withLock {
            state -> (Operation?, [[Operation]], SlotWaiter?) in
            guard !state.closed else { return (nil, [], Self.releaseSlot(&state)) }
            let operation = Operation(
                document: document, operationType: type, write: write, sequence: state.nextSequence)
            state.nextSequence += 1
            state.live += 1
            var sealed: [[Operation]] = []
            if state.batchNames.contains(name) { sealed.append(Self.takeBatch(&state)) }
            state.batch.append(operation)
            state.batchNames.insert(name)
            if state.batch.count >= maxBatchSize { sealed.append(Self.takeBatch(&state)) }
            return (operation, sealed, nil)
        }
        handed?.continuation.resume()
        guard let operation else { throw Self.closedError }
        for batch in sealed where !batch.isEmpty { schedule(batch) }
        return operation
    }

    private static let closedError = FirestoreError(
        code: .failedPrecondition, message: "this BulkWriter was closed; make a new one")

    /// Takes a place among the pending writes, waiting (suspended) while there are `maxPendingOperations`.
    /// - Throws: ``FirestoreError`` `.cancelled` when the task is cancelled while waiting.
    private func acquireSlot() async throws(FirestoreError) {
        let limit = options.maxPendingOperations
        let id = state.withLock { state -> Int? in
            if state.slots < limit, state.slotWaiters.isEmpty {
                state.slots += 1
                return nil
            }
            state.nextWaiterID += 1
            return state.nextWaiterID
        }
        guard let id else { return }
        do {
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                    let outcome = state.withLock { state -> Result<Void, any Error>? in
                        if Task.isCancelled { return .failure(CancellationError()) }
                        if state.slots < limit, state.slotWaiters.isEmpty {
                            state.slots += 1
                            return .success(())
                        }
                        state.slotWaiters.append(SlotWaiter(id: id, continuation: continuation))
                        return nil
                    }
                    if let outcome { continuation.resume(with: outcome) }
                }
            } onCancel: {
                let waiter = state.withLock { state -> SlotWaiter? in
                    guard let index = state.slotWaiters.firstIndex(where: { $0.id == id }) else { return nil }
                    return state.slotWaiters.remove(at: index)
                }
                waiter?.continuation.resume(throwing: CancellationError())
            }
        } catch {
            throw FirestoreError(
                code: .cancelled, message: "cancelled while waiting for room among the BulkWriter's pending writes")
        }
    }

    /// How many write methods wait for room among the pending writes, for tests.
    package var roomWaiterCount: Int { state.withLock { $0.slotWaiters.count } }

    /// Gives a place back: to the first waiting enqueuer if there is one (returned, to be resumed outside the lock).
    private static func releaseSlot(_ state: inout State) -> SlotWaiter? {
        guard !state.slotWaiters.isEmpty else {
            state.slots -= 1
            return nil
        }
        return state.slotWaiters.removeFirst()
    }

    /// The batch being filled, emptied.
    private static func takeBatch(_ state: inout State) -> [Operation] {
        defer {
            state.batch = []
            state.batchNames = []
        }
        return state.batch
    }

    // MARK: - Sending

    /// Sends `batch` on a task of its own.
    private func schedule(_ batch: [Operation]) {
        Task { await self.send(batch) }
    }

    /// Waits for the batch's back-off and the throttle, sends it, and settles or retries each write.
    private func send(_ batch: [Operation]) async {
        let backoff = batch.map(\.backoff).max() ?? .zero
        if backoff > .zero {
            try? await clock.sleep(for: BulkWriterBackoff.jittered(backoff, randomUnit: randomUnit()))
        }
        await throttle(batch.count)
        let outcomes: [Result<WriteResult, FirestoreError>]
        do {
            outcomes = try await firestore.batchWrite(batch.map(\.write)).outcomes
        } catch {
            let failure = (error as? FirestoreError) ?? FirestoreError(code: .unknown, message: "batchWrite: \(error)")
            outcomes = Array(repeating: .failure(failure), count: batch.count)
        }
        let (onResult, onError) = state.withLock { ($0.onResult, $0.onError) }
        var retries: [Operation] = []
        for (operation, outcome) in zip(batch, outcomes) {
            switch outcome {
            case .success(let result):
                onResult?(operation.document, result)
                settle(operation, .success(result))
            case .failure(let error):
                let failure = BulkWriterError(
                    error: error, document: operation.document, operationType: operation.operationType,
                    failedAttempts: operation.noteFailure())
                if (onError ?? BulkWriterBackoff.shouldRetry)(failure) {
                    operation.noteRetry(after: error.code)
                    retries.append(operation)
                } else {
                    settle(operation, .failure(failure))
                }
            }
        }
        var start = 0
        while start < retries.count {
            let end = min(start + retryBatchSize, retries.count)
            schedule(Array(retries[start..<end]))
            start = end
        }
    }

    /// Waits until the throttle lets `count` writes through, and takes them from it.
    private func throttle(_ count: Int) async {
        while true {
            let wait = state.withLock { state -> Duration? in
                guard var limiter = state.limiter else { return nil }
                defer { state.limiter = limiter }
                let now = clock.elapsed
                if limiter.tryMakeRequest(count, at: now) { return nil }
                // nil: more than the capacity ever allows (a batch is never larger than the start rate): send.
                return limiter.nextRequestDelay(count, at: now)
            }
            guard let wait, wait > .zero else { return }
            try? await clock.sleep(for: wait)
        }
    }

    /// Settles `operation` and frees its place: wakes the first waiting enqueuer and the flushes it completes.
    private func settle(_ operation: Operation, _ outcome: Result<WriteResult, BulkWriterError>) {
        guard operation.settle(outcome) else { return }
        let (handed, flushed) = state.withLock { state -> (SlotWaiter?, [FlushWaiter]) in
            state.live -= 1
            var done: [FlushWaiter] = []
            var waiting: [FlushWaiter] = []
            for var waiter in state.flushWaiters {
                if operation.sequence < waiter.threshold { waiter.remaining -= 1 }
                if waiter.remaining <= 0 { done.append(waiter) } else { waiting.append(waiter) }
            }
            state.flushWaiters = waiting
            return (Self.releaseSlot(&state), done)
        }
        handed?.continuation.resume()
        for waiter in flushed { waiter.continuation.resume() }
    }
}

extension Firestore {
    /// A new ``BulkWriter`` on this client (the server SDKs' `firestore.bulkWriter(options)`).
    /// - Parameter options: the throttle (default: the 500/50/5 ramp-up), the bound on pending writes (500), the
    ///   clock.
    /// - Throws: ``FirestoreError`` `.invalidArgument` for a throttle rate below 1, an initial rate above the maximum,
    ///   or fewer than 20 pending writes.
    public func bulkWriter(options: BulkWriter.Options = BulkWriter.Options()) throws(FirestoreError) -> BulkWriter {
        try BulkWriter(firestore: self, options: options)
    }
}
