import FirestoreWire

/// One page of a collection's documents (REST `ListDocumentsResponse`).
public struct ListDocumentsResponse: Sendable, Hashable {
    /// The page's documents in the order asked for; with `showMissing`, a document that exists only as the
    /// parent of a subcollection is a snapshot with `exists == false`.
    public let documents: [DocumentSnapshot]
    /// The token for the next page, or `nil` on the last page.
    public let nextPageToken: String?
}

extension CollectionReference {
    /// Every document of the collection: GET `/v1/{parent}/{collectionId}`, following `nextPageToken` until the
    /// server sends none (REST reference: `projects.databases.documents.list`,
    /// https://cloud.google.com/firestore/docs/reference/rest/v1/projects.databases.documents/list).
    ///
    /// ```swift
    /// // Documents that exist only as parents of subcollections come too, as the server SDKs' listDocuments()
    /// // and recursiveDelete need them.
    /// let all = try await db.collection("users").listDocuments(showMissing: true)
    /// let ghosts = all.filter { !$0.exists }
    /// ```
    /// - Parameters:
    ///   - pageSize: documents per request (1 ... 1000; values outside are clamped).
    ///   - orderBy: the order (`__name__` ascending when empty); a document without an ordered field is left out,
    ///     as in a query. The emulator fails the second page of an ordered list with 500 `UNKNOWN`, so there
    ///     ask for one page (`ReadOptionsLiveTests`).
    ///   - fieldMask: the fields to return; `nil` for all. (The emulator ignores it together with `showMissing`.)
    ///   - showMissing: also list documents that do not exist but have subcollections, as snapshots with
    ///     `exists == false` (the server sends them with a name only).
    /// - Returns: the documents, every page's in order.
    /// - Throws: ``FirestoreError`` `.invalidArgument` before sending for an invalid path or `showMissing` with
    ///   `orderBy` (the REST reference forbids them together); `.internal` when a page is malformed or the server
    ///   repeats a page token; otherwise the server's or the transport's error.
    public func listDocuments(
        pageSize: Int = 300, orderBy: [QueryOrder] = [], fieldMask: [FieldPath]? = nil, showMissing: Bool = false
    ) async throws -> [DocumentSnapshot] {
        let request = try ListDocumentsRequest(
            collection: self, pageSize: pageSize, orderBy: orderBy, fieldMask: fieldMask, showMissing: showMissing)
        return try await firestore.collectDecodedPages("list \(path)") { pageToken in
            let page = try await request.page(pageToken: pageToken)
            return (page.documents, page.nextPageToken)
        }
    }

    /// One page of the collection's documents, for callers that page themselves (a UI, a resumable job): the
    /// same request as ``listDocuments(pageSize:orderBy:fieldMask:showMissing:)``, sent once.
    ///
    /// ```swift
    /// var token: String? = nil
    /// repeat {
    ///     let page = try await db.collection("fruits").listDocuments(pageToken: token, pageSize: 100)
    ///     handle(page.documents)
    ///     token = page.nextPageToken
    /// } while token != nil
    /// ```
    /// - Parameters:
    ///   - pageToken: `nil` for the first page, then the previous page's ``ListDocumentsResponse/nextPageToken``
    ///     (the other arguments must stay the same, except `pageSize`).
    ///   - pageSize: documents per page, as in ``listDocuments(pageSize:orderBy:fieldMask:showMissing:)``.
    ///   - orderBy: the order, as there.
    ///   - fieldMask: the fields returned, as there.
    ///   - showMissing: whether missing documents with subcollections are listed, as there.
    /// - Throws: as ``listDocuments(pageSize:orderBy:fieldMask:showMissing:)``; `.internal` for a malformed page.
    public func listDocuments(
        pageToken: String?, pageSize: Int = 300, orderBy: [QueryOrder] = [], fieldMask: [FieldPath]? = nil,
        showMissing: Bool = false
    ) async throws -> ListDocumentsResponse {
        let request = try ListDocumentsRequest(
            collection: self, pageSize: pageSize, orderBy: orderBy, fieldMask: fieldMask, showMissing: showMissing)
        return try await request.page(pageToken: pageToken)
    }
}

