import FirestoreWire

/// A query over one collection (or, for ``Firestore/collectionGroup(_:)``, every collection with an ID):
/// filters, orders, cursors, a projection, an offset and a limit, sent as a REST `StructuredQuery` (REST
/// reference: `projects.databases.documents.runQuery`; `google/firestore/v1/query.proto`).
///
/// Builder methods never throw, as in the SDKs; an invalid input (an empty field path, a comparison with
/// null other than equality, a cursor without orders) is kept and thrown, as ``FirestoreError`` `.invalidArgument`, by
/// every way to run the query, before anything is sent.
public struct Query: QueryRepresentable, Sendable {
    /// Which end of the ordered results a limit keeps.
    public enum LimitType: Sendable, Hashable {
        /// `limit(to:)`: the first N.
        case first
        /// `limit(toLast:)`: the last N (sent with every order flipped; the rows are reversed on arrival).
        case last
    }

    /// The client the query runs on.
    public let firestore: Firestore
    let parent: Result<ResourcePath, FirestoreError>
    /// The collection ID queried.
    public let collectionID: String
    /// Whether every collection named ``collectionID`` below the parent is queried (a collection group).
    public let allDescendants: Bool
    /// The top-level filters, ANDed, in the order given.
    public internal(set) var filters: [Filter] = []
    /// The explicit orders, in the order given.
    public internal(set) var orders: [QueryOrder] = []
    /// The maximum number of documents, or `nil`.
    public internal(set) var limit: Int?
    /// Which end ``limit`` keeps.
    public internal(set) var limitType: LimitType = .first
    /// Documents skipped before the first one returned, or `nil`.
    public internal(set) var offset: Int?
    /// The projected fields (`select`), or `nil` for whole documents.
    public internal(set) var selection: [FieldPath]?
    var start: QueryCursor?
    var end: QueryCursor?
    var pendingError: FirestoreError?

    init(
        firestore: Firestore, parent: Result<ResourcePath, FirestoreError>, collectionID: String,
        allDescendants: Bool
    ) {
        self.firestore = firestore
        self.parent = parent
        self.collectionID = collectionID
        self.allDescendants = allDescendants
        if collectionID.isEmpty || collectionID.containsUTF8("/") {
            pendingError = .invalidArgument("invalid collection ID \"\(collectionID)\"")
        }
    }

    /// Itself.
    public var query: Query { self }

    /// The parent resource path (documents root or a document).
    /// - Throws: ``FirestoreError`` `.invalidArgument` when the collection path was invalid.
    package func parentPath() throws(FirestoreError) -> ResourcePath { try parent.get() }

    /// Whether the query has a start or end cursor.
    package var hasCursors: Bool { start != nil || end != nil }

    /// This query with its explicit orders replaced by `__name__` ascending.
    package func orderedByName() -> Query {
        with { $0.orders = [QueryOrder(field: .documentID, descending: false)] }
    }

    /// A copy with `change` applied; the first error any builder step records is kept.
    func with(_ change: (inout Query) -> Void) -> Query {
        var copy = self
        change(&copy)
        return copy
    }

    mutating func record(_ error: FirestoreError) {
        if pendingError == nil { pendingError = error }
    }

    /// The orders the server actually applies (REST reference: `StructuredQuery.order_by`): the explicit orders, then
    /// each inequality field not already ordered (sorted segment by segment), then `__name__`, the appended
    /// entries in the direction of the last explicit order (ascending when there is none). Results come back
    /// sorted by exactly these, which is what makes change indexes computable between polls, and a cursor
    /// built from a document snapshot uses them (conformance `query-cursor-docsnap*.json`).
    public var normalizedOrderBy: [QueryOrder] {
        var result = orders
        let lastDescending = orders.last?.descending ?? false
        var ordered = Set(orders.map(\.field))
        let inequalityFields = filters.flatMap(\.fieldFilters).filter { $0.op.isInequality }.map(\.field)
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
