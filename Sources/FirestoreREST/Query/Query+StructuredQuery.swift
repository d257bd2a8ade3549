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
        if let pendingError { throw pendingError }
        let parentPath = try parent.get()
        var from: [String: JSONValue] = ["collectionId": .string(collectionID)]
        if allDescendants { from["allDescendants"] = true }
        var members: [String: JSONValue] = ["from": [.object(from)]]

        var encodedFilters: [JSONValue] = []
        for filter in filters {
            if let encoded = try encode(filter, parentPath: parentPath) { encodedFilters.append(encoded) }
        }
        if encodedFilters.count == 1, let only = encodedFilters.first {
            members["where"] = only
        } else if encodedFilters.count > 1 {
            members["where"] = ["compositeFilter": ["op": "AND", "filters": .array(encodedFilters)]]
        }

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
                endCursor.map { ($0.values, !$0.before) },
                startCursor.map { ($0.values, !$0.before) }
            )
        }
        if !sentOrders.isEmpty {
            members["orderBy"] = .array(
                sentOrders.map { order in
                    [
                        "field": ["fieldPath": .string(order.field.description)],
                        "direction": order.descending ? "DESCENDING" : "ASCENDING",
                    ]
                })
        }
        if let (values, before) = startCursor {
            members["startAt"] = Self.cursorJSON(values, before: before)
        }
        if let (values, before) = endCursor {
            members["endAt"] = Self.cursorJSON(values, before: before)
        }
        if let selection {
            let fields = selection.isEmpty ? [FieldPath.documentID] : selection
            members["select"] = ["fields": .array(fields.map { ["fieldPath": .string($0.description)] })]
        }
        if let offset, offset != 0 { members["offset"] = .integer(Int64(offset)) }
        if let limit { members["limit"] = .integer(Int64(limit)) }
        return .object(members)
    }

    /// The `runQuery` request body, `{"structuredQuery": ...}`.
    /// - Throws: as ``structuredQuery()``.
    package func runQueryBody() throws(FirestoreError) -> JSONValue {
        ["structuredQuery": try structuredQuery()]
    }

    private static func cursorJSON(_ values: [FirestoreValue], before: Bool) -> JSONValue {
        var cursor: [String: JSONValue] = ["values": .array(values.map(\.restJSON))]
        if before { cursor["before"] = true }
        return .object(cursor)
    }

    // MARK: - Filters

    private func encode(_ filter: Filter, parentPath: ResourcePath) throws(FirestoreError) -> JSONValue? {
        switch filter.node {
        case .invalid(let error):
            throw error
        case .field(let field, let op, let value):
            return try encodeField(field, op, value, parentPath: parentPath)
        case .composite(let op, let parts):
            var encoded: [JSONValue] = []
            for part in parts {
                if let json = try encode(part, parentPath: parentPath) { encoded.append(json) }
            }
            if encoded.isEmpty {
                if op == .or { throw .invalidArgument("an OR filter needs at least one filter") }
                return nil
            }
            if encoded.count == 1 { return encoded.first }
            return ["compositeFilter": ["op": .string(op.rawValue), "filters": .array(encoded)]]
        }
    }

    private func encodeField(
        _ field: FieldPath, _ op: FilterOperator, _ filterValue: FirestoreValue,
        parentPath: ResourcePath
    ) throws(FirestoreError) -> JSONValue {
        let fieldJSON: JSONValue = ["fieldPath": .string(field.description)]
        let unary: String?
        switch (filterValue, op) {
        case (.null, .equal): unary = "IS_NULL"
        case (.null, .notEqual): unary = "IS_NOT_NULL"
        case (let value, .equal) where value.isNaN: unary = "IS_NAN"
        case (let value, .notEqual) where value.isNaN: unary = "IS_NOT_NAN"
        case (.null, _):
            throw .invalidArgument("invalid filter \(field) \(op.symbol) null: null only supports == and !=")
        case (let value, _) where value.isNaN:
            throw .invalidArgument("invalid filter \(field) \(op.symbol) NaN: NaN only supports == and !=")
        default: unary = nil
        }
        if let unary { return ["unaryFilter": ["op": .string(unary), "field": fieldJSON]] }
        var value = filterValue
        if op.takesArray {
            guard case .array(let elements) = value, !elements.isEmpty else {
                throw .invalidArgument("invalid filter \(field) \(op.symbol): the value must be a non-empty array")
            }
        }
        if field.isDocumentID {
            value = try expandDocumentID(value, parentPath: parentPath)
        }
        return ["fieldFilter": ["field": fieldJSON, "op": .string(op.rawValue), "value": value.restJSON]]
    }

    // MARK: - Cursors

    private func encode(_ cursor: QueryCursor, orders: [QueryOrder], parentPath: ResourcePath, name: String)
        throws(FirestoreError) -> (values: [FirestoreValue], before: Bool)
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
            return (values, cursor.before)
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
            return (values, cursor.before)
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