/// One documents.list call (REST GET `/v1/{parent}/{collectionId}`, gRPC `ListDocuments`), checked before anything
/// is sent.
struct ListDocumentsRequest: Sendable {
    let collection: CollectionReference
    /// The collection's path.
    let path: ResourcePath
    /// Documents per page, 1 ... 1000.
    let pageSize: Int
    /// The order as the `order_by` string (`priority desc, __name__`), or `nil` for `__name__` ascending.
    let orderBy: String?
    let fieldMask: [FieldPath]?
    let showMissing: Bool

    /// - Throws: ``FirestoreError`` `.invalidArgument` for an invalid path or `showMissing` with `orderBy`.
    init(
        collection: CollectionReference, pageSize: Int, orderBy: [QueryOrder], fieldMask: [FieldPath]?,
        showMissing: Bool
    ) throws(FirestoreError) {
        let path = try collection.pathResult.get()
        guard !(showMissing && !orderBy.isEmpty) else {
            throw .invalidArgument("list \(collection.path): showMissing cannot be combined with orderBy")
        }
        self.collection = collection
        self.path = path
        self.pageSize = max(1, min(pageSize, 1000))
        self.orderBy =
            orderBy.isEmpty
            ? nil : orderBy.map { $0.field.description + ($0.descending ? " desc" : "") }.joined(separator: ", ")
        self.fieldMask = fieldMask
        self.showMissing = showMissing
    }

    /// The page `pageToken` (`nil` for the first), over the client's protocol
    /// (``Firestore/routed(grpc:rest:)``).
    /// - Throws: the server's or the transport's error; `.internal` (REST) or `.dataLoss` (gRPC) for a malformed
    ///   page.
    func page(pageToken: String?) async throws -> ListDocumentsResponse {
        try await collection.firestore.routed {
            try await pageRPC(pageToken: pageToken)
        } rest: {
            try await pageREST(pageToken: pageToken)
        }
    }

    /// The page `pageToken` over REST: GET with the query parameters `pageSize`, `orderBy`, `mask.fieldPaths`,
    /// `showMissing` and `pageToken`.
    private func pageREST(pageToken: String?) async throws -> ListDocumentsResponse {
        let firestore = collection.firestore
        var query = [("pageSize", String(pageSize))]
        if let orderBy { query.append(("orderBy", orderBy)) }
        for field in fieldMask ?? [] { query.append(("mask.fieldPaths", field.description)) }
        if showMissing { query.append(("showMissing", "true")) }
        if let pageToken { query.append(("pageToken", pageToken)) }
        let page = try await firestore.call("GET", firestore.encodedName(of: path), query: query)
        let what = "list \(collection.path)"
        var documents: [DocumentSnapshot] = []
        for (position, element) in try Firestore.pageElements(page, what: what, listKey: "documents").enumerated() {
            do {
                documents.append(snapshot(of: try Document(restJSON: element)))
            } catch {
                throw FirestoreError(
                    code: .internal, message: "list \(collection.path) element \(position): \(error.message)")
            }
        }
        return ListDocumentsResponse(
            documents: documents, nextPageToken: try Firestore.nextPageToken(of: page, what: what))
    }

    /// The snapshot of one listed document; a name-only document (a missing document, `showMissing`) is a
    /// snapshot with `exists == false`.
    func snapshot(of document: Document) -> DocumentSnapshot {
        let snapshot = DocumentSnapshot(firestore: collection.firestore, document: document)
        guard document.createTime == nil, document.updateTime == nil, document.fields.isEmpty else { return snapshot }
        return DocumentSnapshot(reference: snapshot.reference, document: nil)
    }
}
