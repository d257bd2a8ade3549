import FirestoreREST
import Synchronization

/// A live ``RPCChannel`` whose calls are recorded into a ``RecordingTransport``'s cassette, each as one interaction
/// (``RPCExchange``) numbered when the call starts, so the cassette keeps the order calls and requests were sent in.
final class RecordingRPCChannel: RPCChannel {
    private let base: any RPCChannel
    private let transport: RecordingTransport
    private let baseURL: String

    init(base: any RPCChannel, transport: RecordingTransport, baseURL: String) {
        self.base = base
        self.transport = transport
        self.baseURL = baseURL
    }

    func makeRPCCall(method: String, request: [UInt8], metadata: [HTTPHeader], timeout: Double?)
        throws(FirestoreError) -> any RPCCall
    {
        let (sequence, start) = transport.beginExchange()
        let live: any RPCCall
        do {
            live = try base.makeRPCCall(method: method, request: request, metadata: metadata, timeout: timeout)
        } catch {
            try transport.dropExchange(sequence)
            throw error
        }
        let exchange = RPCExchange.request(method: method, message: request, metadata: metadata, baseURL: baseURL)
        return RecordingRPCCall(
            live: live,
            recorder: RecordingRPCCall.Recorder(
                transport: transport, sequence: sequence, start: start, request: exchange))
    }
}

/// One recorded call: the live call's messages pass through unchanged as they arrive; when it ends (OK, the
/// server's status, a recordable transport failure) the whole exchange is recorded once; a call that ends
/// otherwise, or is cancelled, is left out.
final class RecordingRPCCall: RPCCall {
    /// Records the call's outcome exactly once.
    final class Recorder: Sendable {
        let transport: RecordingTransport
        let sequence: Int
        let start: Duration
        let request: HTTPRequest
        private let done = Mutex(false)

        init(transport: RecordingTransport, sequence: Int, start: Duration, request: HTTPRequest) {
            self.transport = transport
            self.sequence = sequence
            self.start = start
            self.request = request
        }

        /// Leaves the call out of the recording (cancelled by the client), unless it was already recorded.
        /// - Throws: `FirestoreError` `.dataLoss` when the cassette file cannot be written.
        func leaveOut() throws(FirestoreError) {
            guard claim() else { return }
            try transport.dropExchange(sequence)
        }

        /// Whether this is the first outcome (the others are ignored).
        private func claim() -> Bool {
            done.withLock { done in
                defer { done = true }
                return !done
            }
        }

        /// Records `messages` and `error` (`nil`: OK), unless the call was already recorded or left out.
        /// - Throws: `FirestoreError` `.dataLoss` when the cassette file cannot be written.
        func finish(messages: [[UInt8]], error: (any Error)?) throws(FirestoreError) {
            guard claim() else { return }
            let firestoreError = error as? FirestoreError
            if let error, firestoreError.flatMap(RPCExchange.status(of:)) == nil {
                guard let failure = Cassette.Failure(recording: error, of: request) else {
                    try transport.dropExchange(sequence)
                    return
                }
                try transport.record(
                    sequence: sequence, start: start, request: request, response: Cassette.Response(status: 0),
                    failure: failure)
                return
            }
            let response = try RPCExchange.response(
                messages: messages, status: firestoreError.flatMap(RPCExchange.status(of:)),
                retryDelay: firestoreError?.retryAfter)
            try transport.record(
                sequence: sequence, start: start, request: request, response: Cassette.Response(response),
                failure: nil)
        }
    }

    struct Responses: AsyncSequence {
        typealias Element = [UInt8]
        typealias Failure = any Error
        let live: any RPCCall
        let recorder: Recorder

        struct AsyncIterator: AsyncIteratorProtocol {
            var base: any AsyncIteratorProtocol<[UInt8], any Error>
            let recorder: Recorder
            var messages: [[UInt8]] = []

            mutating func next() async throws -> [UInt8]? {
                do {
                    guard let message = try await base.next() else {
                        try recorder.finish(messages: messages, error: nil)
                        return nil
                    }
                    messages.append(message)
                    return message
                } catch let error as FirestoreError where error.code == .cancelled && !error.isServerStatus {
                    try recorder.leaveOut()
                    throw error
                } catch {
                    try recorder.finish(messages: messages, error: error)
                    throw error
                }
            }
        }

        func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(base: live.responses.makeAsyncIterator(), recorder: recorder)
        }
    }

    let responses: Responses
    private let live: any RPCCall
    private let recorder: Recorder

    init(live: any RPCCall, recorder: Recorder) {
        self.live = live
        self.recorder = recorder
        responses = Responses(live: live, recorder: recorder)
    }

    func cancel() {
        live.cancel()
        try? recorder.leaveOut()
    }
}
