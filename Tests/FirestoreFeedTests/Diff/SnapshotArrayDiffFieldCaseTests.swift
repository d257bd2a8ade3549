import FirestoreFeed
import FirestoreREST
import Testing

/// Field cases and A-4 (`shared/cases/field-cases.md`) on ``SnapshotArrayDiff``.
@Suite(.timeLimit(.minutes(2))) struct SnapshotArrayDiffFieldCaseTests {
    static let root = "projects/p/databases/(default)/documents/scores/"

    /// ordered by score descending, poll 1 `A{5}, B{3}`, poll 2 `B{9}, A{5}`: B moves 1 -> 0 *and* is
    /// changed; A is neither moved nor changed.
    @Test func a2MovedAndChangedIsReportedAsBoth() throws {
        let t1 = try Timestamp(rfc3339: "2024-05-01T00:00:01Z")
        let t2 = try Timestamp(rfc3339: "2024-05-01T00:00:02Z")
        let a = Document(name: Self.root + "A", fields: ["score": 5], updateTime: t1)
        let b = Document(name: Self.root + "B", fields: ["score": 3], updateTime: t1)
        let b2 = Document(name: Self.root + "B", fields: ["score": 9], updateTime: t2)
        let diff = SnapshotArrayDiff(initial: [a, b], result: [b2, a])
        #expect(diff.movedInitialIndexes == [1])
        #expect(diff.movedResultIndexes == [0])
        #expect(diff.changedIndexes == [1])
        #expect(diff.changedResultIndexes == [0])
        #expect(diff.changedObjects.map(\.fields) == [["score": 9]])
        #expect(diff.deletedIndexes == [] && diff.insertedIndexes == [])
        #expect(DiffChecks.problems(diff, same: ==) == [])
    }

    /// 5,000 documents; the new result drops d0...d999 and appends n0...n999: exactly 1,000 deletions at
    /// 0..<1000, 1,000 insertions at 4000..<5000, no move, no change. (Its time is measured in the benchmark.)
    @Test func a3DropAndAppendIsDeletesAndInsertsOnly() {
        let old = (0..<5_000).map { Document(name: Self.root + "d\($0)") }
        let new = Array(old[1_000...]) + (0..<1_000).map { Document(name: Self.root + "n\($0)") }
        let diff = SnapshotArrayDiff(initial: old, result: new)
        #expect(diff.deletedIndexes == Array(0..<1_000))
        #expect(diff.insertedIndexes == Array(4_000..<5_000))
        #expect(diff.movedInitialIndexes == [])
        #expect(diff.changedIndexes == [])
        #expect(diff.insertedObjects.first?.name == Self.root + "n0")
    }

    /// A-3, no stack growth with n: reversing 200,000 elements (every step of the subsequence search taken)
    /// runs iteratively: 199,999 moves; the element that ends up last (initial 0) stays.
    @Test func a3LargeReversalNeedsNoRecursion() {
        let old = (0..<200_000).map { Item("e\($0)") }
        let diff = SnapshotArrayDiff(initial: old, result: old.reversed())
        #expect(diff.movedInitialIndexes.count == 199_999)
        #expect(diff.movedInitialIndexes.first == 199_999)
        #expect(diff.movedResultIndexes.first == 0)
        #expect(diff.movedResultIndexes.last == 199_998)
        #expect(!diff.movedInitialIndexes.contains(0))
        #expect(diff.deletedIndexes == [] && diff.insertedIndexes == [] && diff.changedIndexes == [])
    }

    /// rotating the last element to the front is exactly one move, 5 -> 0.
    @Test func a4RotationIsOneMove() {
        let diff = SnapshotArrayDiff(
            initial: [0, 1, 2, 3, 4, 5], result: [5, 0, 1, 2, 3, 4],
            identity: { $0 }, contentEquals: { $0 == $1 })
        #expect(diff.movedInitialIndexes == [5])
        #expect(diff.movedResultIndexes == [0])
        #expect(diff.deletedIndexes == [] && diff.insertedIndexes == [] && diff.changedIndexes == [])
        #expect(DiffChecks.problems(diff, same: ==) == [])
    }

    /// A-4 the other way: moving the first element to the end is one move too, 0 -> 5.
    @Test func a4RotationBackIsOneMove() {
        let diff = SnapshotArrayDiff(
            initial: [0, 1, 2, 3, 4, 5], result: [1, 2, 3, 4, 5, 0],
            identity: { $0 }, contentEquals: { $0 == $1 })
        #expect(diff.movedInitialIndexes == [0])
        #expect(diff.movedResultIndexes == [5])
        #expect(DiffChecks.problems(diff, same: ==) == [])
    }
}
