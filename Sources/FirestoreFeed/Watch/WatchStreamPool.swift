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
///
/// A target whose listeners stopped asking is suspended by its stream (``WatchStream``); the first of them to ask
/// again comes back here and is attached as a new listener that resumes the target.
///
/// A client's `Firestore.shutdown()` ends its stream (``WatchStream/shutDown()``: its listeners' streams end with
/// the client's shutdown error, its channel is closed) and the pool forgets it.
package final class WatchStreamPool: Sendable {
    /// The pool `query.snapshots(source: .listen)` uses.
    package static let shared = WatchStreamPool(clock: ContinuousClock())

    /// How long a target's listeners may leave a snapshot untaken without asking for one before the target is
    /// suspended (streams look every half of it, so that is after between half this and this): a minute.
    package static let idleTargetTimeout: Duration = .seconds(60)

    /// Why a client's listeners poll; the client is held weakly, so a new client at a reused address is not
    /// mistaken for it.
    struct Fallback {
        weak var client: Firestore?
        let reason: String
        /// Until when new listeners of the client poll without trying Listen (``PollingPolicy/listenRetryAfterFallback``
        /// after the fallback).
        let until: ContinuousClock.Instant
    }

    struct State {
        /// Each stream holds its client, so the identifier cannot be reused while the stream is here.
        var streams: [ObjectIdentifier: WatchStream] = [:]
        var fallbacks: [ObjectIdentifier: Fallback] = [:]
    }

    let clock: any Clock<Duration>
    private let idle: Mutex<Duration>
    private let state = Mutex(State())

    /// A pool whose streams sleep on `clock` and suspend targets idle for `idleTimeout`.
    package init(clock: any Clock<Duration>, idleTimeout: Duration = WatchStreamPool.idleTargetTimeout) {
        self.clock = clock
        self.idle = Mutex(idleTimeout)
    }

    /// How long a target's listeners may leave a snapshot untaken without asking before it is suspended; streams
    /// opened from now on use a new value (for tools and tests that cannot wait a minute).
    package var idleTimeout: Duration {
        get { idle.withLock { $0 } }
        set { idle.withLock { $0 = newValue } }
    }

    /// How many streams are open.
    package var streamCount: Int { state.withLock { $0.streams.count } }

    /// The open stream of `client`, if any.
    package func stream(for client: Firestore) -> WatchStream? {
        state.withLock { $0.streams[ObjectIdentifier(client)] }
    }

    /// The Listen feed of `query`; see `QueryRepresentable.snapshots(source:interval:policy:onEvent:)`.
    func snapshots(of query: Query, policy: PollingPolicy, onEvent: (@Sendable (FeedEvent) -> Void)?)
        -> AsyncThrowingStream<QuerySnapshot, any Error>
    {
        let (stream, buffer) = SnapshotCoalescing.makeQueryStream(query, onEvent: onEvent)
        feed(buffer, of: query, policy: policy, onEvent: onEvent)
        return stream
    }

    /// Feeds `buffer` (a listener's end) from the Listen target of `query`: see ``snapshots(of:policy:onEvent:)``.
    /// With `checkpoint` (a feed resuming from a durable checkpoint: its store and key, and the view it resumes
    /// from), the target is that feed's alone and starts from the view
    /// (``WatchStream/addListener(query:key:_:resuming:seed:)``).
    func feed(
        _ buffer: CoalescingBuffer<QuerySnapshot>, of query: Query, policy: PollingPolicy,
        onEvent: (@Sendable (FeedEvent) -> Void)?, checkpoint: (id: String, view: WatchTargetState)? = nil
    ) {
        let key: WatchTargetKey
        do {
            // A shut-down client's feed ends at once with its error (`Firestore.shutdown()`).
            try query.firestore.lifecycle.check()
            key = try WatchTargetKey(query, checkpoint: checkpoint?.id)
        } catch {
            buffer.finish(throwing: error)
            return
        }
        let listener = FeedListener(buffer: buffer, onEvent: onEvent, policy: policy)
        attach(query: query, key: key, listener, resuming: nil, seed: checkpoint?.view)
    }

    /// Attaches `listener` (of a target suspended while it was idle) again: see
    /// ``WatchStream/addListener(query:key:_:resuming:seed:)``.
    func resume(_ suspended: WatchStream.Suspended, for listener: FeedListener) {
        attach(query: suspended.query, key: suspended.key, listener, resuming: suspended, seed: nil)
    }

    /// Gives `listener` a target on the client's stream (opening the stream when there is none), or polling when
    /// the client cannot listen. `resuming` and `seed`: see ``WatchStream/addListener(query:key:_:resuming:seed:)``.
    private func attach(
        query: Query, key: WatchTargetKey, _ listener: FeedListener, resuming: WatchStream.Suspended?,
        seed: WatchTargetState?
    ) {
        let client = query.firestore
        let id = ObjectIdentifier(client)
        let policy = listener.policy
        let buffer = listener.buffer
        while true {
            if client.isShutDown {
                buffer.finish(throwing: client.lifecycle.shutDownError)
                return
            }
            let found = state.withLock { state -> Result<WatchStream, FallbackReason> in
                if let fallback = state.fallbacks[id] {
                    if fallback.client === client, listener.announcement != .listenRestored,
                        ContinuousClock.now < fallback.until
                    {
                        return .failure(FallbackReason(text: fallback.reason, retryable: true))
                    }
                    state.fallbacks[id] = nil
                }
                if let existing = state.streams[id] { return .success(existing) }
                guard let transport = client.transport as? any ListenTransport else {
                    return .failure(
                        FallbackReason(
                            text: "the client's transport (\(type(of: client.transport))) cannot open a Listen "
                                + "stream: it needs CurlTransport (gRPC over HTTP/2), or FirestoreTesting's RecordingTransport or "
                                + "ReplayTransport", retryable: false))
                }
                let channel: any ListenChannel
                do {
                    channel = try transport.makeListenChannel(for: client)
                } catch {
                    return .failure(FallbackReason(text: "\(error)", retryable: false))
                }
                let clock = clock
                let stream = WatchStream(
                    firestore: client, channel: channel, policy: policy, clock: clock, idleTimeout: idleTimeout,
                    resume: { [weak self] suspended, listener in self?.resume(suspended, for: listener) },
                    fallBackTo: { [weak self] query, key, listener, reason in
                        guard let self else {
                            ListenFallback.poll(query, for: listener, reason: reason, clock: clock, retry: nil)
                            return
                        }
                        fallBack(query, key: key, listener, reason: reason, retryable: true)
                    }
                ) { [weak self] stream, reason in
                    self?.forget(stream, client: id, fallbackReason: reason, policy: policy)
                }
                state.streams[id] = stream
                return .success(stream)
            }
            switch found {
            case .failure(let reason):
                fallBack(query, key: key, listener, reason: reason.text, retryable: reason.retryable)
                return
            case .success(let watch):
                if let listenerID = watch.addListener(
                    query: query, key: key, listener, resuming: resuming, seed: seed)
                {
                    buffer.setOnTermination { watch.removeListener(key: key, listener: listenerID) }
                    return
                }
                forget(watch, client: id, fallbackReason: nil, policy: policy)
            }
        }
    }

    /// Moves `listener` to polling; with `retryable`, it tries the Listen stream again after
    /// ``PollingPolicy/listenRetryAfterFallback``.
    private func fallBack(
        _ query: Query, key: WatchTargetKey, _ listener: FeedListener, reason: String, retryable: Bool
    ) {
        var retry: (@Sendable (FeedListener) -> Void)?
        if retryable {
            retry = { [weak self] returning in
                self?.attach(query: query, key: key, returning, resuming: nil, seed: nil)
            }
        }
        ListenFallback.poll(query, for: listener, reason: reason, clock: clock, retry: retry)
    }

    struct FallbackReason: Error {
        let text: String
        /// Whether Listen may work later (a server or proxy that refused HTTP/2), as opposed to a transport that can
        /// never carry it.
        let retryable: Bool
    }

    private func forget(
        _ stream: WatchStream, client: ObjectIdentifier, fallbackReason: String?, policy: PollingPolicy
    ) {
        state.withLock { state in
            if state.streams[client] === stream { state.streams[client] = nil }
            if let fallbackReason {
                state.fallbacks[client] = Fallback(
                    client: stream.firestore, reason: fallbackReason,
                    until: .now + policy.listenRetryAfterFallback)
            }
        }
    }
}
