import FirestoreFeed
import FirestoreREST
import FirestoreTestSupport
import Testing

/// FirebaseUI's FUISnapshotArrayDiffTest rows 10-19 (`firebase-semantics.md` §2.2) and the FirebaseUI API names.
@Suite(.timeLimit(.minutes(2))) struct SnapshotArrayDiffTests {
    /// Plain strings, as upstream uses: identity and content are the string itself.
    static func diff(_ initial: [String], _ result: [String]) -> SnapshotArrayDiff<String> {
        SnapshotArrayDiff(initial: initial, result: result, identity: { $0 }, contentEquals: { $0 == $1 })
    }

    static func expectValid(_ diff: SnapshotArrayDiff<String>, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(DiffChecks.problems(diff, same: ==) == [], sourceLocation: sourceLocation)
    }

    // MARK: testDiffEdgeCases

    @Test func row10EmptyToEmpty() {
        let diff = Self.diff([], [])
        #expect(
            diff.deletedIndexes == [] && diff.insertedIndexes == [] && diff.movedInitialIndexes == []
                && diff.changedIndexes == [])
        #expect(diff.isEmpty)
        Self.expectValid(diff)
    }

    @Test func row11EverythingDeleted() {
        let diff = Self.diff(["a", "b"], [])
        #expect(diff.deletedIndexes == [0, 1])
        #expect(diff.deletedObjects == ["a", "b"])
        #expect(diff.insertedIndexes == [] && diff.movedInitialIndexes == [] && diff.changedIndexes == [])
        Self.expectValid(diff)
    }

    @Test func row12EverythingInserted() {
        let diff = Self.diff([], ["a", "b"])
        #expect(diff.insertedIndexes == [0, 1])
        #expect(diff.insertedObjects == ["a", "b"])
        #expect(diff.deletedIndexes == [] && diff.movedInitialIndexes == [] && diff.changedIndexes == [])
        Self.expectValid(diff)
    }

    /// Nothing in common: deletes and inserts, never "changes" (FirebaseUI's in-place branch is unreachable,
    /// and x and a are different elements).
    @Test func row13DisjointLists() {
        let diff = Self.diff(["x", "y"], ["a", "b"])
        #expect(diff.deletedIndexes == [0, 1])
        #expect(diff.deletedObjects == ["x", "y"])
        #expect(diff.insertedIndexes == [0, 1])
        #expect(diff.insertedObjects == ["a", "b"])
        #expect(diff.movedInitialIndexes == [] && diff.changedIndexes == [])
        Self.expectValid(diff)
    }

    /// One of the two must move; like FirebaseUI's LCS we move `a` (the element now in front), 1 -> 0.
    @Test func row14Swap() {
        let diff = Self.diff(["b", "a"], ["a", "b"])
        #expect(diff.movedInitialIndexes == [1])
        #expect(diff.movedResultIndexes == [0])
        #expect(diff.movedObjects == ["a"])
        #expect(diff.deletedIndexes == [] && diff.insertedIndexes == [] && diff.changedIndexes == [])
        Self.expectValid(diff)
    }

    /// Repeated identities: the k-th `a` pairs with the k-th `a`, so nothing happens and nothing traps.
    @Test func row15RepeatedIdentities() {
        let diff = Self.diff(["a", "a", "a", "a"], ["a", "a", "a", "a"])
        #expect(diff.isEmpty)
        #expect(
            diff.deletedIndexes == [] && diff.insertedIndexes == [] && diff.movedInitialIndexes == []
                && diff.changedIndexes == [])
        Self.expectValid(diff)
    }

    // MARK: testDiffGeneralCases

    /// Same answer as FirebaseUI: `b,c,x,y` keep their order and stay; `a` (1 -> 0) and `z` (5 -> 3) move; `o` is
    /// deleted; the second `b` of the result has no second `b` in initial to pair with, so it is inserted, as
    /// is `h`.
    @Test func row16GeneralCase() {
        let diff = Self.diff(["b", "a", "c", "x", "y", "z", "o"], ["a", "b", "c", "z", "x", "y", "b", "h"])
        #expect(diff.deletedIndexes == [6])
        #expect(diff.deletedObjects == ["o"])
        #expect(diff.insertedIndexes == [6, 7])
        #expect(diff.insertedObjects == ["b", "h"])
        #expect(diff.movedInitialIndexes == [1, 5])
        #expect(diff.movedResultIndexes == [0, 3])
        #expect(diff.movedObjects == ["a", "z"])
        #expect(diff.changedIndexes == [])
        Self.expectValid(diff)
    }

    // MARK: document-change cases (14 documents a...n)

    static let ids = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n"]

    static func documents(updatedAt time: String) throws -> [DocumentSnapshot] {
        let db = try Firestore.offline(transport: ScriptedTransport([]))
        let updateTime = try Timestamp(rfc3339: time)
        return ids.map { id in
            DocumentSnapshot(
                firestore: db,
                document: Document(
                    name: "projects/p/databases/(default)/documents/letters/\(id)", fields: ["id": .string(id)],
                    createTime: updateTime, updateTime: updateTime))
        }
    }

    @Test func row17SimpleInsertion() throws {
        let documents = try Self.documents(updatedAt: "2024-05-01T00:00:00Z")
        let diff = SnapshotArrayDiff(initial: [], result: documents)
        #expect(diff.insertedIndexes == [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13])
        #expect(diff.insertedObjects.map(\.documentID) == Self.ids)
        #expect(diff.deletedIndexes == [] && diff.movedInitialIndexes == [] && diff.changedIndexes == [])
    }

    /// Upstream feeds 14 `modified` changes for the same objects; over REST a modification is a document whose
    /// `updateTime` moved, so the result holds the same names at a later `updateTime`. (Passing the very same
    /// snapshots gives an empty diff here: we diff content, and FirebaseUI trusted the change list.)
    @Test func row18SimpleChange() throws {
        let before = try Self.documents(updatedAt: "2024-05-01T00:00:00Z")
        let after = try Self.documents(updatedAt: "2024-05-01T00:00:07Z")
        let diff = SnapshotArrayDiff(initial: before, result: after)
        #expect(diff.changedIndexes == [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13])
        #expect(diff.changedResultIndexes == [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13])
        #expect(
            diff.changedObjects.map(\.updateTime)
                == Array(repeating: try Timestamp(rfc3339: "2024-05-01T00:00:07Z"), count: 14))
        #expect(diff.deletedIndexes == [] && diff.insertedIndexes == [] && diff.movedInitialIndexes == [])
        #expect(SnapshotArrayDiff(initial: before, result: before).isEmpty)
    }

    @Test func row19SimpleDeletion() throws {
        let documents = try Self.documents(updatedAt: "2024-05-01T00:00:00Z")
        let diff = SnapshotArrayDiff(initial: documents, result: [])
        #expect(diff.deletedIndexes == [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13])
        #expect(diff.deletedObjects.map(\.documentID) == Self.ids)
        #expect(diff.insertedIndexes == [] && diff.movedInitialIndexes == [] && diff.changedIndexes == [])
    }

    // MARK: identity and content

    /// Names are compared byte for byte: `é` (U+00E9) and `e` + U+0301 are two documents in Firestore.
    @Test func documentNamesAreComparedByteForByte() {
        let root = "projects/p/databases/(default)/documents/c/"
        let composed = Document(name: root + "caf\u{E9}", fields: ["n": 1])
        let decomposed = Document(name: root + "cafe\u{301}", fields: ["n": 1])
        let diff = SnapshotArrayDiff(initial: [composed], result: [decomposed])
        #expect(diff.deletedIndexes == [0])
        #expect(diff.insertedIndexes == [0])
        #expect(diff.changedIndexes == [])
    }

    /// A document is changed when its `updateTime` moved or its fields differ; `createTime` alone is not content.
    @Test func documentContentIsUpdateTimeAndFields() throws {
        let name = "projects/p/databases/(default)/documents/c/d"
        let t1 = try Timestamp(rfc3339: "2024-05-01T00:00:01Z")
        let t2 = try Timestamp(rfc3339: "2024-05-01T00:00:02Z")
        let base = Document(name: name, fields: ["n": 1], createTime: t1, updateTime: t1)
        let touched = Document(name: name, fields: ["n": 1], createTime: t1, updateTime: t2)
        let edited = Document(name: name, fields: ["n": 2], createTime: t1, updateTime: t1)
        let recreatedSameTimes = Document(name: name, fields: ["n": 1], createTime: t2, updateTime: t1)
        #expect(SnapshotArrayDiff(initial: [base], result: [touched]).changedIndexes == [0])
        #expect(SnapshotArrayDiff(initial: [base], result: [edited]).changedIndexes == [0])
        #expect(SnapshotArrayDiff(initial: [base], result: [recreatedSameTimes]).isEmpty)
    }

    @Test func identifiableElementsUseIDAndEquality() {
        let diff = SnapshotArrayDiff(
            initial: [Item("a"), Item("b"), Item("c")],
            result: [Item("c", 1), Item("a"), Item("d")])
        #expect(diff.deletedIndexes == [1])
        #expect(diff.insertedIndexes == [2])
        #expect(diff.movedInitialIndexes == [2])
        #expect(diff.movedResultIndexes == [0])
        #expect(diff.changedIndexes == [2])
        #expect(diff.changedResultIndexes == [0])
        #expect(diff.changedObjects == [Item("c", 1)])
        #expect(diff.description == "SnapshotArrayDiff(Deleted [1] Moved [2->0] Changed [2] Inserted [2])")
        #expect(DiffChecks.problems(diff, same: ==) == [])
    }

    /// Extra occurrences of a repeated identity are deleted or inserted; the rest pair in order.
    @Test func repeatedIdentitiesPairInOrder() {
        let shrink = Self.diff(["a", "b", "a"], ["b", "a"])
        #expect(shrink.deletedIndexes == [2])
        #expect(shrink.movedInitialIndexes == [1])
        #expect(shrink.movedResultIndexes == [0])
        #expect(shrink.insertedIndexes == [])
        Self.expectValid(shrink)
        let grow = SnapshotArrayDiff(initial: [Item("a", 1)], result: [Item("a", 2), Item("a", 3)])
        #expect(grow.changedIndexes == [0])
        #expect(grow.changedResultIndexes == [0])
        #expect(grow.insertedIndexes == [1])
        #expect(DiffChecks.problems(grow, same: ==) == [])
    }
}
