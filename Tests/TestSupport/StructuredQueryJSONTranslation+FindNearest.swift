import FirestoreREST
import FirestoreWire

extension StructuredQueryProtobuf {
    /// The `FindNearest.DistanceMeasure` numbers (`query.proto`).
    package static let distanceMeasures: [String: Int32] = Dictionary(
        uniqueKeysWithValues: DistanceMeasure.allCases.map { ($0.rawValue, StructuredQuery.number(of: $0)) })

    /// Writes the fields of a `StructuredQuery.FindNearest` (`google/firestore/v1/query.proto`) from the REST
    /// `findNearest` object: `FieldReference vector_field = 1`, `Value query_vector = 2`,
    /// `DistanceMeasure distance_measure = 3`, `google.protobuf.Int32Value limit = 4`,
    /// `string distance_result_field = 5`, `google.protobuf.DoubleValue distance_threshold = 6` (`value = 1`).
    /// - Throws: ``FirestoreError`` `.internal` for a member without an encoding here or of the wrong JSON type;
    ///   the REST value decoder's errors for a malformed query vector.
    package static func writeFindNearest(_ json: JSONValue, to writer: inout ProtobufWriter) throws(FirestoreError) {
        let path = "StructuredQuery.findNearest"
        let nearest = try members(
            json, path,
            allowed: [
                "vectorField", "queryVector", "distanceMeasure", "limit", "distanceResultField", "distanceThreshold",
            ])
        if let field = nearest["vectorField"] {
            try writer.writeMessageField(1) { (reference) throws(FirestoreError) in
                try writeFieldReference(field, path + ".vectorField", to: &reference)
            }
        }
        if let vector = nearest["queryVector"] {
            let value = try FirestoreValue(restJSON: vector, at: path + ".queryVector")
            writer.writeMessageField(2) { value.writeProtobuf(to: &$0) }
        }
        if let measure = nearest["distanceMeasure"] {
            writer.writeInt32Field(
                3, try enumNumber(measure, path + ".distanceMeasure", StructuredQueryProtobuf.distanceMeasures))
        }
        if let limit = nearest["limit"] {
            let value = try int32(limit, path + ".limit")
            writer.writeMessageField(4) { wrapper in
                if value != 0 { wrapper.writeInt32Field(1, value) }
            }
        }
        if let field = nearest["distanceResultField"] {
            let text = try string(field, path + ".distanceResultField")
            if !text.isEmpty { writer.writeStringField(5, text) }
        }
        if let threshold = nearest["distanceThreshold"] {
            let value: Double
            switch threshold {
            case .double(let number): value = number
            case .integer(let number): value = Double(number)
            default: throw mismatch(path + ".distanceThreshold", "a number", threshold)
            }
            writer.writeMessageField(6) { wrapper in
                if value.bitPattern != 0 { wrapper.writeDoubleField(1, value) }
            }
        }
    }
}
