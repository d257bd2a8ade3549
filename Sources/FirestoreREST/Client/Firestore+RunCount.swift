import FirestoreWire

/// The result of one `count()` aggregation.
package struct CountResponse: Sendable, Hashable {
    /// The number of documents counted.
    package var count: Int
    /// The time the count is consistent at.
    package var readTime: Timestamp?
    /// Size of the response body in bytes (after decompression).
    package var responseBytes: Int
}

extension Firestore {
    /// runAggregationQuery with one `count` over `structuredQuery`: POST `/v1/{parent}:runAggregationQuery`
    /// (REST reference: `projects.databases.documents.runAggregationQuery`), for feeds that need the count at the
    /// `readTime` of another read.
    /// - Parameters:
    ///   - parent: the documents root or a document path.
    ///   - structuredQuery: the query counted.
    ///   - readTime: count as of this time (within the last 270 seconds), or now.
    /// - Throws: ``FirestoreError`` from the server or the transport; `.internal` when the response holds no
    ///   count, or one that is not a non-negative integer.
    package func runCount(parent: ResourcePath, structuredQuery: StructuredQuery, readTime: Timestamp?) async throws
        -> CountResponse
    {
        try await routed {
            let aggregation = StructuredAggregationQuery(
                query: structuredQuery, aggregations: [.init(alias: "count", operation: .count(upTo: nil))])
            let (result, bytes) = try await runAggregationQueryRPC(
                parent: parent, structuredAggregationQuery: aggregation, readTime: readTime, transaction: nil,
                newTransaction: nil)
            guard case .integer(let number)? = result.aggregateFields["count"], number >= 0,
                let count = Int(exactly: number)
            else {
                throw FirestoreError(code: .internal, message: "runAggregationQuery response holds no count")
            }
            return CountResponse(count: count, readTime: result.readTime, responseBytes: bytes)
        } rest: {
            try await runCountREST(parent: parent, structuredQuery: structuredQuery, readTime: readTime)
        }
    }

    /// runCount over REST (``runCount(parent:structuredQuery:readTime:)``).
    func runCountREST(parent: ResourcePath, structuredQuery: StructuredQuery, readTime: Timestamp?) async throws
        -> CountResponse
    {
        var body: [String: JSONValue] = [
            "structuredAggregationQuery": StructuredAggregationQuery(
                query: structuredQuery, aggregations: [.init(alias: "count", operation: .count(upTo: nil))]
            ).restJSON
        ]
        try Self.addConsistency(readTime: readTime, transaction: nil, to: &body)
        let (json, bytes) = try await callMeasured(
            "POST", encodedName(of: parent) + ":runAggregationQuery", body: .object(body))
        var response = try Self.decodeCount(json)
        response.responseBytes = bytes
        return response
    }

    /// Decodes a runAggregationQuery response holding the alias `count`.
    /// - Throws: ``FirestoreError`` for an error element, or `.internal` when the count is missing or malformed.
    package static func decodeCount(_ json: JSONValue) throws(FirestoreError) -> CountResponse {
        let elements = try streamElements(json, method: "runAggregationQuery")
        var readTime: Timestamp?
        var count: Int?
        for (position, element) in elements.enumerated() {
            try noteReadTime(element, position: position, into: &readTime)
            guard let value = element["result"]?["aggregateFields"]?["count"] else { continue }
            let decoded = try FirestoreValue(restJSON: value, at: "runAggregationQuery element \(position) count")
            guard case .integer(let number) = decoded, number >= 0, let exact = Int(exactly: number) else {
                throw FirestoreError(
                    code: .internal, message: "runAggregationQuery element \(position): count is \(decoded.typeName)")
            }
            count = exact
        }
        guard let count else {
            throw FirestoreError(code: .internal, message: "runAggregationQuery response holds no count")
        }
        return CountResponse(count: count, readTime: readTime, responseBytes: 0)
    }
}
