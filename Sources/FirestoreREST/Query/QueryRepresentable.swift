import FirestoreWire

/// Anything that can be queried: a ``Query`` itself or a ``CollectionReference`` (the whole collection).
/// Every builder method (`whereField`, `order(by:)`, `limit(to:)`, cursors) and every way to run a query is
/// defined on this protocol, so `db.collection("fruits").whereField("isFavourite", isEqualTo: true)` reads
/// as in the Firebase SDKs.
public protocol QueryRepresentable: Sendable {
    /// The query this value stands for.
    var query: Query { get }
}
