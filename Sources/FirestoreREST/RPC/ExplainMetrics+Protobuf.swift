import FirestoreWire

extension ExplainOptions {
    /// Writes `ExplainOptions` (`bool analyze = 1`, `google/firestore/v1/query_profile.proto`) as message field
    /// `number` of a request: `RunQueryRequest.explain_options = 10`, `RunAggregationQueryRequest.explain_options = 8`.
    /// An empty message plans only; proto3 leaves `analyze = false` out.
    package func write(field number: UInt32, to writer: inout ProtobufWriter) {
        writer.writeMessageField(number) { explain in
            if analyze { explain.writeBoolField(1, true) }
        }
    }
}

extension ExplainMetrics {
    /// The `ExplainMetrics explain_metrics = number` of one response message (`RunQueryResponse` field 11,
    /// `RunAggregationQueryResponse` field 10), or `nil` when the message has none; the last occurrence wins.
    /// - Throws: ``FirestoreError`` `.dataLoss` for malformed wire data, the path starting at `message`.
    package static func read(field number: UInt32, of bytes: [UInt8], message: StaticString)
        throws(FirestoreError) -> ExplainMetrics?
    {
        try ProtobufReader.read(bytes, message: message) { (reader) throws(FirestoreError) in
            var metrics: ExplainMetrics?
            while let field = try reader.nextField() {
                if field.number == number {
                    metrics = try reader.readMessage(field, "explain_metrics") { (nested) throws(FirestoreError) in
                        try ExplainMetrics(reading: &nested)
                    }
                } else {
                    try reader.skip(field)
                }
            }
            return metrics
        }
    }

    /// Decodes a `google.firestore.v1.ExplainMetrics` message (`google/firestore/v1/query_profile.proto`) into the
    /// values the REST decoder gives (``init(restJSON:)``): `PlanSummary plan_summary = 1` (`repeated
    /// google.protobuf.Struct indexes_used = 1`), `ExecutionStats execution_stats = 2` (`int64 results_returned = 1`,
    /// `google.protobuf.Duration execution_duration = 3`, `int64 read_operations = 4`, `google.protobuf.Struct
    /// debug_stats = 5`). Structs become JSON objects as ``JSONValue/init(readingProtobufValue:)`` says.
    /// - Throws: ``FirestoreError`` `.dataLoss` naming the field and byte offset for malformed wire data.
    package init(reading reader: inout ProtobufReader) throws(FirestoreError) {
        var indexes: [[String: JSONValue]] = []
        var stats: ExecutionStats?
        while let field = try reader.nextField() {
            switch field.number {
            case 1:
                try reader.readMessage(field, "plan_summary") { (plan) throws(FirestoreError) in
                    while let member = try plan.nextField() {
                        if member.number == 1 {
                            indexes.append(
                                try plan.readMessage(member, "indexes_used") { (object) throws(FirestoreError) in
                                    try JSONValue.readProtobufStruct(&object)
                                })
                        } else {
                            try plan.skip(member)
                        }
                    }
                }
            case 2:
                stats = try reader.readMessage(field, "execution_stats") { (nested) throws(FirestoreError) in
                    try ExecutionStats(reading: &nested)
                }
            default: try reader.skip(field)
            }
        }
        self.init(planSummary: PlanSummary(indexesUsed: indexes), executionStats: stats)
    }
}

extension ExecutionStats {
    /// Decodes a `google.firestore.v1.ExecutionStats` message (see ``ExplainMetrics/init(reading:)``); the duration
    /// is `google.protobuf.Duration` (`int64 seconds = 1`, `int32 nanos = 2`).
    /// - Throws: ``FirestoreError`` `.dataLoss` for malformed wire data.
    init(reading reader: inout ProtobufReader) throws(FirestoreError) {
        var results: Int64 = 0
        var duration: Duration = .zero
        var reads: Int64 = 0
        var debug: [String: JSONValue] = [:]
        while let field = try reader.nextField() {
            switch field.number {
            case 1: results = try reader.readInt64(field, "results_returned")
            case 3:
                duration = try reader.readMessage(field, "execution_duration") { (nested) throws(FirestoreError) in
                    let (seconds, nanos) = try nested.readSecondsAndNanos()
                    return .seconds(seconds) + .nanoseconds(Int64(nanos))
                }
            case 4: reads = try reader.readInt64(field, "read_operations")
            case 5:
                debug = try reader.readMessage(field, "debug_stats") { (object) throws(FirestoreError) in
                    try JSONValue.readProtobufStruct(&object)
                }
            default: try reader.skip(field)
            }
        }
        self.init(resultsReturned: results, executionDuration: duration, readOperations: reads, debugStats: debug)
    }
}
