import FirestoreREST

/// The order a query's results come back in, as a comparator on documents: the query's normalised
/// `orderBy` (explicit orders, inequality fields, `__name__`; see `Query.normalizedOrderBy`) applied with
/// Firestore's value ordering (`FirestoreValue.compare`).
///
/// The change computation inserts added and modified documents into the working list with it, as the SDKs do
/// with their query comparator.
package struct DocumentOrdering: Sendable {
    /// The orders, ending with `__name__`.
    package let orders: [QueryOrder]
    /// Whether each of ``orders`` is `__name__`, found once here: the check compares field path segments, and a
    /// first snapshot of n documents compares O(n) times.
    private let isDocumentID: [Bool]

    /// An ordering from explicit orders; `__name__` ascending is appended when missing.
    package init(orders: [QueryOrder]) {
        var all = orders
        if !all.contains(where: { $0.field.isDocumentID }) {
            all.append(QueryOrder(field: .documentID, descending: orders.last?.descending ?? false))
        }
        self.orders = all
        self.isDocumentID = all.map(\.field.isDocumentID)
    }

    /// The ordering of `query`'s results.
    package init(query: Query) { self.init(orders: query.normalizedOrderBy) }

    /// Whether `lhs` comes before `rhs`. A document missing an ordered field sorts before one that has it
    /// (the server never returns such a document for an ordered field; this keeps the order total).
    /// - Complexity: O(k) value comparisons for k orders.
    package func areInIncreasingOrder(_ lhs: Document, _ rhs: Document) -> Bool {
        compare(lhs, rhs) < 0
    }

    /// Negative, zero or positive as `lhs` sorts before, with or after `rhs`.
    package func compare(_ lhs: Document, _ rhs: Document) -> Int {
        for (order, isDocumentID) in zip(orders, isDocumentID) {
            let result: Int
            if isDocumentID {
                result = FirestoreValue.compareResourceNames(lhs.name, rhs.name)
            } else {
                switch (lhs.value(at: order.field), rhs.value(at: order.field)) {
                case (nil, nil): result = 0
                case (nil, _): result = -1
                case (_, nil): result = 1
                case (let a?, let b?): result = FirestoreValue.compare(a, b)
                }
            }
            if result != 0 { return order.descending ? -result : result }
        }
        return 0
    }
}
