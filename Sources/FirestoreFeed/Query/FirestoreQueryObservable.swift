import FirestoreREST
import Observation
import Synchronization

/// The live, decoded result of one collection query, as an `Observable` object (the Observation framework):
/// the Firebase Apple SDK's `FirestoreQueryObservable` for Linux, public so that any class
/// (not only SwiftUI) can hold one. ``FirestoreQuery`` is the property-wrapper form.
///
/// ``value`` is `[U]` (the array form) or `Result<[U], any Error>` (the Result form). For each snapshot the
/// documents are decoded with the *live* ``configuration``'s strategy (the SDK read the one captured at init):
/// - `.raise`: one undecodable document fails the list: the array form becomes `[]`, the Result form
///   `.failure(error)` (the SDK's array form kept the decodable subset instead); ``configuration``'s `error` is
///   that error;
/// - `.ignore`: the documents that decode are kept (`[U]`, `.success([U])`) and `error` is the last
///   `DocumentDecodingFailure` (`CodableFieldCaseTests.c12...`);
/// - every document decodes: `error` becomes `nil`.
///
/// An error of the listen (a failed poll) sets `error` and keeps ``value`` (`FirestoreQueryTests`); when the listen
/// ends with an error (an invalid query, a permanent server error), the Result form becomes `.failure(error)`
/// and the array form keeps its last value. Setting ``configuration`` removes the listener and registers
/// exactly one new one; results then come from the new listen. Releasing the object removes its listener
/// (nothing in it holds the object strongly: no retain cycle, unlike the SDK).
///
/// Reads and writes are safe from any thread or task; changes are applied on the listen's task, and
/// observers registered with `withObservationTracking` hear of changes to ``value`` and ``configuration``.
public final class FirestoreQueryObservable<T: Sendable>: Observable, Sendable {
    /// Makes the source of snapshots for a configuration (one call per registration).
    public typealias SourceFactory = @Sendable (FirestoreQueryConfiguration) -> any QuerySnapshotSource

    /// How a snapshot's documents become a value and an error, for one strategy.
    typealias Decode = @Sendable ([DocumentSnapshot], DecodingFailureStrategy) -> (value: T, error: (any Error)?)

    private struct State {
        var value: T
        var configuration: FirestoreQueryConfiguration
        var generation = 0
        var listenTask: Task<Void, Never>?
    }

    private let state: Mutex<State>
    private let registrar = ObservationRegistrar()
    private let makeSource: SourceFactory
    private let decode: Decode
    /// The value for a listen that ended with an error, or `nil` to keep the current one.
    private let valueForEndedListen: @Sendable (any Error) -> T?

    init(
        configuration: FirestoreQueryConfiguration, initialValue: T, makeSource: @escaping SourceFactory,
        decode: @escaping Decode, valueForEndedListen: @escaping @Sendable (any Error) -> T?
    ) {
        self.state = Mutex(State(value: initialValue, configuration: configuration))
        self.makeSource = makeSource
        self.decode = decode
        self.valueForEndedListen = valueForEndedListen
        register()
    }

    deinit {
        state.withLock { $0.listenTask }?.cancel()
    }

    /// The current result: `[U]` or `Result<[U], any Error>` (empty until the first snapshot).
    public var value: T {
        registrar.access(self, keyPath: \.value)
        return state.withLock { $0.value }
    }

    /// The query and strategy, and the last error. Setting it removes the current listener and registers
    /// exactly one new one.
    public var configuration: FirestoreQueryConfiguration {
        get {
            registrar.access(self, keyPath: \.configuration)
            return state.withLock { $0.configuration }
        }
        set {
            registrar.withMutation(of: self, keyPath: \.configuration) {
                state.withLock { $0.configuration = newValue }
            }
            register()
        }
    }

    /// The last error (``configuration``'s `error`).
    public var error: (any Error)? { configuration.error }

