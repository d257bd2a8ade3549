import FirestoreREST

/// The changes a Listen snapshot carries from the target's previous one.
///
/// A snapshot whose target published nothing before, or only an empty list (a first snapshot; the first after an
/// empty one or after every document left), is every document added at its own position (the target keeps its list
/// in the ordering's order); it is said so, not listed: the listed form is one more `Document` copy per document,
/// made and let go in passes of their own over storage long out of the cache (at 100,000 documents, the growth of
/// the first snapshot's CPU per document). The snapshot's `DocumentChange`s are then made in the same pass as its
/// `DocumentSnapshot`s (``FeedSnapshot/everyDocumentAdded(query:documents:readTime:statistics:resumePoint:)``).
///
/// Two values compare by form: ``everyDocumentAdded`` is not equal to ``computed(_:)`` of the same list
/// (``list(for:)`` gives that list).
package enum WatchSnapshotChanges: Sendable, Equatable {
    /// Every document of the snapshot added, in the snapshot's order, at its own position (`oldIndex` `nil`,
    /// `newIndex` its position).
    case everyDocumentAdded
    /// The computed changes (``DocumentChangeComputation/checkedChanges(from:to:ordering:namesAreUnique:inOrder:)``).
    case computed([ComputedChange])

    /// The changes as a list, for a snapshot holding `documents`.
    /// - Complexity: O(documents) for ``everyDocumentAdded``; O(1) for ``computed(_:)``.
    package func list(for documents: [Document]) -> [ComputedChange] {
        switch self {
        case .everyDocumentAdded:
            documents.enumerated().map { position, document in
                ComputedChange(type: .added, document: document, oldIndex: nil, newIndex: position)
            }
        case .computed(let changes):
            changes
        }
    }

    /// How many of the changes carry a document of the snapshot (every change but a removal), for a snapshot holding
    /// `documents`.
    package func documentsDelivered(for documents: [Document]) -> Int {
        switch self {
        case .everyDocumentAdded: documents.count
        case .computed(let changes): changes.count { $0.type != .removed }
        }
    }
}
