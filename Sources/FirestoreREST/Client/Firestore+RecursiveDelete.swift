extension Firestore {
    /// The documents directly in the collection `collection`, by path, in document-ID order, every page: GET
    /// `/v1/{parent}/{collectionId}?showMissing=true&mask.fieldPaths=__name__` (REST reference:
    /// `projects.databases.documents.list`, `showMissing`). A *missing* document (one that does not exist but
    /// has subcollections below it) is listed too, so nothing below the collection is out of reach.
    /// - Parameter pageSize: documents per request (1 ... 1000).
    /// - Throws: ``FirestoreError`` for a path that is not a collection, a server or transport failure, or
    ///   `.internal` for a malformed page, a name outside the collection or a repeated page token.
    /// - Complexity: one request per `pageSize` documents.
    package func listDocumentPaths(in collection: ResourcePath, pageSize: Int = 300) async throws -> [ResourcePath] {
        guard collection.isCollection else {
            throw FirestoreError.invalidArgument("\"\(collection)\" is not a collection path")
        }
        let what = "list \(collection)"
        return try await collectPages(what, listKey: "documents") { pageToken in
            var query = [
                ("pageSize", String(max(1, min(pageSize, 1000)))), ("showMissing", "true"),
                ("mask.fieldPaths", "__name__"),
            ]
            if let pageToken { query.append(("pageToken", pageToken)) }
            return try await call("GET", encodedName(of: collection), query: query)
        } decode: { element, position in
            guard case .string(let name)? = element["name"] else {
                throw FirestoreError(code: .internal, message: "\(what): element \(position) has no name")
            }
            let path: ResourcePath
            do throws(FirestoreError) {
                path = try database.path(ofResourceName: name)
            } catch {
                throw FirestoreError(code: .internal, message: "\(what): element \(position): \(error.message)")
            }
            guard path.parent == collection, path.isDocument else {
                throw FirestoreError(code: .internal, message: "\(what): element \(position) is \(name), not in it")
            }
            return path
        }
    }

    /// Every document at or below `path` (a document or a collection), children before their parent: each
    /// collection's documents through ``listDocumentPaths(in:pageSize:)`` (missing ones included), each
    /// document's subcollections through `listCollectionIds`; up to 8 documents' subcollections are listed at
    /// once.
    /// - Throws: ``FirestoreError`` from the list calls.
    /// - Complexity: one `listCollectionIds` request per document and one list request per page of each
    ///   collection; O(n) memory in the number of documents.
    package func documentTree(at path: ResourcePath) async throws -> [ResourcePath] {
        if path.isDocument {
            var tree: [ResourcePath] = []
            for id in try await listCollectionIds(parent: path, pageSize: 300, readTime: nil) {
                tree += try await documentTree(at: path.appending(id))
            }
            return tree + [path]
        }
        let documents = try await listDocumentPaths(in: path)
        var tree: [ResourcePath] = []
        var start = 0
        while start < documents.count {
            let chunk = documents[start..<min(start + 8, documents.count)]
            let subtrees = try await withThrowingTaskGroup(of: (Int, [ResourcePath]).self) { group in
                for (offset, document) in chunk.enumerated() {
                    group.addTask { (offset, try await self.documentTree(at: document)) }
                }
                var results = [[ResourcePath]](repeating: [], count: chunk.count)
                for try await (offset, subtree) in group { results[offset] = subtree }
                return results
            }
            for subtree in subtrees { tree += subtree }
            start += chunk.count
        }
        return tree
    }

    /// Deletes every document at or below `path` (a document or a collection: ``documentTree(at:)``), children
    /// before their parent, in commits of at most `batchSize` deletes (Firestore takes 500 writes per commit;
    /// REST reference: `projects.databases.documents.commit`). Each commit is atomic; a failure leaves the
    /// commits before it applied, and `committed` has heard of each of them.
    /// - Parameters:
    ///   - batchSize: deletes per commit (1 ... 500).
    ///   - committed: told the running total of deleted documents after each commit.
    /// - Returns: the number of documents deleted (missing documents with subcollections count too).
    /// - Throws: ``FirestoreError`` from listing or from a commit.
    package func recursiveDelete(
        _ path: ResourcePath, batchSize: Int = 500, committed: (Int) -> Void = { _ in }
    ) async throws -> Int {
        let tree = try await documentTree(at: path)
        let size = max(1, min(batchSize, 500))
        var deleted = 0
        while deleted < tree.count {
            let chunk = tree[deleted..<min(deleted + size, tree.count)]
            try await commit(chunk.map { Write.delete(path: $0, precondition: nil) })
            deleted += chunk.count
            committed(deleted)
        }
        return deleted
    }
}
