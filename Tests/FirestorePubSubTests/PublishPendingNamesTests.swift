import FirestoreFeed
import FirestoreREST
import Foundation
import Testing

@testable import FirestorePubSub

/// The names a checkpointed publish keeps while a snapshot's messages go out, and the removals the next run
/// publishes for those gone from its first snapshot. No network.
@Suite(.timeLimit(.minutes(1))) struct PublishPendingNamesTests {
    static let prefix = "projects/p/databases/(default)/documents/fruits/"

    @Test func aPendingNameGoneFromTheResumedResultIsRemovedAtItsReadTime() throws {
        let db = try Firestore.emulator(host: "127.0.0.1:9", projectID: "p")
        let readTime = Timestamp(date: Date(timeIntervalSince1970: 20))
        func snapshot(_ id: String) -> DocumentSnapshot {
            DocumentSnapshot(
                firestore: db,
                document: Document(name: Self.prefix + id, updateTime: Timestamp(date: Date(timeIntervalSince1970: 5))))
        }
        let resumed = QuerySnapshot(
            query: db.collection("fruits").query, documents: [snapshot("apple")],
            documentChanges: [
                DocumentChange(type: .removed, document: snapshot("banana"), oldIndex: 1, newIndex: nil)
            ], readTime: readTime)
        let pending: Set = [Self.prefix + "apple", Self.prefix + "banana", Self.prefix + "cherry"]
        let removals = PublishPendingNames.removals(of: pending, absentFrom: resumed)
        // apple is there; banana's removal is the snapshot's own; cherry is gone without a word: removed here.
        #expect(removals.map(\.orderingKey) == [Self.prefix + "cherry"])
        #expect(
            removals.first?.attributes == [
                "name": Self.prefix + "cherry", "changeType": "removed", "updateTime": "1970-01-01T00:00:20.000000000Z",
                "readTime": "1970-01-01T00:00:20.000000000Z",
            ])
        #expect(
            removals.first.map { String(decoding: $0.data, as: UTF8.self) }
                == #"{"name":"\#(Self.prefix)cherry","removed":true}"#)
    }

    @Test func theFileKeepsTheLastNamesWritten() async throws {
        let store = NSTemporaryDirectory() + "pending-\(UUID().uuidString).sqlite"
        let pending = PublishPendingNames(storePath: store, key: "fruits")
        defer { try? FileManager.default.removeItem(atPath: pending.path) }
        #expect(try await pending.read() == [])
        try await pending.write(["b", "a"])
        try await pending.write(["c"])
        #expect(try await pending.read() == ["c"])
        #expect(pending.path.hasPrefix(store + "-publish-pending-"))
    }
}
