import FirestoreWire

extension Firestore {
    /// One page of PartitionQuery split points, over the client's protocol (``routed(grpc:rest:)``): REST POST
    /// `{parent}:partitionQuery` with `{"structuredQuery", "partitionCount", "pageToken"}`, or gRPC
    /// ``partitionQueryRPC(parent:structuredQuery:partitionCount:pageToken:what:)``.
    /// - Parameters:
    ///   - parent: the documents root (or a document).
    ///   - structuredQuery: the collection-group query ordered by `__name__`, as REST JSON.
    ///   - partitionCount: the most split points wanted (at least 1).
    ///   - pageToken: `nil` for the first page, then the previous page's token.
    ///   - what: names the call in error messages.
    /// - Returns: the page's split points (each a document reference) and the next page token, `nil` on the last.
    /// - Throws: ``FirestoreError``: the server's or the transport's; `.internal` (REST) or `.dataLoss` (gRPC) for a
    ///   split point that is not one document reference.
    func partitionQueryPage(
        parent: ResourcePath, structuredQuery: StructuredQuery, partitionCount: Int, pageToken: String?, what: String
    ) async throws -> (elements: [FirestoreValue], nextPageToken: String?) {
        try await routed {
            try await partitionQueryRPC(
                parent: parent, structuredQuery: structuredQuery, partitionCount: partitionCount,
                pageToken: pageToken, what: what)
        } rest: {
            var body: [String: JSONValue] = [
                "structuredQuery": structuredQuery.restJSON, "partitionCount": .string(String(partitionCount)),
            ]
            if let pageToken { body["pageToken"] = .string(pageToken) }
            let page = try await call("POST", encodedName(of: parent) + ":partitionQuery", body: .object(body))
            var points: [FirestoreValue] = []
            for (position, element) in try Self.pageElements(page, what: what, listKey: "partitions").enumerated() {
                guard case .array(let values)? = element["values"], values.count == 1,
                    case .reference = try FirestoreValue(restJSON: values[0], at: "\(what): partition \(position)")
                else {
                    throw FirestoreError(
                        code: .internal, message: "\(what): partition \(position) is not one document reference")
                }
                points.append(try FirestoreValue(restJSON: values[0]))
            }
            return (points, try Self.nextPageToken(of: page, what: what))
        }
    }
}
