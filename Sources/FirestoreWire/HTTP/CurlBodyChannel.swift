import Dispatch
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Hands a streamed response from the thread running `curl_easy_perform` to the task reading it, one chunk at a
/// time: the response head first (``head()``), then each body chunk (``next()``), then the end or the failure.
///
/// The transfer thread's write callback (``deliver(_:)``) gives a chunk straight to a waiting reader, or parks it
/// and blocks that thread (a thread of its own, never the cooperative pool's: CONTRIBUTING.md, "Never block a Swift
/// concurrency thread") until the reader takes it, so at most one chunk waits. ``cancel()`` (the reader went away or
/// was cancelled) wakes it and makes the callback refuse further bytes, which aborts the transfer.
final class CurlBodyChannel: HTTPBodySource {
    private struct State {
        var head: (status: Int, headers: [HTTPHeader])?
        var headWaiter: CheckedContinuation<(Int, [HTTPHeader]), any Error>?
        var chunk: Data?
        var reader: CheckedContinuation<Data?, any Error>?
        var end: Result<Void, FirestoreError>?
        var cancelled = false
        /// Waiting in ``ended()`` for the transfer to end.
        var endWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())
    /// Signalled when a parked chunk was taken or the channel was cancelled.
    private let taken = DispatchSemaphore(value: 0)
    let cancellation: CurlCancellation

    init(cancellation: CurlCancellation) {
        self.cancellation = cancellation
    }

    // MARK: - The transfer thread

    /// The final response head arrived.
    func receiveHead(status: Int, headers: [HTTPHeader]) {
        let waiter = state.withLock { state -> CheckedContinuation<(Int, [HTTPHeader]), any Error>? in
            guard state.head == nil else { return nil }
            state.head = (status, headers)
            defer { state.headWaiter = nil }
            return state.headWaiter
        }
        waiter?.resume(returning: (status, headers))
    }

    /// Hands over one chunk; blocks the transfer thread while an earlier chunk waits. Returns `false` (abort the
    /// transfer) once the reader has gone.
    func deliver(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let data = Data(bytes)
        enum Step {
            case refused
            case handed(CheckedContinuation<Data?, any Error>)
            case parked
        }
        let step = state.withLock { state -> Step in
            if state.cancelled { return .refused }
            if let reader = state.reader {
                state.reader = nil
                return .handed(reader)
            }
            state.chunk = data
            return .parked
        }
        switch step {
        case .refused: return false
        case .handed(let reader):
            reader.resume(returning: data)
            return true
        case .parked:
            taken.wait()  // the transfer thread, not the pool: see the type's documentation
            return !state.withLock { $0.cancelled }
        }
    }

    /// The transfer ended: the body is complete (`.success`) or failed.
    func finish(_ result: Result<Void, FirestoreError>) {
        let (headWaiter, reader, head, endWaiters) = state.withLock { state in
            state.end = result
            defer {
                state.headWaiter = nil
                if state.chunk == nil { state.reader = nil }
                state.endWaiters = []
            }
            return (state.headWaiter, state.chunk == nil ? state.reader : nil, state.head, state.endWaiters)
        }
        for waiter in endWaiters { waiter.resume() }
        if let headWaiter {
            switch result {
            case .failure(let error): headWaiter.resume(throwing: error)
            case .success:
                if let head {
                    headWaiter.resume(returning: head)
                } else {
                    headWaiter.resume(throwing: FirestoreError(code: .internal, message: "a response without a head"))
                }
            }
        }
        reader?.resume(with: result.map { nil })
    }

    // MARK: - The reading task

    /// Waits for the response head.
    /// - Throws: the transfer's error when it ended before a head arrived; `.cancelled` when the task is cancelled.
    func head(url: String) async throws -> (status: Int, headers: [HTTPHeader]) {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation {
                (continuation: CheckedContinuation<(Int, [HTTPHeader]), any Error>) in
                enum Now {
                    case head(Int, [HTTPHeader])
                    case failed(any Error)
                    case wait
                }
                let now = state.withLock { state -> Now in
                    if let head = state.head { return .head(head.status, head.headers) }
                    if state.cancelled { return .failed(CurlErrorMapping.cancelled(url: url)) }
                    if case .failure(let error)? = state.end { return .failed(error) }
                    state.headWaiter = continuation
                    return .wait
                }
                switch now {
                case .head(let status, let headers): continuation.resume(returning: (status, headers))
                case .failed(let error): continuation.resume(throwing: error)
                case .wait: break
                }
            }
        } onCancel: {
            cancel(error: CurlErrorMapping.cancelled(url: url))
        }
    }

    /// The next body chunk, or `nil` at the end.
    /// - Throws: the transfer's error; `.cancelled` when the task is cancelled.
    func next() async throws -> Data? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                enum Now {
                    case chunk(Data)
                    case end(Result<Void, FirestoreError>)
                    case wait
                }
                let now = state.withLock { state -> Now in
                    if let chunk = state.chunk {
                        state.chunk = nil
                        return .chunk(chunk)
                    }
                    if let end = state.end { return .end(end) }
                    if state.cancelled { return .end(.failure(FirestoreError(code: .cancelled, message: "cancelled"))) }
                    state.reader = continuation
                    return .wait
                }
                switch now {
                case .chunk(let chunk):
                    taken.signal()
                    continuation.resume(returning: chunk)
                case .end(let result): continuation.resume(with: result.map { nil })
                case .wait: break
                }
            }
        } onCancel: {
            cancel(error: FirestoreError(code: .cancelled, message: "the read of a streamed response was cancelled"))
        }
    }

    /// Returns once the transfer has ended (its thread is done with the handle).
    func ended() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = state.withLock { state -> Bool in
                guard state.end == nil else { return true }
                state.endWaiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }

    /// Stops the transfer: the write callback refuses the next bytes and the progress callback aborts; a waiting
    /// reader or head waiter gets `error`.
    func cancel(error: FirestoreError = FirestoreError(code: .cancelled, message: "cancelled")) {
        cancellation.cancel()
        let (headWaiter, reader, wasParked) = state.withLock { state in
            let first = !state.cancelled
            state.cancelled = true
            defer {
                state.headWaiter = nil
                state.reader = nil
                state.chunk = nil
            }
            return (state.headWaiter, state.reader, first && state.chunk != nil)
        }
        if wasParked { taken.signal() }
        headWaiter?.resume(throwing: error)
        reader?.resume(throwing: error)
    }
}

/// Cancels the transfer behind a streamed body when the last reference to the body goes.
final class CurlBodyOwner: HTTPBodySource {
    let channel: CurlBodyChannel

    init(channel: CurlBodyChannel) { self.channel = channel }

    func next() async throws -> Data? { try await channel.next() }

    func cancel(error: FirestoreError) { channel.cancel(error: error) }

    func ended() async { await channel.ended() }

    deinit { channel.cancel() }
}
