import FirestoreREST

/// What a ``FirestoreQuery`` / ``FirestoreQueryObservable`` shows: the SDK's `FirestoreQuery.Configuration`
/// (the Firebase Apple SDK's `FirestoreQuery.Configuration`), without SwiftUI's `animation`.
///
/// Setting it through ``FirestoreQuery/projectedValue`` or ``FirestoreQueryObservable/configuration`` removes
/// the current listener and registers exactly one new one (whatever changed, `error` included, as in the SDK).
public struct FirestoreQueryConfiguration: Sendable {
    /// The collection path, `fruits` or `users/u1/orders`.
    public var path: String
    /// The conditions, applied in order (`QueryPredicate`, `QueryRepresentable.applying(_:)`).
    public var predicates: [QueryPredicate]
    /// What a document that does not decode does: `DecodingFailureStrategy.raise` (the default) fails the
    /// whole list, in the array form and the Result form alike; `DecodingFailureStrategy.ignore` keeps the
    /// documents that decode and sets ``error``.
    public var decodingFailureStrategy: DecodingFailureStrategy
    /// The last error: a decoding failure (`DocumentDecodingFailure` with `.ignore`, the first document's
    /// error with `.raise`) or an error of the listen; `nil` after a snapshot that decoded completely.
    public var error: (any Error)?

    /// A configuration; `error` starts as `nil`.
    public init(
        path: String, predicates: [QueryPredicate] = [], decodingFailureStrategy: DecodingFailureStrategy = .raise
    ) {
        self.path = path
        self.predicates = predicates
        self.decodingFailureStrategy = decodingFailureStrategy
        self.error = nil
    }
}