    /// Stops the current listen (if any) and starts one for the current configuration.
    private func register() {
        let (generation, configuration) = state.withLock { state in
            state.listenTask?.cancel()
            state.listenTask = nil
            state.generation += 1
            return (state.generation, state.configuration)
        }
        let stream = makeSource(configuration).makeSnapshotStream()
        let task = Task { [weak self] in
            var lastFailure: (any Error)?
            for await event in stream {
                guard let self else { return }
                switch event {
                case .snapshot(let snapshot):
                    lastFailure = nil
                    self.apply(snapshot, generation: generation)
                case .failure(let error):
                    lastFailure = error
                    self.update(generation: generation, value: nil, error: .some(error))
                case .recovered:
                    lastFailure = nil
                }
            }
            guard let self, let lastFailure, !Task.isCancelled else { return }
            self.update(generation: generation, value: self.valueForEndedListen(lastFailure), error: .some(lastFailure))
        }
        let isCurrent = state.withLock { state in
            guard state.generation == generation else { return false }
            state.listenTask = task
            return true
        }
        if !isCurrent { task.cancel() }
    }

    /// Decodes `snapshot` with the live strategy and publishes the result, unless a newer registration began.
    private func apply(_ snapshot: QuerySnapshot, generation: Int) {
        guard
            let strategy = state.withLock({ state in
                state.generation == generation ? state.configuration.decodingFailureStrategy : nil
            })
        else { return }
        let decoded = decode(snapshot.documents, strategy)
        update(generation: generation, value: decoded.value, error: .some(decoded.error))
    }

    /// Sets the value (when given) and the error (when given, `nil` clearing it) for registration `generation`.
    private func update(generation: Int, value: T?, error: (any Error)??) {
        guard state.withLock({ $0.generation == generation }) else { return }
        if let value {
            registrar.withMutation(of: self, keyPath: \.value) {
                state.withLock { state in
                    if state.generation == generation { state.value = value }
                }
            }
        }
        if let error {
            registrar.withMutation(of: self, keyPath: \.configuration) {
                state.withLock { state in
                    if state.generation == generation { state.configuration.error = error }
                }
            }
        }
    }
}

extension FirestoreQueryObservable {
    /// The array form: the documents of `configuration`'s query decoded into `U`.
    /// - Parameters:
    ///   - configuration: path, predicates and strategy.
    ///   - decoder: the decoder for every document.
    ///   - makeSource: the source of snapshots for a configuration; a test can script one.
    public convenience init<U: Decodable & Sendable>(
        configuration: FirestoreQueryConfiguration, decoder: FirestoreDecoder = FirestoreDecoder(),
        makeSource: @escaping SourceFactory
    ) where T == [U] {
        self.init(
            configuration: configuration, initialValue: [], makeSource: makeSource,
            decode: { documents, strategy in
                do {
                    let decoded = try DecodedDocuments(
                        decoding: documents, as: U.self, decoder: decoder, strategy: strategy)
                    return (decoded.values, decoded.failures.last)
                } catch {
                    return ([], error)
                }
            },
            valueForEndedListen: { _ in nil })
    }

    /// The Result form: `.success` with the documents of `configuration`'s query decoded into `U`, or
    /// `.failure` (see the type).
    public convenience init<U: Decodable & Sendable>(
        configuration: FirestoreQueryConfiguration, decoder: FirestoreDecoder = FirestoreDecoder(),
        makeSource: @escaping SourceFactory
    ) where T == Result<[U], any Error> {
        self.init(
            configuration: configuration, initialValue: .success([]), makeSource: makeSource,
            decode: { documents, strategy in
                do {
                    let decoded = try DecodedDocuments(
                        decoding: documents, as: U.self, decoder: decoder, strategy: strategy)
                    return (.success(decoded.values), decoded.failures.last)
                } catch {
                    return (.failure(error), error)
                }
            },
            valueForEndedListen: { .failure($0) })
    }

    /// A source for `configuration` on `firestore`: `firestore.collection(path)` with the predicates applied, fed
    /// from `source` (``FeedQuerySource``).
    public static func feedSource(firestore: Firestore, source: FeedSource = .listen, interval: Duration = .seconds(1))
        -> SourceFactory
    {
        { configuration in
            FeedQuerySource(
                firestore.collection(configuration.path).applying(configuration.predicates), source: source,
                interval: interval)
        }
    }

    /// A polling source for `configuration` on `firestore`: `firestore.collection(path)` with the predicates
    /// applied, polled every `interval` (``PollingQuerySource``).
    public static func pollingSource(firestore: Firestore, interval: Duration = .seconds(1)) -> SourceFactory {
        { configuration in
            PollingQuerySource(
                firestore.collection(configuration.path).applying(configuration.predicates),
                interval: interval)
        }
    }
}
