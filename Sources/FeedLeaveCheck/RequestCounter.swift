import FirestoreREST
import Synchronization

/// An HTTP transport that counts the requests it passes to `CurlTransport`.
final class RequestCounter: HTTPTransport {
    private let inner = CurlTransport()
    private let sent = Atomic<Int>(0)

    /// How many requests were sent.
    var count: Int { sent.load(ordering: .relaxed) }

    func send(_ request: HTTPRequest) async throws(FirestoreError) -> HTTPResponse {
        sent.add(1, ordering: .relaxed)
        return try await inner.send(request)
    }
}
