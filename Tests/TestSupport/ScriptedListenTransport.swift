import FirestoreFeed
import FirestoreREST
import Foundation
import Synchronization

/// A Listen transport for unit tests of the Listen feed: every call it opens records what the client sends and
/// answers with what the test queues (``ScriptedListenCall/respond(_:)``); its HTTP requests fail. No network.
package final class ScriptedListenTransport: ListenTransport {
    private let log = Mutex<[ScriptedListenCall]>([])

    package init() {}

    /// Every call opened so far, in order.
    package var calls: [ScriptedListenCall] { log.withLock { $0 } }

    package func send(_ request: HTTPRequest) async throws(FirestoreError) -> HTTPResponse {
        throw FirestoreError(code: .unavailable, message: "the scripted Listen transport makes no HTTP requests")
    }

    package func makeListenChannel(for firestore: Firestore) throws(FirestoreError) -> any ListenChannel {
        Channel(transport: self)
    }

    /// Waits (polling every millisecond, up to 30 s) until `count` calls were opened; the last one then, if any.
    package func waitForCall(_ count: Int) async -> ScriptedListenCall? {
        for _ in 0..<30_000 where calls.count < count { try? await Task.sleep(for: .milliseconds(1)) }
        return calls.count >= count ? calls[count - 1] : nil
    }

    struct Channel: ListenChannel {
        let transport: ScriptedListenTransport

        func makeListenCall(metadata: [HTTPHeader]) throws(FirestoreError) -> any ListenCall {
            let call = ScriptedListenCall()
            transport.log.withLock { $0.append(call) }
            return call
        }

        var activeCallCount: Int { transport.calls.filter { !$0.isCancelled }.count }
    }
}

/// One call of a ``ScriptedListenTransport``.
package final class ScriptedListenCall: ListenCall {
    private let log = Mutex<(sent: [ListenRequest], cancelled: Bool)>(([], false))
    package let responses: AsyncThrowingStream<ListenResponse, any Error>
    private let continuation: AsyncThrowingStream<ListenResponse, any Error>.Continuation

    init() {
        (responses, continuation) = AsyncThrowingStream.makeStream(of: ListenResponse.self, throwing: (any Error).self)
    }

    /// The requests the client sent, in order.
    package var sent: [ListenRequest] { log.withLock { $0.sent } }

    /// Whether the client cancelled the call.
    package var isCancelled: Bool { log.withLock { $0.cancelled } }

    package func send(_ request: ListenRequest) throws(FirestoreError) {
        log.withLock { $0.sent.append(request) }
    }

    package func cancel() {
        log.withLock { $0.cancelled = true }
        continuation.finish(throwing: FirestoreError(code: .cancelled, message: "cancelled"))
    }

    /// Queues `responses` for the client.
    package func respond(_ responses: [ListenResponse]) {
        for response in responses { continuation.yield(response) }
    }

    /// Waits (polling every millisecond, up to 30 s) until the client has sent `count` requests.
    package func waitForSent(_ count: Int) async {
        for _ in 0..<30_000 where sent.count < count { try? await Task.sleep(for: .milliseconds(1)) }
    }
}
