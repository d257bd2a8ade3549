import FirestoreREST
import FirestoreWire

/// The JSON-to-protobuf translation the client used before ``StructuredQuery`` printed both wires: the REST
/// StructuredQuery JSON walked member by member into protobuf `google.firestore.v1.StructuredQuery` bytes
/// (`google/firestore/v1/query.proto`). Kept here as an oracle written a second way: for every query the tests build,
/// ``StructuredQuery/protobuf()`` must equal this translation of ``StructuredQuery/restJSON``, so the two printers
/// cannot drift apart. Any member it does not know is an `.internal` error.
extension StructuredQueryProtobuf {
    /// The serialized `StructuredQuery` message for `json`, a REST StructuredQuery object.
    /// - Throws: ``FirestoreError`` `.internal` for a member or enum name without a protobuf encoding here or
    ///   a member of the wrong JSON type; `.invalidArgument` for an `offset` or `limit` outside `Int32`, which
    ///   the protobuf fields cannot hold; the REST value decoder's errors for a malformed `Value`.
    /// - Complexity: O(n) in the size of the query.
    package static func encode(_ json: JSONValue) throws(FirestoreError) -> [UInt8] {
        var writer = ProtobufWriter()
        try write(json, to: &writer)
        return writer.bytes
    }

    /// Writes the fields of the `StructuredQuery` message for `json` to `writer`.
    /// - Throws: as ``encode(_:)``.
    static func write(_ json: JSONValue, to writer: inout ProtobufWriter) throws(FirestoreError) {
        let query = try members(
            json, "StructuredQuery",
            allowed: ["select", "from", "where", "orderBy", "startAt", "endAt", "offset", "limit", "findNearest"])
        if let select = query["select"] {
            let projection = try members(select, "StructuredQuery.select", allowed: ["fields"])
            try writer.writeMessageField(1) { (nested) throws(FirestoreError) in
                for reference in try array(projection["fields"] ?? .array([]), "StructuredQuery.select.fields") {
                    try nested.writeMessageField(2) { (field) throws(FirestoreError) in
                        try writeFieldReference(reference, "StructuredQuery.select.fields", to: &field)
                    }
                }
            }
        }
        for selector in try array(query["from"] ?? .array([]), "StructuredQuery.from") {
            let from = try members(selector, "StructuredQuery.from", allowed: ["collectionId", "allDescendants"])
            try writer.writeMessageField(2) { (nested) throws(FirestoreError) in
                let collectionID = try string(from["collectionId"] ?? "", "StructuredQuery.from.collectionId")
                if !collectionID.isEmpty { nested.writeStringField(2, collectionID) }
                if try bool(from["allDescendants"] ?? false, "StructuredQuery.from.allDescendants") {
                    nested.writeBoolField(3, true)
                }
            }
        }
        if let filter = query["where"] {
            try writer.writeMessageField(3) { (nested) throws(FirestoreError) in
                try writeFilter(filter, "StructuredQuery.where", to: &nested)
            }
        }
        for order in try array(query["orderBy"] ?? .array([]), "StructuredQuery.orderBy") {
            let members = try members(order, "StructuredQuery.orderBy", allowed: ["field", "direction"])
            try writer.writeMessageField(4) { (nested) throws(FirestoreError) in
                if let field = members["field"] {
                    try nested.writeMessageField(1) { (reference) throws(FirestoreError) in
                        try writeFieldReference(field, "StructuredQuery.orderBy.field", to: &reference)
                    }
                }
                if let direction = members["direction"] {
                    let number = try enumNumber(
                        direction, "StructuredQuery.orderBy.direction", ["ASCENDING": 1, "DESCENDING": 2])
                    nested.writeInt32Field(2, number)
                }
            }
        }
        if let limit = query["limit"] {
            let value = try int32(limit, "StructuredQuery.limit")
            writer.writeMessageField(5) { wrapper in
                if value != 0 { wrapper.writeInt32Field(1, value) }
            }
        }
        if let offset = query["offset"] {
            let value = try int32(offset, "StructuredQuery.offset")
            if value != 0 { writer.writeInt32Field(6, value) }
        }
        for (number, name) in [(UInt32(7), "startAt"), (8, "endAt")] {
            guard let cursor = query[name] else { continue }
            let path = "StructuredQuery.\(name)"
            let members = try members(cursor, path, allowed: ["values", "before"])
            try writer.writeMessageField(number) { (nested) throws(FirestoreError) in
                for value in try array(members["values"] ?? .array([]), path + ".values") {
                    let decoded = try FirestoreValue(restJSON: value, at: path + ".values")
                    nested.writeMessageField(1) { decoded.writeProtobuf(to: &$0) }
                }
                if try bool(members["before"] ?? false, path + ".before") { nested.writeBoolField(2, true) }
            }
        }
        if let nearest = query["findNearest"] {
            try writer.writeMessageField(9) { (nested) throws(FirestoreError) in
                try writeFindNearest(nearest, to: &nested)
            }
        }
    }

