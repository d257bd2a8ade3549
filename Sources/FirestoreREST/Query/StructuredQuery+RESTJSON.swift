import FirestoreWire

extension StructuredQuery {
    /// The REST StructuredQuery JSON (proto3 JSON names): `select`, `from`, `where`, `orderBy`, `startAt`, `endAt`,
    /// `offset` (left out when 0), `limit` and `findNearest` (`limit`, an `Int32Value`, and `distanceThreshold`, a
    /// `DoubleValue`, as plain JSON numbers, as proto3 JSON writes wrappers).
    /// - Complexity: O(n) in the size of the query.
    package var restJSON: JSONValue {
        var collection: [String: JSONValue] = ["collectionId": .string(from.collectionID)]
        if from.allDescendants { collection["allDescendants"] = true }
        var members: [String: JSONValue] = ["from": [.object(collection)]]
        if let filter { members["where"] = Self.restJSON(filter) }
        if !orderBy.isEmpty {
            members["orderBy"] = .array(
                orderBy.map { order in
                    [
                        "field": Self.fieldReference(order.field),
                        "direction": order.descending ? "DESCENDING" : "ASCENDING",
                    ]
                })
        }
        if let startAt { members["startAt"] = Self.restJSON(startAt) }
        if let endAt { members["endAt"] = Self.restJSON(endAt) }
        if let select { members["select"] = ["fields": .array(select.map(Self.fieldReference))] }
        if let offset, offset != 0 { members["offset"] = .integer(Int64(offset)) }
        if let limit { members["limit"] = .integer(Int64(limit)) }
        if let findNearest {
            var nearest: [String: JSONValue] = [
                "vectorField": Self.fieldReference(findNearest.vectorField),
                "queryVector": findNearest.queryVector.restJSON,
                "distanceMeasure": .string(findNearest.distanceMeasure.rawValue),
                "limit": .integer(Int64(findNearest.limit)),
            ]
            if let field = findNearest.distanceResultField { nearest["distanceResultField"] = .string(field) }
            if let threshold = findNearest.distanceThreshold { nearest["distanceThreshold"] = .double(threshold) }
            members["findNearest"] = .object(nearest)
        }
        return .object(members)
    }

    /// `{"fieldPath": "a.b"}`.
    static func fieldReference(_ field: FieldPath) -> JSONValue {
        ["fieldPath": .string(field.description)]
    }

    private static func restJSON(_ filter: FilterNode) -> JSONValue {
        switch filter {
        case .composite(let op, let parts):
            return ["compositeFilter": ["op": .string(op.rawValue), "filters": .array(parts.map(restJSON))]]
        case .field(let field, let op, let value):
            return [
                "fieldFilter": ["field": fieldReference(field), "op": .string(op.rawValue), "value": value.restJSON]
            ]
        case .unary(let op, let field):
            return ["unaryFilter": ["op": .string(op.rawValue), "field": fieldReference(field)]]
        }
    }

    private static func restJSON(_ cursor: Cursor) -> JSONValue {
        var members: [String: JSONValue] = ["values": .array(cursor.values.map(\.restJSON))]
        if cursor.before { members["before"] = true }
        return .object(members)
    }
}
