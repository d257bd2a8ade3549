import FirestoreWire

/// One page of collection IDs (REST `ListCollectionIdsResponse`).
public struct ListCollectionIdsResponse: Sendable, Hashable {
    /// The page's collection IDs, sorted.
    public let collectionIds: [String]
    /// The token for the next page, or `nil` on the last page.
    public let nextPageToken: String?
}

extension Firestore {
    /// The names of the top-level collections, sorted: POST `/v1/{database}/documents:listCollectionIds`,
    /// following `nextPageToken` to the end (REST reference: `projects.databases.documents.listCollectionIds`;
    /// `ListCollectionIdsTests.followsPageTokensAtTheRootAndBelowADocument`).
    /// - Parameter pageSize: IDs per request (1 ... 1000).
    /// - Throws: ``FirestoreError`` from the server or the transport, or `.internal` when a page is malformed or
    ///   the server repeats a page token.
    public func listCollectionIds(pageSize: Int = 300) async throws -> [String] {
        try await listCollectionIds(parent: .root, pageSize: pageSize, readTime: nil)
    }

    /// The top-level collections as they were at `readTime` (REST `ListCollectionIdsRequest.readTime`), every
    /// page; see ``listCollectionIds(pageSize:)``.
    /// - Parameters:
    ///   - pageSize: IDs per request (1 ... 1000).
    ///   - readTime: read as of this time (within the last hour in production), or `nil` for now.
    /// - Throws: as ``listCollectionIds(pageSize:)``; `.failedPrecondition` from the server for a `readTime` too
    ///   old.
    public func listCollectionIds(pageSize: Int = 300, readTime: Timestamp?) async throws -> [String] {
        try await listCollectionIds(parent: .root, pageSize: pageSize, readTime: readTime)
    }

    /// One page of the top-level collection IDs, for callers that page themselves.
    /// - Parameters:
    ///   - pageToken: `nil` for the first page, then the previous page's
    ///     ``ListCollectionIdsResponse/nextPageToken``.
    ///   - pageSize: IDs per request (1 ... 1000).
    ///   - readTime: read as of this time, or `nil` for now (keep it the same on every page).
    /// - Throws: as ``listCollectionIds(pageSize:readTime:)``.
    public func listCollectionIds(pageToken: String?, pageSize: Int = 300, readTime: Timestamp? = nil)
        async throws -> ListCollectionIdsResponse
    {
        try await listCollectionIdsPage(parent: .root, pageToken: pageToken, pageSize: pageSize, readTime: readTime)
    }

    /// The collection IDs directly below `parent` (the root or a document), every page.
    func listCollectionIds(parent: ResourcePath, pageSize: Int, readTime: Timestamp?) async throws -> [String] {
        try await collectDecodedPages(Self.listCollectionIdsWhat(parent)) { pageToken in
            let page = try await listCollectionIdsPage(
                parent: parent, pageToken: pageToken, pageSize: pageSize, readTime: readTime)
            return (page.collectionIds, page.nextPageToken)
        }
    }

    /// One page of the collection IDs directly below `parent`, over the client's protocol
    /// (``routed(grpc:rest:)``).
    func listCollectionIdsPage(parent: ResourcePath, pageToken: String?, pageSize: Int, readTime: Timestamp?)
        async throws -> ListCollectionIdsResponse
    {
        let pageSize = max(1, min(pageSize, 1000))
        return try await routed {
            try await listCollectionIdsRPC(
                parent: parent, pageToken: pageToken, pageSize: pageSize, readTime: readTime)
        } rest: {
            try await listCollectionIdsREST(
                parent: parent, pageToken: pageToken, pageSize: pageSize, readTime: readTime)
        }
    }

    /// One page over REST: POST `{parent}:listCollectionIds` with `{"pageSize", "pageToken", "readTime"}`.
    private func listCollectionIdsREST(parent: ResourcePath, pageToken: String?, pageSize: Int, readTime: Timestamp?)
        async throws -> ListCollectionIdsResponse
    {
        var body: [String: JSONValue] = ["pageSize": .integer(Int64(pageSize))]
        if let pageToken { body["pageToken"] = .string(pageToken) }
        if let readTime { body["readTime"] = .string(readTime.rfc3339) }
        let page = try await call("POST", encodedName(of: parent) + ":listCollectionIds", body: .object(body))
        let what = Self.listCollectionIdsWhat(parent)
        var ids: [String] = []
        for (position, element) in try Self.pageElements(page, what: what, listKey: "collectionIds").enumerated() {
            guard case .string(let id) = element else {
                throw FirestoreError(code: .internal, message: "\(what): element \(position) is a \(element.typeName)")
            }
            ids.append(id)
        }
        return ListCollectionIdsResponse(
            collectionIds: ids, nextPageToken: try Self.nextPageToken(of: page, what: what))
    }

    static func listCollectionIdsWhat(_ parent: ResourcePath) -> String {
        "listCollectionIds of \"\(parent)\""
    }
}
