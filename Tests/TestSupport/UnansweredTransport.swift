import FirestoreREST
import Synchronization

/// A transport whose requests never get an answer: each waits until its task is cancelled, then throws
/// `.cancelled` ("the unanswered request was cancelled"). Counts the requests sent and those still waiting, for tests
/// of what ends a request in flight (`Firestore.shutdown()`).
package final class UnansweredTransport: HTTPTransport {
    private let counts = Mutex<(sent: Int, waiting: Int)>((0, 0))

    package init() {}

    /// How many requests were sent.
    package var sentCount: Int { counts.withLock { $0.sent } }

    /// How many requests are waiting for an answer now.
    package var waitingCount: Int { counts.withLock { $0.waiting } }

    package func send(_ request: HTTPRequest) async throws(FirestoreError) -> HTTPResponse {
        counts.withLock { counts in
            counts.sent += 1
            counts.waiting += 1
        }
        defer { counts.withLock { $0.waiting -= 1 } }
        do {
            try await Task.sleep(for: .seconds(3_600))
        } catch {}
        throw FirestoreError(code: .cancelled, message: "the unanswered request was cancelled")
    }
}
