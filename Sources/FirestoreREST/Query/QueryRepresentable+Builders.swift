import FirestoreWire

/// Builder methods in Firebase SDK terms. Each returns a new ``Query``; field names are dotted paths
/// (`"address.city"`), or ``FieldPath`` values for names that hold dots or other special characters.
extension QueryRepresentable {
    /// Adds a filter; several are ANDed. See ``Filter`` for OR and nested filters.
    public func whereFilter(_ filter: Filter) -> Query {
        query.with { $0.filters.append(filter) }
    }

    /// Documents whose `field` equals `value` (`EQUAL`; null becomes `IS_NULL`, NaN `IS_NAN`).
    public func whereField(_ field: String, isEqualTo value: any FirestoreValueConvertible) -> Query {
        whereFilter(.whereField(field, isEqualTo: value))
    }
    /// Documents whose `field` exists and differs from `value` (`NOT_EQUAL`; null becomes `IS_NOT_NULL`,
    /// NaN `IS_NOT_NAN`). Documents where `field` is null or missing never match.
    public func whereField(_ field: String, isNotEqualTo value: any FirestoreValueConvertible) -> Query {
        whereFilter(.whereField(field, isNotEqualTo: value))
    }
    /// Documents whose `field` sorts before `value` (`LESS_THAN`).
    public func whereField(_ field: String, isLessThan value: any FirestoreValueConvertible) -> Query {
        whereFilter(.whereField(field, isLessThan: value))
    }
    /// `LESS_THAN_OR_EQUAL`.
    public func whereField(_ field: String, isLessThanOrEqualTo value: any FirestoreValueConvertible) -> Query {
        whereFilter(.whereField(field, isLessThanOrEqualTo: value))
    }
    /// `GREATER_THAN`.
    public func whereField(_ field: String, isGreaterThan value: any FirestoreValueConvertible) -> Query {
        whereFilter(.whereField(field, isGreaterThan: value))
    }
    /// `GREATER_THAN_OR_EQUAL`.
    public func whereField(_ field: String, isGreaterThanOrEqualTo value: any FirestoreValueConvertible) -> Query {
        whereFilter(.whereField(field, isGreaterThanOrEqualTo: value))
    }
    /// Documents whose array `field` holds `value` (`ARRAY_CONTAINS`).
    public func whereField(_ field: String, arrayContains value: any FirestoreValueConvertible) -> Query {
        whereFilter(.whereField(field, arrayContains: value))
    }
    /// Documents whose array `field` holds any of `values` (`ARRAY_CONTAINS_ANY`, at most 30 values).
    public func whereField(_ field: String, arrayContainsAny values: [any FirestoreValueConvertible]) -> Query {
        whereFilter(.whereField(field, arrayContainsAny: values))
    }
    /// Documents whose `field` equals one of `values` (`IN`, at most 30 values).
    public func whereField(_ field: String, in values: [any FirestoreValueConvertible]) -> Query {
        whereFilter(.whereField(field, in: values))
    }
    /// Documents whose `field` exists and equals none of `values` (`NOT_IN`, at most 10 values).
    public func whereField(_ field: String, notIn values: [any FirestoreValueConvertible]) -> Query {
        whereFilter(.whereField(field, notIn: values))
    }
    /// A filter on a ``FieldPath`` with any operator (``FieldPath/documentID`` filters on the document key;
    /// a bare ID or relative path value is expanded to the full reference).
    public func whereField(_ field: FieldPath, _ op: FilterOperator, _ value: any FirestoreValueConvertible) -> Query {
        whereFilter(.whereField(field, op, value))
    }
    /// A filter given by operator on a dotted path, as the CLI's `--where` builds it.
    public func whereField(_ field: String, _ op: FilterOperator, _ value: any FirestoreValueConvertible) -> Query {
        whereFilter(.whereField(field, op, value))
    }

    /// Orders the results by `field` (a dotted path), ascending unless `descending`.
    public func order(by field: String, descending: Bool = false) -> Query {
        do {
            return order(by: try FieldPath(dotted: field), descending: descending)
        } catch {
            return query.with { $0.record(error) }
        }
    }

    /// Orders the results by `field`, ascending unless `descending`.
    public func order(by field: FieldPath, descending: Bool = false) -> Query {
        query.with { $0.orders.append(QueryOrder(field: field, descending: descending)) }
    }

