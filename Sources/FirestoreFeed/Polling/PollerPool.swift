import FirestoreREST
import Synchronization

/// Shares pollers between listeners: listeners on the same query (same client, parent and canonical
/// StructuredQuery), mode and policy share one `QueryPoller` and so one HTTP request per interval. A
/// poller stops when its last listener leaves and is then forgotten.
///
/// One pool on the continuous clock serves every `query.snapshots(...)`; make a pool of your own to poll on
/// another clock, e.g. a test clock that never sleeps (FirestoreTesting's `ImmediateClock`), and hand it to
/// ``snapshots(of:mode:policy:onEvent:)`` or a ``PollingQuerySource``.
///
/// A client's `Firestore.shutdown()` ends its pollers (their listeners' streams end with the client's shutdown
/// error) and the pool forgets them; feeds of a shut-down client end at once with that error.
public final class PollerPool: Sendable {
    /// What makes listeners share a poller: the client, the query (``QueryIdentity``), the mode and the policy.
    struct Key: Hashable {
        let client: ObjectIdentifier
        let query: QueryIdentity
        let mode: PollMode
        let policy: PollingPolicy

        init(_ query: Query, mode: PollMode, policy: PollingPolicy) throws(FirestoreError) {
            client = ObjectIdentifier(query.firestore)
            self.query = try QueryIdentity(query)
            self.mode = mode
            self.policy = policy
        }
    }

    /// The pool every `snapshots(...)` and `addSnapshotListener(...)` call uses.
    package static let shared = PollerPool(clock: ContinuousClock())

    let clock: any Clock<Duration>
    private let pollers = Mutex<[Key: QueryPoller]>([:])

    /// A pool whose pollers sleep on `clock`.
    public init(clock: any Clock<Duration>) { self.clock = clock }

    /// How many pollers are running.
    package var pollerCount: Int { pollers.withLock { $0.count } }

    /// The change feed of `query`; see `QueryRepresentable.snapshots(source:interval:policy:onEvent:)` with a polling source.
    public func snapshots(
        of query: Query, mode: PollMode = .keys, policy: PollingPolicy = PollingPolicy(),
        onEvent: (@Sendable (FeedEvent) -> Void)? = nil
    ) -> AsyncThrowingStream<QuerySnapshot, any Error> {
        let (stream, buffer) = SnapshotCoalescing.makeQueryStream(query, onEvent: onEvent)
        feed(buffer, of: query, mode: mode, policy: policy, onEvent: onEvent)
        return stream
    }

    /// Feeds `buffer` (a listener's end) from the poller of `query`: see ``snapshots(of:mode:policy:onEvent:)``.
    func feed(
        _ buffer: CoalescingBuffer<QuerySnapshot>, of query: Query, mode: PollMode, policy: PollingPolicy,
        onEvent: (@Sendable (FeedEvent) -> Void)?
    ) {
        let key: Key
        do {
            // A shut-down client's feed ends at once with its error (`Firestore.shutdown()`).
            try query.firestore.lifecycle.check()
            key = try Key(query, mode: mode, policy: policy)
        } catch {
            // An invalid query ends its feed at once, before anything is sent.
            buffer.finish(throwing: error)
            return
        }
        while true {
            let poller = pollers.withLock { pollers in
                if let existing = pollers[key] { return existing }
                let poller = QueryPoller(query: query, mode: mode, policy: policy, clock: clock) { [weak self] poller in
                    self?.forget(poller, key: key)
                }
                pollers[key] = poller
                return poller
            }
            if let id = poller.addListener(buffer, onEvent: onEvent) {
                buffer.setOnTermination { poller.removeListener(id) }
                return
            }
            // The poller ended between lookup and join; forget it and make a new one.
            forget(poller, key: key)
        }
    }

    /// The most snapshots any listener of the poller serving `query` (in `mode`, with `policy`) has held without
    /// taking them: 0 or 1 (``CoalescingBuffer``); `nil` when no such poller runs. For tests of slow consumers.
    package func listenerBufferHighWater(of query: Query, mode: PollMode, policy: PollingPolicy) -> Int? {
        guard let key = try? Key(query, mode: mode, policy: policy) else { return nil }
        return pollers.withLock { $0[key] }?.listenerBufferHighWater
    }

    /// Some running poller, for tests that check it is freed.
    var firstPollerForTesting: QueryPoller? { pollers.withLock { $0.values.first } }

    private func forget(_ poller: QueryPoller, key: Key) {
        pollers.withLock { pollers in
            if pollers[key] === poller { pollers[key] = nil }
        }
    }
}
