import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

/// `Query.stream()` on the real emulator: the same documents in the same order as `getDocuments()`, each with the
/// response's read time, and a loop left early.
@Suite(.timeLimit(.minutes(2))) struct QueryStreamLiveTests {
    @Test func theStreamDeliversWhatGetDocumentsReturns() async throws {
        let db = try LiveFirestore.make("stream")
        let writer = try db.bulkWriter(options: BulkWriter.Options(throttling: .disabled))
        for index in 0..<300 {
            try await writer.setData(["n": .value(.integer(Int64(index)))], forDocument: db.document("c/d\(index)"))
        }
        try await writer.close()
        let query = db.collection("c").whereField("n", isGreaterThanOrEqualTo: 20).order(by: "n", descending: true)
        let whole = try await query.getDocuments()
        var streamed: [DocumentSnapshot] = []
        for try await document in query.stream() { streamed.append(document) }
        #expect(streamed.count == 280)
        #expect(streamed.map(\.documentID) == whole.documents.map(\.documentID))
        #expect(streamed.map { $0.data() } == whole.documents.map { $0.data() })
        #expect(streamed.allSatisfy { $0.readTime != nil })

        var firstTwo: [String] = []
        for try await document in query.limit(to: 50).stream() {
            firstTwo.append(document.documentID)
            if firstTwo.count == 2 { break }
        }
        #expect(firstTwo == ["d299", "d298"])
    }
}