    /// Writes the fields of a `Filter` (oneof `composite_filter = 1`, `field_filter = 2`, `unary_filter = 3`).
    private static func writeFilter(_ json: JSONValue, _ path: String, to writer: inout ProtobufWriter)
        throws(FirestoreError)
    {
        let filter = try members(json, path, allowed: ["compositeFilter", "fieldFilter", "unaryFilter"])
        guard filter.count == 1, let (kind, body) = filter.first else {
            throw .init(code: .internal, message: "\(path): a Filter has exactly one member, found \(filter.count)")
        }
        switch kind {
        case "compositeFilter":
            let composite = try members(body, path + ".compositeFilter", allowed: ["op", "filters"])
            try writer.writeMessageField(1) { (nested) throws(FirestoreError) in
                if let op = composite["op"] {
                    nested.writeInt32Field(1, try enumNumber(op, path + ".compositeFilter.op", compositeOperators))
                }
                let parts = try array(composite["filters"] ?? .array([]), path + ".compositeFilter.filters")
                for part in parts {
                    try nested.writeMessageField(2) { (inner) throws(FirestoreError) in
                        try writeFilter(part, path + ".compositeFilter.filters", to: &inner)
                    }
                }
            }
        case "fieldFilter":
            let field = try members(body, path + ".fieldFilter", allowed: ["field", "op", "value"])
            try writer.writeMessageField(2) { (nested) throws(FirestoreError) in
                if let reference = field["field"] {
                    try nested.writeMessageField(1) { (inner) throws(FirestoreError) in
                        try writeFieldReference(reference, path + ".fieldFilter.field", to: &inner)
                    }
                }
                if let op = field["op"] {
                    nested.writeInt32Field(2, try enumNumber(op, path + ".fieldFilter.op", fieldOperators))
                }
                if let value = field["value"] {
                    let decoded = try FirestoreValue(restJSON: value, at: path + ".fieldFilter.value")
                    nested.writeMessageField(3) { decoded.writeProtobuf(to: &$0) }
                }
            }
        default:
            let unary = try members(body, path + ".unaryFilter", allowed: ["op", "field"])
            try writer.writeMessageField(3) { (nested) throws(FirestoreError) in
                if let op = unary["op"] {
                    nested.writeInt32Field(1, try enumNumber(op, path + ".unaryFilter.op", unaryOperators))
                }
                if let reference = unary["field"] {
                    try nested.writeMessageField(2) { (inner) throws(FirestoreError) in
                        try writeFieldReference(reference, path + ".unaryFilter.field", to: &inner)
                    }
                }
            }
        }
    }

    /// Writes the fields of a `FieldReference` (`string field_path = 2`) from `{"fieldPath": "a.b"}`.
    static func writeFieldReference(_ json: JSONValue, _ path: String, to writer: inout ProtobufWriter)
        throws(FirestoreError)
    {
        let reference = try members(json, path, allowed: ["fieldPath"])
        let fieldPath = try string(reference["fieldPath"] ?? "", path + ".fieldPath")
        if !fieldPath.isEmpty { writer.writeStringField(2, fieldPath) }
    }

    // MARK: - JSON shapes

    static func mismatch(_ path: String, _ expected: String, _ json: JSONValue) -> FirestoreError {
        FirestoreError(code: .internal, message: "\(path): expected \(expected), found \(json.typeName)")
    }

    static func members(_ json: JSONValue, _ path: String, allowed: Set<String>) throws(FirestoreError)
        -> [String: JSONValue]
    {
        guard case .object(let members) = json else { throw mismatch(path, "an object", json) }
        if let unknown = members.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw FirestoreError(
                code: .internal, message: "\(path): member \"\(unknown)\" has no protobuf encoding in this client")
        }
        return members
    }

    static func array(_ json: JSONValue, _ path: String) throws(FirestoreError) -> [JSONValue] {
        guard case .array(let elements) = json else { throw mismatch(path, "an array", json) }
        return elements
    }

    static func string(_ json: JSONValue, _ path: String) throws(FirestoreError) -> String {
        guard case .string(let text) = json else { throw mismatch(path, "a string", json) }
        return text
    }

    static func bool(_ json: JSONValue, _ path: String) throws(FirestoreError) -> Bool {
        guard case .bool(let flag) = json else { throw mismatch(path, "a boolean", json) }
        return flag
    }

    static func int32(_ json: JSONValue, _ path: String) throws(FirestoreError) -> Int32 {
        guard case .integer(let number) = json else { throw mismatch(path, "an integer", json) }
        guard let value = Int32(exactly: number) else {
            throw .invalidArgument("\(path) \(number) does not fit the protobuf int32 field")
        }
        return value
    }

    static func enumNumber(_ json: JSONValue, _ path: String, _ numbers: [String: Int32])
        throws(FirestoreError) -> Int32
    {
        let name = try string(json, path)
        guard let number = numbers[name] else {
            throw FirestoreError(code: .internal, message: "\(path): unknown enum value \"\(name)\"")
        }
        return number
    }
}
