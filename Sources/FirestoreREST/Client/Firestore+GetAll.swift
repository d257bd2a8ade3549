import FirestoreWire

extension Firestore {
    /// Reads several documents in one batchGet (REST reference: `projects.databases.documents.batchGet`), as
    /// the Node SDK's `Firestore.getAll(...refs, {fieldMask})`: the snapshots come back in the order of
    /// `references` (the server may answer in any order), a missing document as a snapshot with
    /// `exists == false`, a reference given twice read once and returned twice.
    ///
    /// ```swift
    /// let name = try FieldPath(["name"])
    /// let fruits = try await db.getAll([db.document("fruits/apple"), db.document("fruits/fig")], fieldMask: [name])
    /// ```
    /// - Parameters:
    ///   - references: documents of this client's database; none gives `[]` without a request.
    ///   - fieldMask: the fields to return; `nil` for all, `[]` for none (names and times only).
    ///   - readTime: read as of this time (within the last hour in production), or now.
    /// - Returns: one snapshot per reference, in order.
    /// - Throws: ``FirestoreError`` `.invalidArgument` before sending for an invalid path or a document of another
    ///   database; `.failedPrecondition` from the server for a `readTime` too old; `.internal` when the response
    ///   leaves a requested document out; otherwise the server's or the transport's error.
    /// - Complexity: O(n) for n references, plus the request.
    public func getAll(_ references: [DocumentReference], fieldMask: [FieldPath]? = nil, readTime: Timestamp? = nil)
        async throws -> [DocumentSnapshot]
    {
        let names = try resourceNames(of: references)
        guard !names.isEmpty else { return [] }
        let response = try await batchGet(names: Self.uniqued(names), mask: fieldMask, readTime: readTime)
        return try Self.snapshots(of: references, names: names, in: response)
    }

    /// The full resource names of `references`, checked to belong to this database.
    /// - Throws: ``FirestoreError`` `.invalidArgument` for an invalid path or a document of another database.
    func resourceNames(of references: [DocumentReference]) throws(FirestoreError) -> [String] {
        var names: [String] = []
        names.reserveCapacity(references.count)
        for reference in references {
            try checkOwns(reference)
            names.append(database.resourceName(of: try reference.resourcePath()))
        }
        return names
    }

    /// `names` without repeats, in first-seen order, compared byte for byte.
    static func uniqued(_ names: [String]) -> [String] {
        var seen: Set<ByteExactName> = []
        return names.filter { seen.insert(ByteExactName(name: $0)).inserted }
    }

    /// The snapshot of each reference from a batchGet response: its `found` document, or a missing document.
    /// - Throws: ``FirestoreError`` `.internal` naming the document the response neither found nor reported
    ///   missing.
    static func snapshots(of references: [DocumentReference], names: [String], in response: BatchGetResponse)
        throws(FirestoreError) -> [DocumentSnapshot]
    {
        let missing = Set(response.missing.map { ByteExactName(name: $0) })
        var snapshots: [DocumentSnapshot] = []
        snapshots.reserveCapacity(references.count)
        for (reference, name) in zip(references, names) {
            let key = ByteExactName(name: name)
            if let document = response.found[key] {
                snapshots.append(
                    DocumentSnapshot(reference: reference, document: document, readTime: response.readTime))
            } else if missing.contains(key) {
                snapshots.append(DocumentSnapshot(reference: reference, document: nil, readTime: response.readTime))
            } else {
                throw FirestoreError(
                    code: .internal, message: "batchGet response has neither found nor missing for \(name)")
            }
        }
        return snapshots
    }
}
