import FirestoreREST

/// The two requests of a delta poll, built from the query's own StructuredQuery as sent (`limit(toLast:)` already
/// flipped): the documents changed since a watermark, and a `count()` at the same `readTime`.
///
/// - The delta request is the query without `limit` and `offset`, its filters ANDed with
///   `field >= watermark`. When the query orders by `__name__` explicitly (a document-snapshot cursor, or an
///   explicit order), the server refuses the extra inequality field after it ("order by clause cannot contain more
///   fields after the key"), so the request drops `__name__` from `orderBy`, cuts the cursors to the orders left
///   and makes them inclusive (a superset), and ``matchesCursors(_:)`` applies the exact cursors to what comes
///   back.
/// - The count request is the query without `limit` and `offset`; for a full `limit` window it ends at the
///   window's edge document (`endAt` with the edge's values for every normalised order, inclusive), so it counts
///   exactly the documents that can be in the window.
package struct DeltaRequests: Sendable {
    typealias Cursor = StructuredQuery.Cursor

    /// The query polled.
    package let query: Query
    /// The tracking field.
    package let field: FieldPath
    /// The query's StructuredQuery as sent (orders normalised or flipped, cursors in the sent orientation).
    private let wire: StructuredQuery
    /// Whether the delta request had to be relaxed (``matchesCursors(_:)`` filters its answer).
    package let isRelaxed: Bool

    /// The requests for `query` tracking `field`.
    /// - Throws: `FirestoreError` `.invalidArgument` for an invalid query (before anything is sent).
    package init(query: Query, field: FieldPath) throws(FirestoreError) {
        self.query = query
        self.field = field
        wire = try query.structured()
        isRelaxed = wire.orderBy.contains { $0.field.isDocumentID }
    }

    /// Why `query` cannot be polled by delta, or `nil`: an `offset` (the window's start is unknown), or a
    /// projection without a field the query orders by (the documents could not be placed).
    package static func unsupportedReason(_ query: Query) -> String? {
        if let offset = query.offset, offset > 0 { return "the query has an offset" }
        if query.limit == 0 { return "the query has limit 0" }
        if let field = projectionLeavesOutAnOrder(query) {
            return "the projection leaves out \(field), which the query orders by"
        }
        return nil
    }

    /// The first field `query` orders by that its projection (`select(fields:)`) leaves out, or `nil`: the documents
    /// it returns cannot be placed in the query's order by their own fields.
    package static func projectionLeavesOutAnOrder(_ query: Query) -> FieldPath? {
        guard let selection = query.selection else { return nil }
        let selected = Set(selection)
        for order in query.normalizedOrderBy where !order.field.isDocumentID {
            if !selected.contains(order.field) && !selection.contains(where: { covers($0, order.field) }) {
                return order.field
            }
        }
        return nil
    }

    /// The StructuredQuery of the documents of the query (without its limit) whose ``field`` is at or after
    /// `watermark`.
    package func changedSince(_ watermark: Timestamp) -> StructuredQuery {
        var request = wire
        request.limit = nil
        request.offset = nil
        let filter = StructuredQuery.FilterNode.field(field, .greaterThanOrEqual, .timestamp(watermark))
        request.filter = request.filter.map { .composite(.and, [$0, filter]) } ?? filter
        if isRelaxed, let kept = wire.orderBy.firstIndex(where: { $0.field.isDocumentID }) {
            request.orderBy = Array(wire.orderBy[..<kept])
            request.startAt = wire.startAt.flatMap { Self.relaxed($0, keeping: kept, before: true) }
            request.endAt = wire.endAt.flatMap { Self.relaxed($0, keeping: kept, before: false) }
        }
        return request
    }

    /// The StructuredQuery counted: the query without its limit, ending at `edge` inclusive when given (in the
    /// sent orientation: the last document of a `limit` window, the first of a `limit(toLast:)` one).
    /// - Returns: `nil` when `edge` lacks a field the query orders by (the count cannot end at it).
    package func count(endingAt edge: Document?) -> StructuredQuery? {
        var request = wire
        request.limit = nil
        request.offset = nil
        guard let edge else { return request }
        var orders = query.normalizedOrderBy
        if query.limitType == .last, query.limit != nil {
            orders = orders.map { QueryOrder(field: $0.field, descending: !$0.descending) }
        }
        var values: [FirestoreValue] = []
        for order in orders {
            if order.field.isDocumentID {
                values.append(.reference(edge.name))
            } else if let value = edge.value(at: order.field) {
                values.append(value)
            } else {
                return nil
            }
        }
        request.orderBy = orders
        request.endAt = Cursor(values: values, before: false)
        return request
    }

    /// Whether `document` lies within the query's cursors (always, when the delta request was not relaxed).
    /// - Complexity: O(k) value comparisons for k cursor values.
    package func matchesCursors(_ document: Document) -> Bool {
        guard isRelaxed else { return true }
        if let start = wire.startAt {
            let position = compare(document, start.values)
            if start.before ? position < 0 : position <= 0 { return false }
        }
        if let end = wire.endAt {
            let position = compare(document, end.values)
            if end.before ? position >= 0 : position > 0 { return false }
        }
        return true
    }

    /// `document` against cursor `values` on the first orders as sent: negative, zero or positive as it sorts
    /// before, at or after them. A document without an ordered field sorts before (the server never returns one).
    private func compare(_ document: Document, _ values: [FirestoreValue]) -> Int {
        for (order, value) in zip(wire.orderBy, values) {
            let own = order.field.isDocumentID ? .reference(document.name) : document.value(at: order.field)
            guard let own else { return -1 }
            let result = FirestoreValue.compare(own, value)
            if result != 0 { return order.descending ? -result : result }
        }
        return 0
    }

    private static func relaxed(_ cursor: Cursor, keeping count: Int, before: Bool) -> Cursor? {
        guard count > 0, !cursor.values.isEmpty else { return nil }
        return Cursor(values: Array(cursor.values.prefix(count)), before: before)
    }

    private static func covers(_ ancestor: FieldPath, _ path: FieldPath) -> Bool {
        path.segments.count > ancestor.segments.count && path.segments.starts(with: ancestor.segments)
    }
}
