import FirestoreWire

extension Query {
    /// The REST StructuredQuery JSON of this query (REST reference: `StructuredQuery`; conformance `query-*.json`):
    /// `select`, `from`, `where` (one filter bare, several in an `AND` composite), `orderBy`, `startAt`,
    /// `endAt`, `offset`, `limit`.
    ///
    /// - Equality with null or NaN becomes the unary `IS_NULL` / `IS_NAN` (`!=` becomes `IS_NOT_NULL` /
    ///   `IS_NOT_NAN`).
    /// - A `__name__` filter or cursor value given as a string (a bare ID, or a path below the root) becomes
    ///   the full `referenceValue` (`query-cursor-vals-docid.json`).
    /// - With a document-snapshot cursor the orders are normalised (``normalizedOrderBy``) and the cursor
    ///   holds the document's values for them plus its reference (`query-cursor-docsnap*.json`).
    /// - ``LimitType/last`` flips every order, swaps the cursors with `before` inverted and sends a plain
    ///   limit; ``QueryRepresentable/runQuery(readTime:)`` reverses the rows.
    /// - Throws: ``FirestoreError`` `.invalidArgument`, before anything is sent, for an invalid collection
    ///   path or field path, any other comparison with null or NaN, an `in`/`not-in`/`array-contains-any`
    ///   value that is not a non-empty array, an empty OR, a cursor without orders, with no values or with
    ///   more values than orders, a document cursor from another collection or missing an ordered field,
    ///   `limit(toLast:)` without an order, or a negative limit or offset.
    package func structuredQuery() throws(FirestoreError) -> JSONValue {
        try structured().restJSON
    }

    /// This query resolved into the wire model both protocols print (``StructuredQuery``), every rule of
    /// ``structuredQuery()`` applied.
    /// - Throws: as ``structuredQuery()``.
    /// - Complexity: O(n) in the size of the query.
    package func structured() throws(FirestoreError) -> StructuredQuery {
        if let pendingError { throw pendingError }
        let parentPath = try parent.get()
        var encodedFilters: [StructuredQuery.FilterNode] = []
        for filter in filters {
            if let encoded = try encode(filter, parentPath: parentPath) { encodedFilters.append(encoded) }
        }
        let filter: StructuredQuery.FilterNode? =
            encodedFilters.count > 1 ? .composite(.and, encodedFilters) : encodedFilters.first

        let usesDocumentCursor = [start, end].contains { cursor in
            if case .document? = cursor?.position { return true }
            return false
        }
        var sentOrders = usesDocumentCursor ? normalizedOrderBy : orders
        var startCursor = try start.map { (cursor) throws(FirestoreError) in
            try encode(cursor, orders: sentOrders, parentPath: parentPath, name: "start")
        }
        var endCursor = try end.map { (cursor) throws(FirestoreError) in
            try encode(cursor, orders: sentOrders, parentPath: parentPath, name: "end")
        }
        if limitType == .last, limit != nil {
            guard !orders.isEmpty else {
                throw .invalidArgument("limit(toLast:) needs at least one order(by:): Firestore has no last-N limit")
            }
            sentOrders = sentOrders.map { QueryOrder(field: $0.field, descending: !$0.descending) }
            (startCursor, endCursor) = (
                endCursor.map { StructuredQuery.Cursor(values: $0.values, before: !$0.before) },
                startCursor.map { StructuredQuery.Cursor(values: $0.values, before: !$0.before) }
            )
        }
        return StructuredQuery(
            select: selection.map { $0.isEmpty ? [FieldPath.documentID] : $0 },
            from: StructuredQuery.CollectionSelector(collectionID: collectionID, allDescendants: allDescendants),
            filter: filter, orderBy: sentOrders, startAt: startCursor, endAt: endCursor,
            offset: offset == 0 ? nil : offset, limit: limit, findNearest: nil)
    }

    /// The `runQuery` request body, `{"structuredQuery": ...}`.
    /// - Throws: as ``structuredQuery()``.
    package func runQueryBody() throws(FirestoreError) -> JSONValue {
        ["structuredQuery": try structuredQuery()]
    }

    // MARK: - Filters

    private func encode(_ filter: Filter, parentPath: ResourcePath) throws(FirestoreError)
        -> StructuredQuery.FilterNode?
    {
        switch filter.node {
        case .invalid(let error):
            throw error
        case .field(let field, let op, let value):
            return try encodeField(field, op, value, parentPath: parentPath)
        case .composite(let op, let parts):
            var encoded: [StructuredQuery.FilterNode] = []
            for part in parts {
                if let node = try encode(part, parentPath: parentPath) { encoded.append(node) }
            }
            if encoded.isEmpty {
                if op == .or { throw .invalidArgument("an OR filter needs at least one filter") }
                return nil
            }
            if encoded.count == 1 { return encoded.first }
            return .composite(op, encoded)
        }
    }

