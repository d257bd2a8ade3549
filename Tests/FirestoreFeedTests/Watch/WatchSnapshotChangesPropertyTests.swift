import FirestoreREST
import FirestoreTestSupport
import FirestoreTesting
import Testing

@testable import FirestoreFeed

/// Over seeded random Listen streams (changes with ties on the ordered field, re-sent versions, deletions, resets,
/// `CURRENT`s and snapshot points), every snapshot the aggregator publishes carries the changes the rules give from
/// the previous published list (``DocumentChangePropertyTests/reference(_:_:)``, one change at a time), is said to
/// be every document added only when that list was empty, and makes the same `QuerySnapshot` said or listed.
@Suite(.timeLimit(.minutes(2))) struct WatchSnapshotChangesPropertyTests {
    typealias Rules = DocumentChangePropertyTests

    static let root = "projects/p/databases/(default)/documents/C/"

    static func time(_ seconds: Int) -> Timestamp? { try? Timestamp(seconds: Int64(seconds), nanos: 0) }

    @Test func everySnapshotCarriesTheRulesChangesSaidOnlyFromAnEmptyList() throws {
        var random = SplitMix64(state: 49)
        let query = try Firestore.offline().collection("C").query
        var snapshots = 0
        var said = 0
        var saidNonEmpty = 0
        for _ in 0..<400 {
            var aggregator = WatchChangeAggregator()
            aggregator.addTarget(1, ordering: Rules.byA)
            var published: [Document] = []
            var versions: [Int: Int] = [:]
            var fieldA: [Int: Int] = [:]
            var clock = 1
            for _ in 0..<(20 + random.below(60)) {
                let response: ListenResponse
                switch random.below(20) {
                case 0..<10:
                    // A new version, or (one time in four) the same version sent again.
                    let id = random.below(25)
                    if versions[id] == nil || random.below(4) != 0 {
                        versions[id, default: 0] += 1
                        fieldA[id] = random.below(6)
                    }
                    let document = Rules.document(id, a: fieldA[id] ?? 0, version: versions[id] ?? 1)
                    response = .documentChange(ListenDocumentChange(document: document, targetIDs: [1]))
                case 10..<13:
                    response = .documentDelete(
                        ListenDocumentDelete(documentName: Self.root + "d\(random.below(25))", removedTargetIDs: [1]))
                case 13:
                    response = .targetChange(ListenTargetChange(kind: .reset, targetIDs: [1]))
                case 14..<16:
                    response = .targetChange(ListenTargetChange(kind: .current, targetIDs: [1]))
                default:
                    clock += 1
                    response = .targetChange(ListenTargetChange(kind: .noChange, readTime: Self.time(clock)))
                }
                for case .snapshot(_, let documents, let changes, let readTime) in try aggregator.apply(response) {
                    snapshots += 1
                    let listed = changes.list(for: documents)
                    #expect(listed == Rules.reference(published, documents))
                    if changes == .everyDocumentAdded {
                        said += 1
                        if !documents.isEmpty { saidNonEmpty += 1 }
                        #expect(published.isEmpty)
                    }
                    let fromSaid = FeedSnapshot.make(
                        query: query, documents: documents, changes: changes, readTime: readTime, statistics: nil,
                        resumePoint: nil)
                    let fromListed = FeedSnapshot.make(
                        query: query, documents: documents, changes: listed, readTime: readTime, statistics: nil,
                        resumePoint: nil)
                    #expect(fromSaid.documents == fromListed.documents)
                    #expect(fromSaid.documentChanges == fromListed.documentChanges)
                    published = documents
                }
            }
        }
        // The streams reach both forms, and the said one with documents.
        #expect(snapshots > 1_000)
        #expect(said > 100)
        #expect(saidNonEmpty > 50)
        #expect(snapshots - said > 500)
    }
}
