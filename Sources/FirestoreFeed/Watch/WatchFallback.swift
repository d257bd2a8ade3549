import FirestoreREST

/// Moving a listener from the Listen stream to polling: its stream is fed from a keys-mode poller of the same
/// query (``PollerPool/shared``), and it hears why (`FeedEvent.fellBackToPolling(reason:)`).
enum WatchFallback {
    /// Feeds `listener` from polling `query` with the listener's own polling policy, from now on.
    static func poll(_ query: Query, for listener: WatchStream.Listener, reason: String) {
        listener.onEvent?(.fellBackToPolling(reason: reason))
        let (polled, inner) = SnapshotCoalescing.makeQueryStream(query, onEvent: listener.onEvent)
        PollerPool.shared.feed(
            inner, of: query, mode: .keys, policy: listener.fallbackPolicy, onEvent: listener.onEvent)
        let buffer = listener.buffer
        let forwarding = Task {
            do {
                // Polled on the listener's demand (it may have stopped asking); the first snapshot lists every
                // document, so it is expressed relative to what the listener received before, if anything.
                var snapshots = polled.makeAsyncIterator()
                var isFirst = true
                while await buffer.wanted() {
                    guard let snapshot = try await snapshots.next() else { break }
                    buffer.yield(snapshot, rebased: isFirst)
                    isFirst = false
                }
                buffer.finish()
            } catch {
                buffer.finish(throwing: error)
            }
        }
        buffer.setOnTermination {
            inner.terminate()
            forwarding.cancel()
        }
    }
}