    private func encodeField(
        _ field: FieldPath, _ op: FilterOperator, _ filterValue: FirestoreValue,
        parentPath: ResourcePath
    ) throws(FirestoreError) -> StructuredQuery.FilterNode {
        let unary: StructuredQuery.UnaryOperator?
        switch (filterValue, op) {
        case (.null, .equal): unary = .isNull
        case (.null, .notEqual): unary = .isNotNull
        case (let value, .equal) where value.isNaN: unary = .isNaN
        case (let value, .notEqual) where value.isNaN: unary = .isNotNaN
        case (.null, _):
            throw .invalidArgument("invalid filter \(field) \(op.symbol) null: null only supports == and !=")
        case (let value, _) where value.isNaN:
            throw .invalidArgument("invalid filter \(field) \(op.symbol) NaN: NaN only supports == and !=")
        default: unary = nil
        }
        if let unary { return .unary(unary, field) }
        var value = filterValue
        if op.takesArray {
            guard case .array(let elements) = value, !elements.isEmpty else {
                throw .invalidArgument("invalid filter \(field) \(op.symbol): the value must be a non-empty array")
            }
        }
        if field.isDocumentID {
            value = try expandDocumentID(value, parentPath: parentPath)
        }
        return .field(field, op, value)
    }

    // MARK: - Cursors

    private func encode(_ cursor: QueryCursor, orders: [QueryOrder], parentPath: ResourcePath, name: String)
        throws(FirestoreError) -> StructuredQuery.Cursor
    {
        switch cursor.position {
        case .values(let given):
            guard !orders.isEmpty else {
                throw .invalidArgument("the \(name) cursor with values needs at least one order(by:)")
            }
            guard !given.isEmpty else { throw .invalidArgument("the \(name) cursor needs at least one value") }
            guard given.count <= orders.count else {
                throw .invalidArgument(
                    "the \(name) cursor has \(given.count) values but the query has only \(orders.count) orders")
            }
            var values: [FirestoreValue] = []
            for (value, order) in zip(given, orders) {
                values.append(order.field.isDocumentID ? try expandDocumentID(value, parentPath: parentPath) : value)
            }
            return StructuredQuery.Cursor(values: values, before: cursor.before)
        case .document(let snapshot):
            let documentPath = try snapshot.reference.resourcePath()
            let collectionPath = documentPath.parent
            let belongs =
                allDescendants
                ? collectionPath.lastSegment == collectionID
                    && collectionPath.segments.starts(with: parentPath.segments)
                : collectionPath == (try parentPath.appending(collectionID))
            guard belongs else {
                throw .invalidArgument(
                    "the \(name) cursor's document \(documentPath) is not in the queried collection \(collectionID)")
            }
            guard snapshot.reference.firestore.database == firestore.database else {
                throw .invalidArgument("the \(name) cursor's document belongs to another database")
            }
            var values: [FirestoreValue] = []
            for order in orders {
                if order.field.isDocumentID {
                    values.append(.reference(firestore.database.resourceName(of: documentPath)))
                } else if let value = snapshot.get(order.field) {
                    values.append(value)
                } else {
                    throw .invalidArgument(
                        "the \(name) cursor's document \(documentPath) has no field \(order.field), which the query orders by"
                    )
                }
            }
            return StructuredQuery.Cursor(values: values, before: cursor.before)
        }
    }

    /// A `__name__` value given as a string becomes a reference: a bare ID names a document of the queried
    /// collection, a path with slashes a document below the root (conformance `query-cursor-vals-docid`).
    private func expandDocumentID(_ value: FirestoreValue, parentPath: ResourcePath) throws(FirestoreError)
        -> FirestoreValue
    {
        switch value {
        case .string(let text):
            let path: ResourcePath
            if text.containsUTF8("/") {
                path = try ResourcePath(text)
            } else if allDescendants {
                throw .invalidArgument(
                    "a collection-group query on __name__ needs a document path, not the bare ID \"\(text)\"")
            } else {
                path = try parentPath.appending(collectionID).appending(text)
            }
            guard path.isDocument else {
                throw .invalidArgument("\"\(text)\" is not a document path for a __name__ value")
            }
            return .reference(firestore.database.resourceName(of: path))
        case .array(let elements):
            var expanded: [FirestoreValue] = []
            for element in elements { expanded.append(try expandDocumentID(element, parentPath: parentPath)) }
            return .array(expanded)
        default:
            return value
        }
    }
}
