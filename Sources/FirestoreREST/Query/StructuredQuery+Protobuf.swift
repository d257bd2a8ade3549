import FirestoreWire

extension StructuredQuery {
    /// The serialized protobuf `google.firestore.v1.StructuredQuery` message.
    /// - Throws: as ``write(to:)``.
    /// - Complexity: O(n) in the size of the query.
    package func protobuf() throws(FirestoreError) -> [UInt8] {
        var writer = ProtobufWriter()
        try write(to: &writer)
        return writer.bytes
    }

    /// Writes the fields of the `StructuredQuery` message (`google/firestore/v1/query.proto`), in field-number order
    /// with proto3's default omission (`false`, `0`, empty), as the reference serializers do, so the bytes are
    /// canonical: `select = 1` (`Projection`: `repeated FieldReference fields = 2`), `from = 2`
    /// (`CollectionSelector`: `collection_id = 2`, `all_descendants = 3`), `where = 3` (`Filter`), `order_by = 4`
    /// (`Order`: `field = 1`, `direction = 2`, `ASCENDING` 1, `DESCENDING` 2), `limit = 5`
    /// (`google.protobuf.Int32Value`: `value = 1`), `offset = 6`, `start_at = 7`, `end_at = 8` (`Cursor`:
    /// `repeated Value values = 1`, `bool before = 2`), `find_nearest = 9`. `FieldReference`: `field_path = 2`.
    /// - Throws: ``FirestoreError`` `.invalidArgument` for a limit or offset outside `Int32`, which the protobuf fields
    ///   cannot hold.
    package func write(to writer: inout ProtobufWriter) throws(FirestoreError) {
        if let select {
            writer.writeMessageField(1) { projection in
                for field in select {
                    projection.writeMessageField(2) { Self.writeFieldReference(field, to: &$0) }
                }
            }
        }
        writer.writeMessageField(2) { selector in
            if !from.collectionID.isEmpty { selector.writeStringField(2, from.collectionID) }
            if from.allDescendants { selector.writeBoolField(3, true) }
        }
        if let filter {
            writer.writeMessageField(3) { Self.write(filter, to: &$0) }
        }
        for order in orderBy {
            writer.writeMessageField(4) { message in
                message.writeMessageField(1) { Self.writeFieldReference(order.field, to: &$0) }
                message.writeInt32Field(2, order.descending ? 2 : 1)
            }
        }
        if let limit {
            let value = try Self.int32(limit, "StructuredQuery.limit")
            writer.writeMessageField(5) { wrapper in
                if value != 0 { wrapper.writeInt32Field(1, value) }
            }
        }
        if let offset {
            let value = try Self.int32(offset, "StructuredQuery.offset")
            if value != 0 { writer.writeInt32Field(6, value) }
        }
        for (number, cursor) in [(UInt32(7), startAt), (8, endAt)] {
            guard let cursor else { continue }
            writer.writeMessageField(number) { message in
                for value in cursor.values {
                    message.writeMessageField(1) { value.writeProtobuf(to: &$0) }
                }
                if cursor.before { message.writeBoolField(2, true) }
            }
        }
        if let findNearest {
            let limit = try Self.int32(findNearest.limit, "StructuredQuery.findNearest.limit")
            writer.writeMessageField(9) { Self.write(findNearest, limit: limit, to: &$0) }
        }
    }

    /// The `FieldFilter.Operator` number (`query.proto`).
    package static func number(of op: FilterOperator) -> Int32 {
        switch op {
        case .lessThan: 1
        case .lessThanOrEqual: 2
        case .greaterThan: 3
        case .greaterThanOrEqual: 4
        case .equal: 5
        case .notEqual: 6
        case .arrayContains: 7
        case .in: 8
        case .arrayContainsAny: 9
        case .notIn: 10
        }
    }

    /// The `UnaryFilter.Operator` number (`query.proto`).
    package static func number(of op: UnaryOperator) -> Int32 {
        switch op {
        case .isNaN: 2
        case .isNull: 3
        case .isNotNaN: 4
        case .isNotNull: 5
        }
    }

    /// The `CompositeFilter.Operator` number (`query.proto`).
    package static func number(of op: Filter.CompositeOperator) -> Int32 {
        switch op {
        case .and: 1
        case .or: 2
        }
    }

    /// The `FindNearest.DistanceMeasure` number (`query.proto`).
    package static func number(of measure: DistanceMeasure) -> Int32 {
        switch measure {
        case .euclidean: 1
        case .cosine: 2
        case .dotProduct: 3
        }
    }

    /// Writes the fields of a `FieldReference` (`string field_path = 2`).
    static func writeFieldReference(_ field: FieldPath, to writer: inout ProtobufWriter) {
        let path = field.description
        if !path.isEmpty { writer.writeStringField(2, path) }
    }

    /// Writes the fields of a `Filter` (oneof `composite_filter = 1`, `field_filter = 2`, `unary_filter = 3`):
    /// `CompositeFilter`: `op = 1`, `repeated Filter filters = 2`; `FieldFilter`: `field = 1`, `op = 2`,
    /// `value = 3`; `UnaryFilter`: `op = 1`, `field = 2`.
    private static func write(_ filter: FilterNode, to writer: inout ProtobufWriter) {
        switch filter {
        case .composite(let op, let parts):
            writer.writeMessageField(1) { composite in
                composite.writeInt32Field(1, number(of: op))
                for part in parts {
                    composite.writeMessageField(2) { write(part, to: &$0) }
                }
            }
        case .field(let field, let op, let value):
            writer.writeMessageField(2) { message in
                message.writeMessageField(1) { writeFieldReference(field, to: &$0) }
                message.writeInt32Field(2, number(of: op))
                message.writeMessageField(3) { value.writeProtobuf(to: &$0) }
            }
        case .unary(let op, let field):
            writer.writeMessageField(3) { message in
                message.writeInt32Field(1, number(of: op))
                message.writeMessageField(2) { writeFieldReference(field, to: &$0) }
            }
        }
    }

    /// Writes the fields of a `StructuredQuery.FindNearest`: `FieldReference vector_field = 1`,
    /// `Value query_vector = 2`, `DistanceMeasure distance_measure = 3`, `google.protobuf.Int32Value limit = 4`,
    /// `string distance_result_field = 5`, `google.protobuf.DoubleValue distance_threshold = 6` (`value = 1`).
    private static func write(_ nearest: FindNearest, limit: Int32, to writer: inout ProtobufWriter) {
        writer.writeMessageField(1) { writeFieldReference(nearest.vectorField, to: &$0) }
        writer.writeMessageField(2) { nearest.queryVector.writeProtobuf(to: &$0) }
        writer.writeInt32Field(3, number(of: nearest.distanceMeasure))
        writer.writeMessageField(4) { wrapper in
            if limit != 0 { wrapper.writeInt32Field(1, limit) }
        }
        if let field = nearest.distanceResultField, !field.isEmpty { writer.writeStringField(5, field) }
        if let threshold = nearest.distanceThreshold {
            writer.writeMessageField(6) { wrapper in
                if threshold.bitPattern != 0 { wrapper.writeDoubleField(1, threshold) }
            }
        }
    }

    /// `number` as a protobuf `int32`.
    /// - Throws: ``FirestoreError`` `.invalidArgument` when it does not fit.
    static func int32(_ number: Int, _ path: String) throws(FirestoreError) -> Int32 {
        guard let value = Int32(exactly: number) else {
            throw .invalidArgument("\(path) \(number) does not fit the protobuf int32 field")
        }
        return value
    }
}
