import FirestoreREST
import FirestoreWire

/// The oracle of ``StructuredAggregationQuery/write(to:)``: translates the REST `structuredAggregationQuery` JSON into the protobuf
/// `google.firestore.v1.StructuredAggregationQuery` (`google/firestore/v1/query.proto`), as
/// ``StructuredQueryProtobuf`` does for the query inside it, so every aggregation rule lives once.
///
/// Field numbers: `StructuredAggregationQuery`: `structured_query = 1`, `repeated Aggregation aggregations = 3`;
/// `Aggregation`: `count = 1` (`Count`: `google.protobuf.Int64Value up_to = 1`), `sum = 2`, `avg = 3` (`Sum`, `Avg`:
/// `FieldReference field = 1`), `string alias = 7`.
package enum StructuredAggregationQueryProtobuf {
    /// Writes the fields of the `StructuredAggregationQuery` for `json`.
    /// - Throws: ``FirestoreError`` `.internal` for a member without a protobuf encoding here or of the wrong JSON
    ///   type; `.invalidArgument` for an `upTo` that is not a positive 64-bit integer; the query's errors
    ///   (``StructuredQueryProtobuf/write(_:to:)``).
    /// - Complexity: O(n) in the size of the query.
    package static func write(_ json: JSONValue, to writer: inout ProtobufWriter) throws(FirestoreError) {
        typealias Query = StructuredQueryProtobuf
        let members = try Query.members(
            json, "StructuredAggregationQuery", allowed: ["structuredQuery", "aggregations"])
        if let query = members["structuredQuery"] {
            try writer.writeMessageField(1) { (nested) throws(FirestoreError) in
                try Query.write(query, to: &nested)
            }
        }
        for aggregation in try Query.array(members["aggregations"] ?? .array([]), "aggregations") {
            let parts = try Query.members(aggregation, "aggregations", allowed: ["alias", "count", "sum", "avg"])
            try writer.writeMessageField(3) { (nested) throws(FirestoreError) in
                if let count = parts["count"] {
                    let options = try Query.members(count, "aggregations.count", allowed: ["upTo"])
                    try nested.writeMessageField(1) { (countMessage) throws(FirestoreError) in
                        if let upTo = options["upTo"] {
                            let text = upTo.stringValue ?? upTo.serializedString()
                            guard let bound = Int64(text), bound > 0 else {
                                throw .invalidArgument("count upTo \(text) is not a positive 64-bit integer")
                            }
                            countMessage.writeMessageField(1) { $0.writeInt64Field(1, bound) }
                        }
                    }
                }
                for (name, number) in [("sum", UInt32(2)), ("avg", UInt32(3))] {
                    guard let operand = parts[name] else { continue }
                    let field = try Query.members(operand, "aggregations.\(name)", allowed: ["field"])
                    try nested.writeMessageField(number) { (operandMessage) throws(FirestoreError) in
                        if let reference = field["field"] {
                            try operandMessage.writeMessageField(1) { (fieldMessage) throws(FirestoreError) in
                                try Query.writeFieldReference(
                                    reference, "aggregations.\(name).field", to: &fieldMessage)
                            }
                        }
                    }
                }
                if let alias = parts["alias"] {
                    let text = try Query.string(alias, "aggregations.alias")
                    if !text.isEmpty { nested.writeStringField(7, text) }
                }
            }
        }
    }
}
