import Synchronization

/// A one-way cancellation flag shared between the task that awaits a transfer (which sets it from its
/// cancellation handler) and the thread running `curl_easy_perform` (whose progress callback polls it).
final class CurlCancellation: Sendable {
    private let state = Atomic<Bool>(false)

    init() {}

    /// Requests that the transfer stop at its next progress callback.
    func cancel() {
        state.store(true, ordering: .releasing)
    }

    /// Whether ``cancel()`` has been called.
    var isCancelled: Bool {
        state.load(ordering: .acquiring)
    }
}
