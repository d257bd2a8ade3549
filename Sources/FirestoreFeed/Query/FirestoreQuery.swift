import FirestoreREST

/// The Firebase Apple SDK's `@FirestoreQuery` property wrapper for any class, not only SwiftUI
/// views: the live, decoded documents of one collection query.
///
/// ```swift
/// final class FruitStore {
///     @FirestoreQuery(collectionPath: "fruits", predicates: [.order(by: "name")], firestore: db)
///     var fruits: [Fruit]
///
///     func showFavourites() { $fruits.predicates = [.whereField("isFavourite", isEqualTo: true)] }
/// }
/// ```
///
/// - ``wrappedValue`` is read-only: `[U]` or `Result<[U], any Error>`; writes go through the client.
/// - ``projectedValue`` is the ``FirestoreQueryConfiguration``: `$fruits.error` reads the last error; setting
///   it (`$fruits.path = "vegetables"`) removes the listener and registers exactly one new one.
/// - Decoding, errors and lifetime are those of ``FirestoreQueryObservable`` (``observable``): `.raise` fails
///   the array form and the Result form alike; `.ignore` keeps the documents that decode and sets `error`;
///   releasing the owner removes the listener.
@propertyWrapper
public struct FirestoreQuery<T: Sendable>: Sendable {
    /// The SDK's name for the configuration type.
    public typealias Configuration = FirestoreQueryConfiguration

    /// The observable object behind the wrapper.
    public let observable: FirestoreQueryObservable<T>

    /// The current result (read-only).
    public var wrappedValue: T { observable.value }

    /// The configuration; setting it re-registers the listener.
    public var projectedValue: FirestoreQueryConfiguration {
        get { observable.configuration }
        nonmutating set { observable.configuration = newValue }
    }

    /// The array form over `firestore`, fed from `source` (the Listen stream unless told otherwise; `interval`
    /// applies when polling).
    public init<U: Decodable & Sendable>(
        collectionPath: String, predicates: [QueryPredicate] = [],
        decodingFailureStrategy: DecodingFailureStrategy = .raise,
        firestore: Firestore, source: FeedSource = .listen, interval: Duration = .seconds(1),
        decoder: FirestoreDecoder = FirestoreDecoder()
    ) where T == [U] {
        let configuration = FirestoreQueryConfiguration(
            path: collectionPath, predicates: predicates, decodingFailureStrategy: decodingFailureStrategy)
        let feed = FirestoreQueryObservable<T>.feedSource(firestore: firestore, source: source, interval: interval)
        self.init(
            observable: FirestoreQueryObservable(configuration: configuration, decoder: decoder, makeSource: feed))
    }

    /// The Result form over `firestore`, fed from `source` (the Listen stream unless told otherwise; `interval`
    /// applies when polling).
    public init<U: Decodable & Sendable>(
        collectionPath: String, predicates: [QueryPredicate] = [],
        decodingFailureStrategy: DecodingFailureStrategy = .raise,
        firestore: Firestore, source: FeedSource = .listen, interval: Duration = .seconds(1),
        decoder: FirestoreDecoder = FirestoreDecoder()
    ) where T == Result<[U], any Error> {
        let configuration = FirestoreQueryConfiguration(
            path: collectionPath, predicates: predicates, decodingFailureStrategy: decodingFailureStrategy)
        let feed = FirestoreQueryObservable<T>.feedSource(firestore: firestore, source: source, interval: interval)
        self.init(
            observable: FirestoreQueryObservable(configuration: configuration, decoder: decoder, makeSource: feed))
    }

    /// A wrapper around an existing observable (for instance one made with a scripted source).
    public init(observable: FirestoreQueryObservable<T>) {
        self.observable = observable
    }
}
