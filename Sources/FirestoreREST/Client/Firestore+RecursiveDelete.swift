import FirestoreWire
import Synchronization

extension Firestore {
    /// Deletes `document` and everything below it: every document of its subcollections, theirs, and so on, as the
    /// server SDKs' `recursiveDelete` (Node `Firestore.recursiveDelete(ref, bulkWriter)`, Python
    /// `Client.recursive_delete`). See ``recursiveDelete(_:bulkWriter:)-(CollectionReference,_)``.
    /// - Parameters:
    ///   - document: the document to delete, with its subcollections.
    ///   - bulkWriter: as for a collection.
    /// - Returns: the number of documents deleted: `document` itself always counts (it is deleted whether or not it
    ///   exists, as the Python SDK's `recursive_delete` counts it); below it, documents that exist only as parents of
    ///   subcollections are descended into but neither deleted nor counted.
    /// - Throws: as ``recursiveDelete(_:bulkWriter:)-(CollectionReference,_)``.
    @discardableResult
    public func recursiveDelete(_ document: DocumentReference, bulkWriter: BulkWriter? = nil) async throws -> Int {
        try checkOwns(document)
        return try await recursiveDelete(at: try document.resourcePath(), bulkWriter: bulkWriter)
    }

    /// Deletes every document of `collection` and everything below them, as the server SDKs' `recursiveDelete`.
    ///
    /// The tree is walked with the list calls, page by page: each collection's documents through
    /// ``CollectionReference/listDocuments(pageToken:pageSize:orderBy:fieldMask:showMissing:)`` with `showMissing`
    /// (so a document that exists only as the parent of a subcollection is still descended into), each document's
    /// subcollections through ``DocumentReference/listCollectionIds(pageSize:)`` (up to 8 documents' at once). Each
    /// existing document is deleted through `bulkWriter`, below-first within each document; the deletes are not
    /// atomic and run in parallel, as any ``BulkWriter``'s writes.
    ///
    /// ```swift
    /// let deleted = try await db.recursiveDelete(db.collection("users"))   // every user and their subcollections
    /// ```
    /// - Parameters:
    ///   - collection: the collection to empty, subcollections of its documents included.
    ///   - bulkWriter: the writer for the deletes (its throttle, retries and callbacks apply; it is flushed, not
    ///     closed), or `nil` for a new one with the default options, closed at the end.
    /// - Returns: the number of documents deleted.
    /// - Throws: ``FirestoreError``: `.invalidArgument` for an invalid path, a writer of another database or a closed
    ///   one; a list call's error (then the deletes enqueued before it still finish); or, when deletes failed after
    ///   their retries, an error with the last failure's code saying how many failed (the others were deleted).
    /// - Complexity: one list request per page of each collection and one `listCollectionIds` per document; memory
    ///   bounded by the pages being walked and the writer's pending writes.
    @discardableResult
    public func recursiveDelete(_ collection: CollectionReference, bulkWriter: BulkWriter? = nil) async throws -> Int {
        try await recursiveDelete(at: try collection.pathResult.get(), bulkWriter: bulkWriter)
    }

    /// Deletes every document at or below `path` (a document or a collection) through `bulkWriter` (or a new one).
    /// - Throws: as ``recursiveDelete(_:bulkWriter:)-(CollectionReference,_)``.
    package func recursiveDelete(at path: ResourcePath, bulkWriter: BulkWriter? = nil) async throws -> Int {
        if let bulkWriter {
            guard bulkWriter.firestore.database == database else {
                throw FirestoreError.invalidArgument(
                    "recursiveDelete: the BulkWriter writes to \(bulkWriter.firestore.database), not \(database)")
            }
            guard !bulkWriter.isClosed else {
                throw FirestoreError.invalidArgument("recursiveDelete: the BulkWriter was closed")
            }
        }
        let writer = try bulkWriter ?? self.bulkWriter()
        let tally = RecursiveDeleteTally(keep: 2 * writer.options.maxPendingOperations)
        var walkError: (any Error)?
        do {
            if path.isDocument {
                try await deleteDocumentTree(path, exists: true, writer: writer, tally: tally)
            } else {
                try await deleteCollectionTree(path, writer: writer, tally: tally)
            }
        } catch {
            walkError = error
        }
        if bulkWriter == nil { try await writer.close() } else { try await writer.flush() }
        if let walkError { throw walkError }
        let (deleted, failed, last) = tally.totals()
        if let last, failed > 0 {
            throw FirestoreError(
                code: last.code,
                message:
                    "recursiveDelete of \(path): \(failed) of \(failed + deleted) deletes failed; the last: \(last)",
                httpStatus: last.error.httpStatus)
        }
        return deleted
    }

    /// Deletes the documents of `collection` and everything below them, page by page.
    private func deleteCollectionTree(_ collection: ResourcePath, writer: BulkWriter, tally: RecursiveDeleteTally)
        async throws
    {
        let reference = CollectionReference(
            firestore: self, path: .success(collection), rawPath: collection.description)
        var token: String?
        repeat {
            let page = try await reference.listDocuments(
                pageToken: token, pageSize: 300, fieldMask: [FieldPath.documentID], showMissing: true)
            var start = 0
            while start < page.documents.count {
                let chunk = page.documents[start..<min(start + 8, page.documents.count)]
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for document in chunk {
                        let path = try document.reference.resourcePath()
                        group.addTask {
                            try await self.deleteDocumentTree(
                                path, exists: document.exists, writer: writer, tally: tally)
                        }
                    }
                    try await group.waitForAll()
                }
                start += chunk.count
            }
            token = page.nextPageToken
        } while token != nil
    }

    /// Deletes the subcollections of `document`, then `document` itself when it exists.
    private func deleteDocumentTree(
        _ document: ResourcePath, exists: Bool, writer: BulkWriter, tally: RecursiveDeleteTally
    ) async throws {
        for id in try await listCollectionIds(parent: document, pageSize: 300, readTime: nil) {
            try await deleteCollectionTree(try document.appending(serverID: id), writer: writer, tally: tally)
        }
        guard exists else { return }
        tally.add(
            try await writer.deleteDocument(
                DocumentReference(firestore: self, path: .success(document), rawPath: document.description)))
    }
}

/// The deletes of one `recursiveDelete`: how many succeeded and failed, the last failure; unsettled operations are
/// kept (at most about `keep`, pruned as they settle) so that every one is counted at the end.
final class RecursiveDeleteTally: Sendable {
    private struct State {
        var pending: [BulkWriter.Operation] = []
        var deleted = 0
        var failed = 0
        var last: BulkWriterError?
    }

    private let keep: Int
    private let state = Mutex(State())

    init(keep: Int) {
        self.keep = max(keep, 1)
    }

    /// Notes an enqueued delete; counts and drops the settled ones when many are kept.
    func add(_ operation: BulkWriter.Operation) {
        state.withLock { state in
            state.pending.append(operation)
            if state.pending.count > keep { Self.prune(&state) }
        }
    }

    /// The counts once every delete has settled (after the writer's flush).
    func totals() -> (deleted: Int, failed: Int, last: BulkWriterError?) {
        state.withLock { state in
            Self.prune(&state)
            return (state.deleted, state.failed, state.last)
        }
    }

    private static func prune(_ state: inout State) {
        var unsettled: [BulkWriter.Operation] = []
        for operation in state.pending {
            switch operation.outcome {
            case .success?: state.deleted += 1
            case .failure(let error)?:
                state.failed += 1
                state.last = error
            case nil: unsettled.append(operation)
            }
        }
        state.pending = unsettled
    }
}
