extension Query {
    /// The REST StructuredQuery JSON of this query (`firestore-rest.md` §1.7; conformance `query-*.json`):
    /// `from`, then `where` (one filter bare, several in an `AND` composite), `orderBy`, `limit`.
    ///
    /// Equality with null or NaN becomes the unary `IS_NULL` / `IS_NAN` (`!=` becomes `IS_NOT_NULL` /
    /// `IS_NOT_NAN`); a `__name__` filter value given as a string (a bare ID, or a path below the root)
    /// becomes the full `referenceValue`.
    /// - Throws: ``FirestoreError`` `.invalidArgument`, before anything is sent, for an invalid collection
    ///   path or field path, any other comparison with null or NaN, an `in`/`not-in`/`array-contains-any`
    ///   value that is not a non-empty array, or a negative limit.
    public func structuredQuery() throws(FirestoreError) -> JSONValue {
        if let pendingError { throw pendingError }
        let parentPath = try parent.get()
        var from: [String: JSONValue] = ["collectionId": .string(collectionID)]
        if allDescendants { from["allDescendants"] = true }
        var members: [String: JSONValue] = ["from": [.object(from)]]
        let encoded = try filters.map { (filter) throws(FirestoreError) in
            try encode(filter, parentPath: parentPath)
        }
        if encoded.count == 1, let only = encoded.first {
            members["where"] = only
        } else if encoded.count > 1 {
            members["where"] = ["compositeFilter": ["op": "AND", "filters": .array(encoded)]]
        }
        if !orders.isEmpty {
            members["orderBy"] = .array(orders.map { order in
                ["field": ["fieldPath": .string(order.field.description)],
                 "direction": order.descending ? "DESCENDING" : "ASCENDING"]
            })
        }
        if let limit { members["limit"] = .integer(Int64(limit)) }
        return .object(members)
    }

    /// The `runQuery` request body, `{"structuredQuery": ...}`.
    /// - Throws: as ``structuredQuery()``.
    public func runQueryBody() throws(FirestoreError) -> JSONValue {
        ["structuredQuery": try structuredQuery()]
    }

    private func encode(_ filter: FieldFilter, parentPath: ResourcePath) throws(FirestoreError) -> JSONValue {
        let field: JSONValue = ["fieldPath": .string(filter.field.description)]
        let unary: String?
        switch (filter.value, filter.op) {
        case (.null, .equal): unary = "IS_NULL"
        case (.null, .notEqual): unary = "IS_NOT_NULL"
        case (let value, .equal) where value.isNaN: unary = "IS_NAN"
        case (let value, .notEqual) where value.isNaN: unary = "IS_NOT_NAN"
        case (.null, _):
            throw .invalidArgument("invalid filter \(filter.field) \(filter.op.symbol) null: null only supports == and !=")
        case (let value, _) where value.isNaN:
            throw .invalidArgument("invalid filter \(filter.field) \(filter.op.symbol) NaN: NaN only supports == and !=")
        default: unary = nil
        }
        if let unary { return ["unaryFilter": ["op": .string(unary), "field": field]] }
        var value = filter.value
        if filter.op.takesArray {
            guard case .array(let elements) = value, !elements.isEmpty else {
                throw .invalidArgument(
                    "invalid filter \(filter.field) \(filter.op.symbol): the value must be a non-empty array")
            }
        }
        if filter.field.isDocumentID {
            value = try expandDocumentID(value, parentPath: parentPath)
        }
        return ["fieldFilter": ["field": field, "op": .string(filter.op.rawValue), "value": value.restJSON]]
    }

    /// A `__name__` value given as a string becomes a reference: a bare ID names a document of the queried
    /// collection, a path with slashes a document below the root (conformance `query-cursor-vals-docid`).
    private func expandDocumentID(_ value: FirestoreValue, parentPath: ResourcePath) throws(FirestoreError)
        -> FirestoreValue
    {
        switch value {
        case .string(let text):
            let path: ResourcePath
            if text.contains("/") {
                path = try ResourcePath(text)
            } else if allDescendants {
                throw .invalidArgument(
                    "a collection-group query on __name__ needs a document path, not the bare ID \"\(text)\"")
            } else {
                path = try parentPath.appending(collectionID).appending(text)
            }
            guard path.isDocument else {
                throw .invalidArgument("\"\(text)\" is not a document path for a __name__ filter")
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
