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
    typealias Cursor = (values: [FirestoreValue], before: Bool)

    /// The query polled.
    package let query: Query
    /// The tracking field.
    package let field: FieldPath
    /// The members of the query's StructuredQuery as sent.
    private let wire: [String: JSONValue]
    /// The orders as sent, and the cursors as sent (in the sent orientation).
    private let wireOrders: [QueryOrder]
    private let wireStart: Cursor?
    private let wireEnd: Cursor?
    /// Whether the delta request had to be relaxed (``matchesCursors(_:)`` filters its answer).
    package let isRelaxed: Bool

    /// The requests for `query` tracking `field`.
    /// - Throws: `FirestoreError` `.invalidArgument` for an invalid query (before anything is sent), `.internal`
    ///   when the query's own encoding cannot be read back (a bug).
    package init(query: Query, field: FieldPath) throws(FirestoreError) {
        self.query = query
        self.field = field
        guard let members = try query.structuredQuery().objectValue else {
            throw FirestoreError(code: .internal, message: "the StructuredQuery of \(query.collectionID) is no object")
        }
        wire = members
        var orders: [QueryOrder] = []
        for order in members["orderBy"]?.arrayValue ?? [] {
            guard let path = order["field"]?["fieldPath"]?.stringValue else {
                throw FirestoreError(code: .internal, message: "an order of the StructuredQuery has no field path")
            }
            orders.append(
                QueryOrder(field: try FieldPath(quoted: path), descending: order["direction"] == "DESCENDING"))
        }
        wireOrders = orders
        wireStart = try Self.cursor(members["startAt"])
        wireEnd = try Self.cursor(members["endAt"])
        isRelaxed = orders.contains { $0.field.isDocumentID }
    }

    /// Why `query` cannot be polled by delta, or `nil`: an `offset` (the window's start is unknown), or a
    /// projection without a field the query orders by (the documents could not be placed).
    package static func unsupportedReason(_ query: Query) -> String? {
        if let offset = query.offset, offset > 0 { return "the query has an offset" }
        if query.limit == 0 { return "the query has limit 0" }
        if let selection = query.selection {
            let selected = Set(selection)
            for order in query.normalizedOrderBy where !order.field.isDocumentID {
                if !selected.contains(order.field) && !selection.contains(where: { covers($0, order.field) }) {
                    return "the projection leaves out \(order.field), which the query orders by"
                }
            }
        }
        return nil
    }

    /// The StructuredQuery of the documents of the query (without its limit) whose ``field`` is at or after
    /// `watermark`.
    package func changedSince(_ watermark: Timestamp) -> JSONValue {
        var members = wire
        members["limit"] = nil
        members["offset"] = nil
        let filter: JSONValue = [
            "fieldFilter": [
                "field": ["fieldPath": .string(field.description)], "op": "GREATER_THAN_OR_EQUAL",
                "value": FirestoreValue.timestamp(watermark).restJSON,
            ]
        ]
        switch members["where"] {
        case nil:
            members["where"] = filter
        case let existing?:
            members["where"] = ["compositeFilter": ["op": "AND", "filters": [existing, filter]]]
        }
        if isRelaxed, let kept = wireOrders.firstIndex(where: { $0.field.isDocumentID }) {
            members["orderBy"] = kept == 0 ? nil : .array(wireOrders[..<kept].map(Self.orderJSON))
            members["startAt"] = wireStart.flatMap { Self.relaxed($0, keeping: kept, before: true) }
            members["endAt"] = wireEnd.flatMap { Self.relaxed($0, keeping: kept, before: false) }
        }
        return .object(members)
    }

    /// The StructuredQuery counted: the query without its limit, ending at `edge` inclusive when given (in the
    /// sent orientation: the last document of a `limit` window, the first of a `limit(toLast:)` one).
    /// - Returns: `nil` when `edge` lacks a field the query orders by (the count cannot end at it).
    package func count(endingAt edge: Document?) -> JSONValue? {
        var members = wire
        members["limit"] = nil
        members["offset"] = nil
        guard let edge else { return .object(members) }
        var orders = query.normalizedOrderBy
        if query.limitType == .last, query.limit != nil {
            orders = orders.map { QueryOrder(field: $0.field, descending: !$0.descending) }
        }
        var values: [JSONValue] = []
        for order in orders {
            if order.field.isDocumentID {
                values.append(FirestoreValue.reference(edge.name).restJSON)
            } else if let value = edge.value(at: order.field) {
                values.append(value.restJSON)
            } else {
                return nil
            }
        }
        members["orderBy"] = .array(orders.map(Self.orderJSON))
        members["endAt"] = ["values": .array(values)]
        return .object(members)
    }

    /// Whether `document` lies within the query's cursors (always, when the delta request was not relaxed).
    /// - Complexity: O(k) value comparisons for k cursor values.
    package func matchesCursors(_ document: Document) -> Bool {
        guard isRelaxed else { return true }
        if let start = wireStart {
            let position = compare(document, start.values)
            if start.before ? position < 0 : position <= 0 { return false }
        }
        if let end = wireEnd {
            let position = compare(document, end.values)
            if end.before ? position >= 0 : position > 0 { return false }
        }
        return true
    }

    /// `document` against cursor `values` on the first orders as sent: negative, zero or positive as it sorts
    /// before, at or after them. A document without an ordered field sorts before (the server never returns one).
    private func compare(_ document: Document, _ values: [FirestoreValue]) -> Int {
        for (order, value) in zip(wireOrders, values) {
            let own = order.field.isDocumentID ? .reference(document.name) : document.value(at: order.field)
            guard let own else { return -1 }
            let result = FirestoreValue.compare(own, value)
            if result != 0 { return order.descending ? -result : result }
        }
        return 0
    }

    private static func cursor(_ json: JSONValue?) throws(FirestoreError) -> Cursor? {
        guard let json else { return nil }
        var values: [FirestoreValue] = []
        for value in json["values"]?.arrayValue ?? [] {
            values.append(try FirestoreValue(restJSON: value, at: "cursor value"))
        }
        return (values, json["before"] == .bool(true))
    }

    private static func relaxed(_ cursor: Cursor, keeping count: Int, before: Bool) -> JSONValue? {
        guard count > 0, !cursor.values.isEmpty else { return nil }
        var members: [String: JSONValue] = ["values": .array(cursor.values.prefix(count).map(\.restJSON))]
        if before { members["before"] = true }
        return .object(members)
    }

    private static func orderJSON(_ order: QueryOrder) -> JSONValue {
        [
            "field": ["fieldPath": .string(order.field.description)],
            "direction": order.descending ? "DESCENDING" : "ASCENDING",
        ]
    }

    private static func covers(_ ancestor: FieldPath, _ path: FieldPath) -> Bool {
        path.segments.count > ancestor.segments.count && path.segments.starts(with: ancestor.segments)
    }
}
