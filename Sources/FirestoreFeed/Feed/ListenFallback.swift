import FirestoreREST
import Synchronization

/// Moving a listener from the Listen stream to polling: its stream is fed from a keys-mode poller of the same
/// query (`PollerPool.shared`), and it hears why (`FeedEvent.fellBackToPolling(reason:)`). After the policy's
/// ``PollingPolicy/listenRetryAfterFallback`` the poller is left and `retry` gives the listener to the Listen stream
/// again (where it falls back once more if Listen still cannot work). Lives with the feed, above both sources: the
/// Listen stream only asks for it (``WatchStream/fallBackTo``), so `Watch/` does not depend on `Polling/`.
enum ListenFallback {
    /// Feeds `listener` from polling `query` with the listener's own polling policy until `retry` is due.
    /// - Parameters:
    ///   - clock: what the wait for the retry sleeps on.
    ///   - retry: called once, after ``PollingPolicy/listenRetryAfterFallback``, with the listener marked as returning
    ///     from polling (its next snapshot relative to its last, announced by `FeedEvent.listenRestored`); `nil`
    ///     polls for good.
    static func poll(
        _ query: Query, for listener: FeedListener, reason: String, clock: any Clock<Duration>,
        retry: (@Sendable (FeedListener) -> Void)?
    ) {
        listener.onEvent?(.fellBackToPolling(reason: reason))
        let (polled, inner) = SnapshotCoalescing.makeQueryStream(query, onEvent: listener.onEvent)
        PollerPool.shared.feed(inner, of: query, mode: .keys, policy: listener.policy, onEvent: listener.onEvent)
        let buffer = listener.buffer
        let retrying = Flag()
        let timer = Task {
            guard retry != nil else { return }
            do {
                try await clock.sleep(for: listener.policy.listenRetryAfterFallback)
            } catch {
                return
            }
            retrying.value.store(true, ordering: .relaxed)
            inner.terminate()
        }
        let forwarding = Task {
            do {
                // The first polled snapshot lists every document: it is expressed relative to what the listener
                // received before, if anything.
                _ = try await FeedRelay.pump(polled, into: buffer, rebasingFirst: true) { $0 }
                if retrying.value.load(ordering: .relaxed), let retry {
                    var returning = listener
                    returning.rebaseNext = true
                    returning.announcement = .listenRestored
                    retry(returning)
                } else {
                    timer.cancel()
                    buffer.finish()
                }
            } catch {
                timer.cancel()
                buffer.finish(throwing: error)
            }
        }
        buffer.setOnTermination {
            timer.cancel()
            inner.terminate()
            forwarding.cancel()
        }
    }

    /// Whether the retry is due, shared by the timer and the forwarding task.
    private final class Flag: Sendable {
        let value = Atomic(false)
    }
}
