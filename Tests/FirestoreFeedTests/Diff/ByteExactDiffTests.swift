import FirestoreFeed
import FirestoreREST
import Testing

/// The diffs compare Firestore strings by their UTF-8 bytes (`ByteExactEqualityTests` in FirestoreRESTTests):
/// NFC `é` and NFD `e\u{301}` are two document IDs and two field names.
@Suite(.timeLimit(.minutes(2))) struct ByteExactDiffTests {
    static let root = "projects/p/databases/(default)/documents/c/"

    /// Two documents whose IDs differ only in normalization: replacing one by the other is a deletion and an
    /// insertion, never "unchanged".
    @Test func documentIDsInNFCAndNFDAreTwoDocuments() throws {
        let time = try Timestamp(rfc3339: "2024-05-01T00:00:01Z")
        let nfc = Document(name: Self.root + "\u{E9}", fields: ["x": 1], updateTime: time)
        let nfd = Document(name: Self.root + "e\u{301}", fields: ["x": 1], updateTime: time)
        let diff = SnapshotArrayDiff(initial: [nfc], result: [nfd])
        #expect(diff.deletedIndexes == [0])
        #expect(diff.insertedIndexes == [0])
        #expect(diff.changedIndexes == [])
        #expect(diff.movedInitialIndexes == [])
    }

    /// The same document (same name, same `updateTime`) whose only field is renamed from NFC to NFD is changed.
    @Test func fieldNamesInNFCAndNFDAreDifferentContent() throws {
        let time = try Timestamp(rfc3339: "2024-05-01T00:00:01Z")
        let old = Document(name: Self.root + "d", fields: ["\u{E9}": 1], updateTime: time)
        let new = Document(name: Self.root + "d", fields: ["e\u{301}": 1], updateTime: time)
        let diff = SnapshotArrayDiff(initial: [old], result: [new])
        #expect(diff.deletedIndexes == [])
        #expect(diff.insertedIndexes == [])
        #expect(diff.changedIndexes == [0])
        let same = SnapshotArrayDiff(initial: [old], result: [old])
        #expect(same.changedIndexes == [])
    }
}
