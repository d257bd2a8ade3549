import FirestoreREST
import Synchronization

/// Passes requests on to `inner` and counts the feed's runQuery requests: one per poll.
final class PollCountingTransport: HTTPTransport {
    let inner: any HTTPTransport
    private let count = Atomic<Int>(0)

    init(_ inner: any HTTPTransport) { self.inner = inner }

    /// runQuery requests sent so far.
    var polls: Int { count.load(ordering: .relaxed) }

    func send(_ request: HTTPRequest) async throws(FirestoreError) -> HTTPResponse {
        if request.url.hasSuffix(":runQuery") { count.add(1, ordering: .relaxed) }
        return try await inner.send(request)
    }
}
