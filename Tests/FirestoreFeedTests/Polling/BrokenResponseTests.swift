import FirestoreFeed
import FirestoreREST
import FirestoreTestSupport
import FirestoreTesting
import Foundation
import Testing

/// Broken 200 responses must never pass for "no documents": the last good snapshot stays.
@Suite(.timeLimit(.minutes(2))) struct BrokenResponseTests {
    @Test(arguments: ["", "{}", "[]", "[{}]"])
    func aBodyWithoutReadTimeKeepsTheLastSnapshot(body: String) async throws {
        let rows = [("a", "2024-05-01T00:00:00Z", "A"), ("b", "2024-05-01T00:00:00Z", "B")]
        let transport = ScriptedTransport([
            .response(status: 200, body: RunQueryBody.make(readTime: "2024-05-01T00:00:01Z", rows)),
            .response(status: 200, body: body),
            .response(
                status: 200,
                body: RunQueryBody.make(
                    readTime: "2024-05-01T00:00:03Z",
                    rows + [("c", "2024-05-01T00:00:02Z", "C")])),
        ])
        let errors = ErrorLog()
        let db = try Firestore.offline(transport: transport)
        var feed = PollerPool(clock: ImmediateClock()).snapshots(
            of: db.collection("fruits").query, mode: .full, policy: QueryPollerTests.policy(.seconds(1))
        ) { errors.append($0) }.makeAsyncIterator()
        let first = try #require(try await feed.next())
        #expect(first.documents.map(\.documentID) == ["a", "b"])
        let second = try #require(try await feed.next())
        #expect(second.documentChanges.map(\.type) == [.added])
        #expect(second.documentChanges.map(\.newIndex) == [2])
        #expect(errors.codes == [.internal])
    }

    /// `é` precomposed and decomposed are two documents to Firestore; Swift's String equality would merge them.
    @Test func namesDifferingInNormalisationStayDistinct() {
        let root = "projects/p/databases/(default)/documents/c/"
        let time = Timestamp.minimum
        let composed = Document(name: root + "\u{E9}", createTime: time, updateTime: time)
        let decomposed = Document(name: root + "e\u{301}", createTime: time, updateTime: time)
        let ordering = DocumentOrdering(orders: [])
        let added = DocumentChangeComputation.changes(from: [], to: [decomposed, composed], ordering: ordering)
        #expect(added.map(\.document.name) == [root + "e\u{301}", root + "\u{E9}"])
        #expect(added.map(\.newIndex) == [0, 1])
        let removed = DocumentChangeComputation.changes(
            from: [decomposed, composed], to: [composed], ordering: ordering)
        #expect(removed == [ComputedChange(type: .removed, document: decomposed, oldIndex: 0, newIndex: nil)])
    }
}
