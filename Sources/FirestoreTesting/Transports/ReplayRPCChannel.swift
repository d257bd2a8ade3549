import FirestoreREST
import Synchronization

/// Replays the gRPC calls of a ``ReplayTransport``'s cassette (``RPCExchange``): a call takes the first unplayed
/// interaction that matches its method, metadata and request message as a REST request is matched, and gets its
/// recorded messages, then its recorded status. In `.newEpisodes` mode a call that matches nothing runs on `live`
/// (a recording channel) instead.
final class ReplayRPCChannel: RPCChannel {
    private let transport: ReplayTransport
    private let live: (any RPCChannel)?
    private let baseURL: String

    init(transport: ReplayTransport, live: (any RPCChannel)?, baseURL: String) {
        self.transport = transport
        self.live = live
        self.baseURL = baseURL
    }

    func makeRPCCall(method: String, request: [UInt8], metadata: [HTTPHeader], timeout: Double?)
        throws(FirestoreError) -> any RPCCall
    {
        let exchange = RPCExchange.request(method: method, message: request, metadata: metadata, baseURL: baseURL)
        let liveCall: @Sendable () throws(FirestoreError) -> (any RPCCall)? = { [live] () throws(FirestoreError) in
            try live?.makeRPCCall(method: method, request: request, metadata: metadata, timeout: timeout)
        }
        return ReplayRPCCall(transport: transport, request: exchange, live: liveCall)
    }
}

/// One replayed call (see ``ReplayRPCChannel``).
final class ReplayRPCCall: RPCCall {
    /// Whether ``cancel()`` was called.
    final class CancelFlag: Sendable {
        let isSet = Mutex(false)
    }

    private let cancelled = CancelFlag()
    let responses: Responses

    init(
        transport: ReplayTransport, request: HTTPRequest,
        live: @escaping @Sendable () throws(FirestoreError) -> (any RPCCall)?
    ) {
        responses = Responses(transport: transport, request: request, live: live, cancelled: cancelled)
    }

    func cancel() {
        cancelled.isSet.withLock { $0 = true }
    }

    struct Responses: AsyncSequence, Sendable {
        typealias Element = [UInt8]
        typealias Failure = any Error
        let transport: ReplayTransport
        let request: HTTPRequest
        let live: @Sendable () throws(FirestoreError) -> (any RPCCall)?
        let cancelled: CancelFlag

        func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(responses: self)
        }

        struct AsyncIterator: AsyncIteratorProtocol {
            let responses: Responses
            var pending: [[UInt8]]?
            var ending: FirestoreError?
            var liveIterator: (any AsyncIteratorProtocol<[UInt8], any Error>)?

            init(responses: Responses) {
                self.responses = responses
            }

            mutating func next() async throws -> [UInt8]? {
                if responses.cancelled.isSet.withLock({ $0 }) || Task.isCancelled {
                    throw FirestoreError(
                        code: .cancelled, message: "cancelled while replaying gRPC \(responses.request.url)")
                }
                if liveIterator != nil { return try await liveIterator?.next() }
                if pending == nil {
                    guard let response = try await responses.transport.answer(responses.request) else {
                        guard let call = try responses.live() else {
                            throw FirestoreError(
                                code: .failedPrecondition,
                                message: "\(responses.transport.name): no recorded gRPC call matches "
                                    + "\(responses.request.url) and none can be recorded")
                        }
                        liveIterator = call.responses.makeAsyncIterator()
                        return try await liveIterator?.next()
                    }
                    let outcome = try RPCExchange.outcome(of: response, cassette: responses.transport.name)
                    pending = outcome.messages
                    ending = outcome.error
                }
                if var messages = pending, !messages.isEmpty {
                    let first = messages.removeFirst()
                    pending = messages
                    return first
                }
                if let ending {
                    self.ending = nil
                    throw ending
                }
                return nil
            }
        }
    }
}