    /// Returns at most the first `count` documents (`limit`; 0 returns none). A negative count is an error.
    public func limit(to count: Int) -> Query {
        query.with { $0.setLimit(count, .first) }
    }

    /// Returns at most the last `count` documents in the query's order. Firestore has no such limit: the
    /// query is sent with every order flipped and the start and end cursors swapped (`before` inverted), and
    /// the rows are reversed on arrival, as the Node, Java and web SDKs do (conformance `query-*.json` pins the flipped
    /// request). Needs at least one `order(by:descending:)`; a negative count is an error.
    public func limit(toLast count: Int) -> Query {
        query.with { $0.setLimit(count, .last) }
    }

    /// Skips the first `count` documents (`offset`). A negative count is an error.
    public func offset(_ count: Int) -> Query {
        query.with { query in
            if count < 0 { query.record(.invalidArgument("offset must not be negative, got \(count)")) }
            query.offset = count
        }
    }

    /// Returns only these fields (dotted paths) of each document; an empty list returns only the document
    /// names (`select __name__`, conformance `query-select-empty.json`). A later call replaces an earlier one.
    public func select(_ fields: [String]) -> Query {
        do {
            return select(fields: try fields.map { (field) throws(FirestoreError) in try FieldPath(dotted: field) })
        } catch {
            return query.with { $0.record(error) }
        }
    }

    /// Returns only these fields of each document; see ``select(_:)``.
    public func select(fields: [FieldPath]) -> Query {
        query.with { $0.selection = fields }
    }

    /// Starts at the documents whose order fields equal `values` (inclusive; REST `startAt` `before: true`).
    /// Values pair with the orders in turn; fewer values than orders are allowed, more are an error. A
    /// `__name__` value may be a bare document ID of this collection.
    public func start(at values: [any FirestoreValueConvertible]) -> Query {
        query.with { $0.start = QueryCursor(position: .values(values.map(\.firestoreValue)), before: true) }
    }
    /// Starts after the documents whose order fields equal `values` (exclusive).
    public func start(after values: [any FirestoreValueConvertible]) -> Query {
        query.with { $0.start = QueryCursor(position: .values(values.map(\.firestoreValue)), before: false) }
    }
    /// Ends at the documents whose order fields equal `values` (inclusive).
    public func end(at values: [any FirestoreValueConvertible]) -> Query {
        query.with { $0.end = QueryCursor(position: .values(values.map(\.firestoreValue)), before: false) }
    }
    /// Ends before the documents whose order fields equal `values` (exclusive).
    public func end(before values: [any FirestoreValueConvertible]) -> Query {
        query.with { $0.end = QueryCursor(position: .values(values.map(\.firestoreValue)), before: true) }
    }
    /// Starts at `document` (inclusive). The orders are normalised (``Query/normalizedOrderBy``) and the
    /// cursor holds the document's values for them plus its reference (conformance `query-cursor-docsnap*`).
    /// The document must belong to the queried collection and have every ordered field.
    public func start(atDocument document: DocumentSnapshot) -> Query {
        query.with { $0.start = QueryCursor(position: .document(document), before: true) }
    }
    /// Starts after `document` (exclusive); see ``start(atDocument:)``. The way to page.
    public func start(afterDocument document: DocumentSnapshot) -> Query {
        query.with { $0.start = QueryCursor(position: .document(document), before: false) }
    }
    /// Ends at `document` (inclusive); see ``start(atDocument:)``.
    public func end(atDocument document: DocumentSnapshot) -> Query {
        query.with { $0.end = QueryCursor(position: .document(document), before: false) }
    }
    /// Ends before `document` (exclusive); see ``start(atDocument:)``.
    public func end(beforeDocument document: DocumentSnapshot) -> Query {
        query.with { $0.end = QueryCursor(position: .document(document), before: true) }
    }
}

extension Query {
    mutating func setLimit(_ count: Int, _ type: LimitType) {
        if count < 0 { record(.invalidArgument("limit must not be negative, got \(count)")) }
        if count > Int(Int32.max) { record(.invalidArgument("limit \(count) is above \(Int32.max)")) }
        limit = count
        limitType = type
    }
}
