import FirestoreWire

/// An aggregation as Firestore's `google.firestore.v1.StructuredAggregationQuery` holds it
/// (`google/firestore/v1/query.proto`), resolved and validated by ``AggregateQuery/structuredAggregation()``: one model
/// printed as REST JSON (``restJSON``) and as protobuf (``write(to:)``), as ``StructuredQuery`` is for the query in it.
package struct StructuredAggregationQuery: Sendable, Hashable {
    /// `Aggregation`'s operator.
    package enum Operation: Sendable, Hashable {
        case count(upTo: Int64?)
        case sum(FieldPath)
        case average(FieldPath)
    }

    /// `Aggregation`: an operator and the alias its result is stored under.
    package struct Aggregation: Sendable, Hashable {
        package var alias: String
        package var operation: Operation
    }

    /// `structured_query`.
    package var query: StructuredQuery
    /// `aggregations`, in order.
    package var aggregations: [Aggregation]

    /// The REST `structuredAggregationQuery`: `{"structuredQuery", "aggregations": [{"alias", "count": {"upTo"}?
    /// | "sum" | "avg": {"field"}}]}`, `upTo` (an `Int64Value`) as a JSON string, as proto3 JSON writes 64-bit
    /// integers.
    /// - Complexity: O(n) in the size of the query.
    package var restJSON: JSONValue {
        let encoded = aggregations.map { aggregation -> JSONValue in
            switch aggregation.operation {
            case .count(let upTo):
                let count: JSONValue = upTo.map { ["upTo": .string(String($0))] } ?? [:]
                return ["alias": .string(aggregation.alias), "count": count]
            case .sum(let field):
                return ["alias": .string(aggregation.alias), "sum": ["field": StructuredQuery.fieldReference(field)]]
            case .average(let field):
                return ["alias": .string(aggregation.alias), "avg": ["field": StructuredQuery.fieldReference(field)]]
            }
        }
        return ["structuredQuery": query.restJSON, "aggregations": .array(encoded)]
    }

    /// Writes the fields of the `StructuredAggregationQuery` message: `structured_query = 1`,
    /// `repeated Aggregation aggregations = 3`; `Aggregation`: `count = 1` (`Count`:
    /// `google.protobuf.Int64Value up_to = 1`), `sum = 2`, `avg = 3` (`Sum`, `Avg`: `FieldReference field = 1`),
    /// `string alias = 7`.
    /// - Throws: as ``StructuredQuery/write(to:)``.
    package func write(to writer: inout ProtobufWriter) throws(FirestoreError) {
        try writer.writeMessageField(1) { (message) throws(FirestoreError) in try query.write(to: &message) }
        for aggregation in aggregations {
            writer.writeMessageField(3) { message in
                switch aggregation.operation {
                case .count(let upTo):
                    message.writeMessageField(1) { count in
                        if let upTo { count.writeMessageField(1) { $0.writeInt64Field(1, upTo) } }
                    }
                case .sum(let field):
                    message.writeMessageField(2) { sum in
                        sum.writeMessageField(1) { StructuredQuery.writeFieldReference(field, to: &$0) }
                    }
                case .average(let field):
                    message.writeMessageField(3) { average in
                        average.writeMessageField(1) { StructuredQuery.writeFieldReference(field, to: &$0) }
                    }
                }
                if !aggregation.alias.isEmpty { message.writeStringField(7, aggregation.alias) }
            }
        }
    }
}
