import FirestoreWire

/// Reads a serialized `google.firestore.v1.StructuredQuery`
/// (`google/firestore/v1/query.proto`) back to the REST StructuredQuery JSON that ``Query/structuredQuery()``
/// builds, so a recorded Listen target reads as the same JSON a `runQuery` request body holds.
///
/// The JSON follows the REST encoder's shapes: `orderBy` entries with `field` and `direction`, cursors with
/// `values` and `before` only when true, `select.fields` always present, `limit` a JSON number, `offset` left
/// out when 0, values in their REST form (``FirestoreValue/restJSON``). Fields the encoder never writes are
/// skipped; proto3 default values are left out, so printing the decoded query again gives the same bytes for every
/// message ``StructuredQuery/protobuf()`` produces (`ListenProtoJSONTests`).
package enum StructuredQueryProtobuf {
    /// The `FieldFilter.Operator` numbers by REST name (``StructuredQuery/number(of:)-(FilterOperator)``).
    package static let fieldOperators: [String: Int32] = Dictionary(
        uniqueKeysWithValues: FilterOperator.allCases.map { ($0.rawValue, StructuredQuery.number(of: $0)) })

    /// The `UnaryFilter.Operator` numbers by REST name.
    package static let unaryOperators: [String: Int32] = Dictionary(
        uniqueKeysWithValues: StructuredQuery.UnaryOperator.allCases.map {
            ($0.rawValue, StructuredQuery.number(of: $0))
        })

    /// The `CompositeFilter.Operator` numbers by REST name.
    package static let compositeOperators: [String: Int32] = ["AND": 1, "OR": 2]

    /// The REST StructuredQuery JSON of one serialized `StructuredQuery` message.
    /// - Throws: ``FirestoreError`` `.dataLoss` naming the field path and byte offset for malformed wire data,
    ///   a malformed `Value`, or an operator or direction number `query.proto` does not define.
    /// - Complexity: O(n) in `bytes.count`.
    package static func decode(_ bytes: [UInt8]) throws(FirestoreError) -> JSONValue {
        try ProtobufReader.read(bytes, message: "StructuredQuery") { (reader) throws(FirestoreError) in
            try readQuery(&reader)
        }
    }

    private static func readQuery(_ reader: inout ProtobufReader) throws(FirestoreError) -> JSONValue {
        var members: [String: JSONValue] = [:]
        var selected: [JSONValue]?
        var from: [JSONValue] = []
        var orders: [JSONValue] = []
        while let field = try reader.nextField() {
            switch field.number {
            case 1:
                try reader.readMessage(field, "select") { (projection) throws(FirestoreError) in
                    var fields = selected ?? []
                    while let member = try projection.nextField() {
                        guard member.number == 2 else {
                            try projection.skip(member)
                            continue
                        }
                        fields.append(
                            try projection.readMessage(member, "fields") { (nested) throws(FirestoreError) in
                                try readFieldReference(&nested)
                            })
                    }
                    selected = fields
                }
            case 2:
                from.append(
                    try reader.readMessage(field, "from") { (selector) throws(FirestoreError) in
                        var collection: [String: JSONValue] = [:]
                        while let member = try selector.nextField() {
                            switch member.number {
                            case 2:
                                collection["collectionId"] = .string(try selector.readString(member, "collection_id"))
                            case 3:
                                if try selector.readBool(member, "all_descendants") {
                                    collection["allDescendants"] = true
                                }
                            default: try selector.skip(member)
                            }
                        }
                        return .object(collection)
                    })
            case 3:
                members["where"] = try reader.readMessage(field, "where") { (nested) throws(FirestoreError) in
                    try readFilter(&nested)
                }
            case 4:
                orders.append(
                    try reader.readMessage(field, "order_by") { (order) throws(FirestoreError) in
                        var entry: [String: JSONValue] = [:]
                        while let member = try order.nextField() {
                            switch member.number {
                            case 1:
                                entry["field"] = try order.readMessage(member, "field") {
                                    (nested) throws(FirestoreError) in try readFieldReference(&nested)
                                }
                            case 2:
                                entry["direction"] = try enumName(
                                    &order, member, "direction", ["ASCENDING": 1, "DESCENDING": 2])
                            default: try order.skip(member)
                            }
                        }
                        return .object(entry)
                    })
            case 5:
                members["limit"] = try reader.readMessage(field, "limit") { (wrapper) throws(FirestoreError) in
                    var value: Int32 = 0
                    while let member = try wrapper.nextField() {
                        if member.number == 1 {
                            value = try wrapper.readInt32(member, "value")
                        } else {
                            try wrapper.skip(member)
                        }
                    }
                    return .integer(Int64(value))
                }
            case 6:
                let offset = try reader.readInt32(field, "offset")
                members["offset"] = offset == 0 ? nil : .integer(Int64(offset))
            case 7:
                members["startAt"] = try reader.readMessage(field, "start_at") { (nested) throws(FirestoreError) in
                    try readCursor(&nested)
                }
            case 8:
                members["endAt"] = try reader.readMessage(field, "end_at") { (nested) throws(FirestoreError) in
                    try readCursor(&nested)
                }
            default: try reader.skip(field)
            }
        }
        if let selected { members["select"] = ["fields": .array(selected)] }
        if !from.isEmpty { members["from"] = .array(from) }
        if !orders.isEmpty { members["orderBy"] = .array(orders) }
        return .object(members)
    }

    /// A `Filter` (oneof `composite_filter = 1`, `field_filter = 2`, `unary_filter = 3`; the last one wins).
    private static func readFilter(_ reader: inout ProtobufReader) throws(FirestoreError) -> JSONValue {
        var filter: JSONValue = .object([:])
        while let field = try reader.nextField() {
            switch field.number {
            case 1:
                filter = try reader.readMessage(field, "composite_filter") { (composite) throws(FirestoreError) in
                    var members: [String: JSONValue] = [:]
                    var parts: [JSONValue] = []
                    while let member = try composite.nextField() {
                        switch member.number {
                        case 1: members["op"] = try enumName(&composite, member, "op", compositeOperators)
                        case 2:
                            parts.append(
                                try composite.readMessage(member, "filters") { (nested) throws(FirestoreError) in
                                    try readFilter(&nested)
                                })
                        default: try composite.skip(member)
                        }
                    }
                    members["filters"] = .array(parts)
                    return ["compositeFilter": .object(members)]
                }
            case 2:
                filter = try reader.readMessage(field, "field_filter") { (nested) throws(FirestoreError) in
                    var members: [String: JSONValue] = [:]
                    while let member = try nested.nextField() {
                        switch member.number {
                        case 1:
                            members["field"] = try nested.readMessage(member, "field") {
                                (inner) throws(FirestoreError) in try readFieldReference(&inner)
                            }
                        case 2: members["op"] = try enumName(&nested, member, "op", fieldOperators)
                        case 3:
                            members["value"] = try nested.readMessage(member, "value") {
                                (inner) throws(FirestoreError) in try FirestoreValue(reading: &inner).restJSON
                            }
                        default: try nested.skip(member)
                        }
                    }
                    return ["fieldFilter": .object(members)]
                }
            case 3:
                filter = try reader.readMessage(field, "unary_filter") { (nested) throws(FirestoreError) in
                    var members: [String: JSONValue] = [:]
                    while let member = try nested.nextField() {
                        switch member.number {
                        case 1: members["op"] = try enumName(&nested, member, "op", unaryOperators)
                        case 2:
                            members["field"] = try nested.readMessage(member, "field") {
                                (inner) throws(FirestoreError) in try readFieldReference(&inner)
                            }
                        default: try nested.skip(member)
                        }
                    }
                    return ["unaryFilter": .object(members)]
                }
            default: try reader.skip(field)
            }
        }
        return filter
    }

    /// A `Cursor`: `repeated Value values = 1`, `bool before = 2`.
    private static func readCursor(_ reader: inout ProtobufReader) throws(FirestoreError) -> JSONValue {
        var values: [JSONValue] = []
        var before = false
        while let field = try reader.nextField() {
            switch field.number {
            case 1:
                values.append(
                    try reader.readMessage(field, "values") { (nested) throws(FirestoreError) in
                        try FirestoreValue(reading: &nested).restJSON
                    })
            case 2: before = try reader.readBool(field, "before")
            default: try reader.skip(field)
            }
        }
        var cursor: [String: JSONValue] = ["values": .array(values)]
        if before { cursor["before"] = true }
        return .object(cursor)
    }

    /// A `FieldReference` (`string field_path = 2`) as `{"fieldPath": "a.b"}` (empty: `{}`).
    private static func readFieldReference(_ reader: inout ProtobufReader) throws(FirestoreError) -> JSONValue {
        var reference: [String: JSONValue] = [:]
        while let field = try reader.nextField() {
            if field.number == 2 {
                let path = try reader.readString(field, "field_path")
                reference["fieldPath"] = path.isEmpty ? nil : .string(path)
            } else {
                try reader.skip(field)
            }
        }
        return .object(reference)
    }

    /// The enum value name of `field` (a varint) in `numbers`, as proto3 JSON writes enums.
    private static func enumName(
        _ reader: inout ProtobufReader, _ field: ProtobufField, _ name: StaticString, _ numbers: [String: Int32]
    ) throws(FirestoreError) -> JSONValue {
        let number = try reader.readInt32(field, name)
        guard let match = numbers.first(where: { $0.value == number }) else {
            throw reader.failure("unknown enum value \(number)", at: field.offset, field: name)
        }
        return .string(match.key)
    }
}
