import FirestoreWire

/// A query as Firestore's `google.firestore.v1.StructuredQuery` message holds it (`google/firestore/v1/query.proto`;
/// REST reference: `StructuredQuery`), resolved and validated once by ``Query/structured()``: the one model both wires
/// print, as REST JSON (``restJSON``) and as protobuf (``write(to:)``, for gRPC and the Listen stream), so the two
/// forms cannot drift apart and a query sent over gRPC is never encoded twice.
///
/// Every query rule (unary filters for null and NaN, `__name__` expansion, normalised orders for document cursors,
/// the `limit(toLast:)` flip) has been applied: the members are what goes on the wire.
package struct StructuredQuery: Sendable, Hashable {
    /// `CollectionSelector`: the collection ID queried and whether its descendants with that ID are too.
    package struct CollectionSelector: Sendable, Hashable {
        package var collectionID: String
        package var allDescendants: Bool

        package init(collectionID: String, allDescendants: Bool = false) {
            self.collectionID = collectionID
            self.allDescendants = allDescendants
        }
    }

    /// `UnaryFilter.Operator`, with its REST name and protobuf number.
    package enum UnaryOperator: String, Sendable, Hashable, CaseIterable {
        case isNaN = "IS_NAN"
        case isNull = "IS_NULL"
        case isNotNaN = "IS_NOT_NAN"
        case isNotNull = "IS_NOT_NULL"
    }

    /// `Filter`: a composite of filters, a comparison of a field with a value, or a unary test of a field.
    package indirect enum FilterNode: Sendable, Hashable {
        case composite(Filter.CompositeOperator, [FilterNode])
        case field(FieldPath, FilterOperator, FirestoreValue)
        case unary(UnaryOperator, FieldPath)
    }

    /// `Cursor`: values in the orders' order, and whether the position is before them.
    package struct Cursor: Sendable, Hashable {
        package var values: [FirestoreValue]
        package var before: Bool

        package init(values: [FirestoreValue], before: Bool) {
            self.values = values
            self.before = before
        }
    }

    /// `FindNearest`: the vector search of a ``VectorQuery``.
    package struct FindNearest: Sendable, Hashable {
        package var vectorField: FieldPath
        package var queryVector: FirestoreValue
        package var distanceMeasure: DistanceMeasure
        package var limit: Int
        package var distanceResultField: String?
        package var distanceThreshold: Double?

        package init(
            vectorField: FieldPath, queryVector: FirestoreValue, distanceMeasure: DistanceMeasure, limit: Int,
            distanceResultField: String? = nil, distanceThreshold: Double? = nil
        ) {
            self.vectorField = vectorField
            self.queryVector = queryVector
            self.distanceMeasure = distanceMeasure
            self.limit = limit
            self.distanceResultField = distanceResultField
            self.distanceThreshold = distanceThreshold
        }
    }

    /// `select`: the projection, or `nil` for whole documents.
    package var select: [FieldPath]?
    /// `from`.
    package var from: CollectionSelector
    /// `where`, or `nil` for none.
    package var filter: FilterNode?
    /// `order_by`, as sent (normalised or flipped as the query's rules say).
    package var orderBy: [QueryOrder]
    /// `start_at` and `end_at`, in the sent orientation.
    package var startAt: Cursor?
    package var endAt: Cursor?
    /// `offset` (`nil` or 0 for none) and `limit` (`nil` for none).
    package var offset: Int?
    package var limit: Int?
    /// `find_nearest`, for a vector query.
    package var findNearest: FindNearest?

    /// A query of `from` with the members given; the caller has applied the query rules (``Query/structured()``
    /// does).
    package init(
        select: [FieldPath]? = nil, from: CollectionSelector, filter: FilterNode? = nil, orderBy: [QueryOrder] = [],
        startAt: Cursor? = nil, endAt: Cursor? = nil, offset: Int? = nil, limit: Int? = nil,
        findNearest: FindNearest? = nil
    ) {
        self.select = select
        self.from = from
        self.filter = filter
        self.orderBy = orderBy
        self.startAt = startAt
        self.endAt = endAt
        self.offset = offset
        self.limit = limit
        self.findNearest = findNearest
    }
}
