import FirestoreREST

extension SnapshotArrayDiff where Element == DocumentSnapshot {
    /// The diff between two query results. A document's identity is its full resource name compared byte for
    /// byte (so `c/é` and `c/e\u{301}` are two documents, as Firestore holds them; a missing document is
    /// identified by its reference's name); its content is its `updateTime` and fields: a document whose
    /// `updateTime` moved is changed even when its fields read the same, as in the change feed
    /// (`listen-nomod`), and so is one whose fields differ.
    /// - Complexity: O(n + m) hash-map operations (hashing each name's bytes) plus O(k log k) for k retained
    ///   documents (see ``SnapshotArrayDiff``).
    public init(initial: [DocumentSnapshot], result: [DocumentSnapshot]) {
        self.init(
            initial: initial, result: result,
            identity: { $0.identityName },
            contentEquals: { old, new in
                old.exists == new.exists && old.updateTime == new.updateTime
                    && fieldsEqual(old.document?.fields, new.document?.fields)
            })
    }
}

extension SnapshotArrayDiff where Element == Document {
    /// The diff between two lists of REST documents: identity is the full resource name compared byte for byte,
    /// content is `updateTime` and fields (see the `DocumentSnapshot` form).
    /// - Complexity: as ``SnapshotArrayDiff``.
    public init(initial: [Document], result: [Document]) {
        self.init(
            initial: initial, result: result, identity: { ByteExactName(name: $0.name) },
            contentEquals: { old, new in old.updateTime == new.updateTime && old.fields.utf8KeyedEquals(new.fields) })
    }
}

/// Whether two documents' fields are equal, map keys compared by their UTF-8 bytes; two missing documents' are.
private func fieldsEqual(_ lhs: [String: FirestoreValue]?, _ rhs: [String: FirestoreValue]?) -> Bool {
    switch (lhs, rhs) {
    case (nil, nil): return true
    case (let lhs?, let rhs?): return lhs.utf8KeyedEquals(rhs)
    default: return false
    }
}

extension DocumentSnapshot {
    /// What identifies this snapshot's document in a diff: its full resource name (the reference's for a
    /// missing document), compared byte for byte.
    var identityName: ByteExactName { ByteExactName(name: document?.name ?? reference.resourceName) }
}
