/// Anything that can be queried: a ``Query`` itself or a ``CollectionReference`` (the whole collection).
/// Every builder method (`whereField`, `order(by:)`, `limit(to:)`) and every way to run a query is defined on
/// this protocol, so `db.collection("fruits").whereField("isFavourite", isEqualTo: true)` reads as in the
/// Firebase SDKs.
public protocol QueryRepresentable: Sendable {
    /// The query this value stands for.
    var query: Query { get }
}

/// A query over one collection (or, for ``Firestore/collectionGroup(_:)``, every collection with an ID):
/// filters, orders and a limit, encoded to a REST StructuredQuery by ``structuredQuery()``.
///
/// Builder methods never throw, as in the SDKs; an invalid input (an empty field path, a comparison with
/// null other than equality) is kept and thrown by ``structuredQuery()`` and so by every way to run the
/// query, before anything is sent.
public struct Query: QueryRepresentable, Sendable {
    /// The client the query runs on.
    public let firestore: Firestore
    let parent: Result<ResourcePath, FirestoreError>
    /// The collection ID queried.
    public let collectionID: String
    /// Whether every collection named ``collectionID`` below the parent is queried (a collection group).
    public let allDescendants: Bool
    /// The filters, ANDed, in the order given.
    public private(set) var filters: [FieldFilter] = []
    /// The explicit orders, in the order given.
    public private(set) var orders: [QueryOrder] = []
    /// The maximum number of documents, or `nil`.
    public private(set) var limit: Int?
    var pendingError: FirestoreError?

    init(firestore: Firestore, parent: Result<ResourcePath, FirestoreError>, collectionID: String,
         allDescendants: Bool) {
        self.firestore = firestore
        self.parent = parent
        self.collectionID = collectionID
        self.allDescendants = allDescendants
        if collectionID.isEmpty || collectionID.contains("/") {
            pendingError = .invalidArgument("invalid collection ID \"\(collectionID)\"")
        }
    }

    /// Itself.
    public var query: Query { self }

    /// The parent resource path (documents root or a document).
    /// - Throws: ``FirestoreError`` `.invalidArgument` when the collection path was invalid.
    public func parentPath() throws(FirestoreError) -> ResourcePath { try parent.get() }

    func adding(field: Result<FieldPath, FirestoreError>, _ op: FilterOperator, _ value: FirestoreValue) -> Query {
        var copy = self
        switch field {
        case .success(let path):
            copy.filters.append(FieldFilter(field: path, op: op, value: value))
        case .failure(let error):
            if copy.pendingError == nil { copy.pendingError = error }
        }
        return copy
    }

    func ordering(field: Result<FieldPath, FirestoreError>, descending: Bool) -> Query {
        var copy = self
        switch field {
        case .success(let path): copy.orders.append(QueryOrder(field: path, descending: descending))
        case .failure(let error): if copy.pendingError == nil { copy.pendingError = error }
        }
        return copy
    }

    func limited(to count: Int) -> Query {
        var copy = self
        if count < 0, copy.pendingError == nil {
            copy.pendingError = .invalidArgument("limit must not be negative, got \(count)")
        }
        copy.limit = count
        return copy
    }

    /// The orders the server actually applies (`firestore-rest.md` §1.7): the explicit orders, then each
    /// inequality field not already ordered (sorted by field path), then `__name__`, the appended entries in
    /// the direction of the last explicit order (ascending when there is none). Results come back sorted by
    /// exactly these, which is what makes change indexes computable between polls.
    public var normalizedOrderBy: [QueryOrder] {
        var result = orders
        let lastDescending = orders.last?.descending ?? false
        var ordered = Set(orders.map(\.field))
        let inequalityFields = filters.filter { $0.op.isInequality }.map(\.field)
            .sorted { $0.segments.lexicographicallyPrecedes($1.segments) }
        for field in inequalityFields where ordered.insert(field).inserted {
            result.append(QueryOrder(field: field, descending: lastDescending))
        }
        if !ordered.contains(.documentID) {
            result.append(QueryOrder(field: .documentID, descending: lastDescending))
        }
        return result
    }
}
