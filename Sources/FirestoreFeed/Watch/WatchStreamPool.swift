import FirestoreREST
import Synchronization

/// Shares Listen streams: one ``WatchStream`` (one gRPC call, one HTTP/2 stream) per client, carrying one target
/// per distinct query. A stream ends when its last listener leaves and is then forgotten.
///
/// The stream's calls come from the client's transport (`ListenTransport`): a ``CurlTransport`` opens them over
/// gRPC, FirestoreTesting's `RecordingTransport` records them and its `ReplayTransport` replays recorded ones. A
/// client whose transport cannot carry a Listen stream (a test double, a cassette without a recorded Listen call)
/// polls in keys mode from the start and hears why (`FeedEvent.fellBackToPolling(reason:)`). So does every later
/// listener of a client whose stream fell back to polling.
package final class WatchStreamPool: Sendable {
    /// The pool `query.snapshots(source: .listen)` uses.
    package static let shared = WatchStreamPool(clock: ContinuousClock())

    /// Why a client's listeners poll; the client is held weakly, so a new client at a reused address is not
    /// mistaken for it.
    struct Fallback {
        weak var client: Firestore?
        let reason: String
    }

    struct State {
        /// Each stream holds its client, so the identifier cannot be reused while the stream is here.
        var streams: [ObjectIdentifier: WatchStream] = [:]
        var fallbacks: [ObjectIdentifier: Fallback] = [:]
    }

    let clock: any Clock<Duration>
    private let state = Mutex(State())

    init(clock: any Clock<Duration>) { self.clock = clock }

    /// How many streams are open.
    package var streamCount: Int { state.withLock { $0.streams.count } }

    /// The open stream of `client`, if any.
    package func stream(for client: Firestore) -> WatchStream? {
        state.withLock { $0.streams[ObjectIdentifier(client)] }
    }

    /// The Listen feed of `query`; see `QueryRepresentable.snapshots(source:interval:mode:policy:onEvent:)`.
    func snapshots(of query: Query, policy: PollingPolicy, onEvent: (@Sendable (FeedEvent) -> Void)?)
        -> AsyncThrowingStream<QuerySnapshot, any Error>
    {
        let (stream, buffer) = SnapshotCoalescing.makeQueryStream(query, onEvent: onEvent)
        feed(buffer, of: query, policy: policy, onEvent: onEvent)
        return stream
    }

    /// Feeds `buffer` (a listener's end) from the Listen target of `query`: see ``snapshots(of:policy:onEvent:)``.
    /// With `checkpoint` (a feed resuming from a durable checkpoint: its store and key, and the view it resumes
    /// from), the target is that feed's alone and starts from the view (``WatchStream/addListener(query:key:_:seed:)``).
    func feed(
        _ buffer: CoalescingBuffer<QuerySnapshot>, of query: Query, policy: PollingPolicy,
        onEvent: (@Sendable (FeedEvent) -> Void)?, checkpoint: (id: String, view: WatchTargetState)? = nil
    ) {
        let key: WatchTargetKey
        do {
            key = try WatchTargetKey(query, checkpoint: checkpoint?.id)
        } catch {
            buffer.finish(throwing: error)
            return
        }
        let listener = WatchStream.Listener(buffer: buffer, onEvent: onEvent, fallbackPolicy: policy)
        let client = query.firestore
        let id = ObjectIdentifier(client)
        while true {
            let found = state.withLock { state -> Result<WatchStream, FallbackReason> in
                if let fallback = state.fallbacks[id] {
                    if fallback.client === client { return .failure(FallbackReason(text: fallback.reason)) }
                    state.fallbacks[id] = nil
                }
                if let existing = state.streams[id] { return .success(existing) }
                guard let transport = client.transport as? any ListenTransport else {
                    return .failure(
                        FallbackReason(
                            text: "the client's transport (\(type(of: client.transport))) cannot open a Listen "
                                + "stream: it needs CurlTransport (gRPC over HTTP/2), or FirestoreTesting's RecordingTransport or "
                                + "ReplayTransport"))
                }
                let channel: any ListenChannel
                do {
                    channel = try transport.makeListenChannel(for: client)
                } catch {
                    return .failure(FallbackReason(text: "\(error)"))
                }
                let stream = WatchStream(
                    firestore: client, channel: channel, policy: policy, clock: clock
                ) { [weak self] stream, reason in
                    self?.forget(stream, client: id, fallbackReason: reason)
                }
                state.streams[id] = stream
                return .success(stream)
            }
            switch found {
            case .failure(let reason):
                WatchFallback.poll(query, for: listener, reason: reason.text)
                return
            case .success(let watch):
                if let listenerID = watch.addListener(query: query, key: key, listener, seed: checkpoint?.view) {
                    buffer.setOnTermination { watch.removeListener(key: key, listener: listenerID) }
                    return
                }
                forget(watch, client: id, fallbackReason: nil)
            }
        }
    }

    struct FallbackReason: Error {
        let text: String
    }

    private func forget(_ stream: WatchStream, client: ObjectIdentifier, fallbackReason: String?) {
        state.withLock { state in
            if state.streams[client] === stream { state.streams[client] = nil }
            if let fallbackReason {
                state.fallbacks[client] = Fallback(client: stream.firestore, reason: fallbackReason)
            }
        }
    }
}
