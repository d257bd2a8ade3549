import FirestoreFeed
import FirestoreREST
import Synchronization

/// A live Listen call whose requests (as they are sent) and responses (as the client takes them) are recorded
/// in proto3 JSON with their times since the call started, and whose end is recorded as it happens: the
/// client's cancellation, the server's `OK`, or the error.
///
/// With a cassette file, the file is rewritten after every request, every `targetChange` response (which
/// includes every consistent snapshot point) and the end, so a session stopped by Ctrl-C keeps what it
/// recorded; document changes are saved with the next of those.
final class RecordingListenCall: ListenCall {
    let base: any ListenCall
    let transport: RecordingTransport
    let index: Int
    let start: Duration
    private let cancelled = Atomic<Bool>(false)

    init(base: any ListenCall, transport: RecordingTransport, index: Int, start: Duration) {
        self.base = base
        self.transport = transport
        self.index = index
        self.start = start
    }

    /// Sends `request` on the live call, then records it.
    /// - Throws: `FirestoreError` `.dataLoss` when the request has no proto3 JSON form (nothing is sent) or
    ///   the cassette file cannot be written; whatever the live call's `send` throws (nothing is recorded).
    func send(_ request: ListenRequest) throws(FirestoreError) {
        let json: JSONValue
        do {
            json = try request.protoJSON()
        } catch {
            throw FirestoreError(code: .dataLoss, message: "recording: \(error.message)")
        }
        try base.send(request)
        transport.listens.record(.request, json, in: index, since: start)
        try transport.saveListenSessions()
    }

    var responses: Responses {
        Responses(base: base.responses, call: self)
    }

    func cancel() {
        cancelled.store(true, ordering: .relaxed)
        transport.listens.end(index, .cancelledByClient)
        base.cancel()
        try? transport.saveListenSessions()
    }

    /// Records what the iterator saw: a response, the end of the stream, or the error that ended it.
    func took(_ response: ListenResponse?) throws(FirestoreError) {
        guard let response else {
            transport.listens.end(index, .finished)
            try transport.saveListenSessions()
            return
        }
        let sent = transport.interactionsSent
        transport.listens.record(
            .response, response.protoJSON, in: index, since: start, afterInteractions: sent > 0 ? sent : nil)
        if case .targetChange = response { try transport.saveListenSessions() }
    }

    func failed(_ error: any Error) {
        if cancelled.load(ordering: .relaxed) || Task.isCancelled {
            transport.listens.end(index, .cancelledByClient)
        } else if let error = error as? FirestoreError {
            transport.listens.end(index, .failed(code: error.code, message: error.message))
        } else {
            transport.listens.end(index, .failed(code: .unknown, message: "\(error)"))
        }
        try? transport.saveListenSessions()
    }

    /// The live call's responses, each recorded as the client takes it.
    struct Responses: AsyncSequence {
        let base: any AsyncSequence<ListenResponse, any Error>
        let call: RecordingListenCall

        func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(base: base.makeAsyncIterator(), call: call)
        }

        struct AsyncIterator: AsyncIteratorProtocol {
            var base: any AsyncIteratorProtocol<ListenResponse, any Error>
            let call: RecordingListenCall

            mutating func next() async throws -> ListenResponse? {
                let response: ListenResponse?
                do {
                    response = try await base.next()
                } catch {
                    call.failed(error)
                    throw error
                }
                try call.took(response)
                return response
            }
        }
    }
}
