extension Firestore {
    /// The names of the top-level collections, sorted: POST `/v1/{database}/documents:listCollectionIds`,
    /// following `nextPageToken` to the end (REST reference: `projects.databases.documents.listCollectionIds`;
    /// `ListCollectionIdsTests.followsPageTokensAtTheRootAndBelowADocument`).
    /// - Parameter pageSize: IDs per request (1 ... 1000).
    /// - Throws: ``FirestoreError`` from the server or the transport, or `.internal` when a page is malformed or
    ///   the server repeats a page token.
    public func listCollectionIds(pageSize: Int = 300) async throws -> [String] {
        try await listCollectionIds(parent: .root, pageSize: pageSize)
    }

    /// The collection IDs directly below `parent` (the root or a document), every page.
    func listCollectionIds(parent: ResourcePath, pageSize: Int) async throws -> [String] {
        try await collectPages("listCollectionIds of \"\(parent)\"", listKey: "collectionIds") { pageToken in
            var body: [String: JSONValue] = ["pageSize": .integer(Int64(max(1, min(pageSize, 1000))))]
            if let pageToken { body["pageToken"] = .string(pageToken) }
            return try await call("POST", encodedName(of: parent) + ":listCollectionIds", body: .object(body))
        } decode: { element, position in
            guard case .string(let id) = element else {
                throw FirestoreError(
                    code: .internal,
                    message: "listCollectionIds of \"\(parent)\": element \(position) is a \(element.typeName)")
            }
            return id
        }
    }
}
