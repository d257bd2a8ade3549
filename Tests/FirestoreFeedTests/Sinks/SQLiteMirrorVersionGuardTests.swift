import FirestoreFeed
import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

/// The SQLite mirror's version guard: a change applies only when its `updateTime` is newer than the row's; a removal
/// leaves a tombstone at the snapshot's read time, which a late change (from a snapshot before it) never gets past and a
/// later snapshot holding the document replaces. Tombstones are pruned after a horizon.
@Suite(.timeLimit(.minutes(1))) struct SQLiteMirrorVersionGuardTests {
    typealias F = MirrorFixture

    @Test func anOlderChangeAfterANewerOneIsIgnored() async throws {
        let path = CheckpointFiles.temporaryPath("mirror")
        defer { CheckpointFiles.remove(path) }
        let mirror = try await SQLiteMirror(path: path)
        try await mirror.apply(F.batch([F.put("a", updated: 20, ["v": 2])], read: 21))
        try await mirror.apply(F.batch([F.put("a", updated: 10, ["v": 1])], read: 22))
        #expect(F.rows(path) == ["a \(F.stored(20)) {\"v\":{\"integerValue\":\"2\"}}"])
        #expect(F.counts(mirror) == [2, 1, 1, 0])
    }

    @Test func theSameChangeTwiceIsANoOp() async throws {
        let path = CheckpointFiles.temporaryPath("mirror")
        defer { CheckpointFiles.remove(path) }
        let mirror = try await SQLiteMirror(path: path)
        let batch = F.batch([F.put("a", updated: 10, ["v": 1]), F.put("b", updated: 11)], read: 12)
        try await mirror.apply(batch)
        try await mirror.apply(batch)
        #expect(
            F.rows(path) == [
                "a \(F.stored(10)) {\"v\":{\"integerValue\":\"1\"}}", "b \(F.stored(11)) {}",
            ])
        #expect(F.counts(mirror) == [2, 2, 2, 0])
    }

    @Test func aRemovedDocumentStaysRemovedWhenAnOlderChangeArrives() async throws {
        let path = CheckpointFiles.temporaryPath("mirror")
        defer { CheckpointFiles.remove(path) }
        let mirror = try await SQLiteMirror(path: path)
        try await mirror.apply(F.batch([F.put("a", updated: 10)], read: 11))
        try await mirror.apply(F.batch([F.remove("a")], read: 30))
        // A snapshot from before the removal, delivered again late.
        try await mirror.apply(F.batch([F.put("a", updated: 20, ["late": true])], read: 25))
        #expect(F.rows(path) == [])
        #expect(F.tombstones(path) == ["a \(F.stored(30))"])
        // A removal of a document the mirror never held leaves a tombstone too.
        try await mirror.apply(F.batch([F.remove("b")], read: 32))
        try await mirror.apply(F.batch([F.put("b", updated: 25)], read: 31))
        #expect(F.rows(path) == [])
        #expect(F.tombstones(path) == ["a \(F.stored(30))", "b \(F.stored(32))"])
        #expect(F.counts(mirror) == [5, 3, 2, 0])
    }

    /// A removal seen again at a later read time moves the tombstone later (no version up to then is current) without
    /// counting as applied; one seen at an earlier read time changes nothing.
    @Test func aRemovalSeenAgainMovesTheTombstoneLater() async throws {
        let path = CheckpointFiles.temporaryPath("mirror")
        defer { CheckpointFiles.remove(path) }
        let mirror = try await SQLiteMirror(path: path)
        try await mirror.apply(F.batch([F.put("a", updated: 10)], read: 11))
        try await mirror.apply(F.batch([F.remove("a")], read: 30))
        try await mirror.apply(F.batch([F.remove("a")], read: 20))
        #expect(F.tombstones(path) == ["a \(F.stored(30))"])
        try await mirror.apply(F.batch([F.remove("a")], read: 40))
        #expect(F.tombstones(path) == ["a \(F.stored(40))"])
        try await mirror.apply(F.batch([F.put("a", updated: 35)], read: 38))
        #expect(F.rows(path) == [])
        #expect(F.counts(mirror) == [5, 2, 3, 0])
    }

    /// A document can leave a result and come back unchanged (a `limit` window it re-entered; a Listen snapshot that
    /// lacked it after a reset and sends it again, as the emulator's do): a snapshot after the tombstone that holds it
    /// writes it again, though its `updateTime` is older than the tombstone.
    @Test func aDocumentThatLeftAndCameBackUnchangedIsWrittenAgain() async throws {
        let path = CheckpointFiles.temporaryPath("mirror")
        defer { CheckpointFiles.remove(path) }
        let mirror = try await SQLiteMirror(path: path)
        try await mirror.apply(F.batch([F.put("a", updated: 10, ["v": 1])], read: 11))
        try await mirror.apply(F.batch([F.remove("a")], read: 30))
        try await mirror.apply(F.batch([F.put("a", updated: 10, ["v": 1])], read: 31))
        #expect(F.rows(path) == ["a \(F.stored(10)) {\"v\":{\"integerValue\":\"1\"}}"])
        #expect(F.tombstones(path) == [])
        #expect(F.counts(mirror) == [3, 3, 0, 0])
    }

    /// A removal from a snapshot before the one that wrote the row (delivered again late) leaves the row.
    @Test func aRemovalOlderThanTheRowsSnapshotIsIgnored() async throws {
        let path = CheckpointFiles.temporaryPath("mirror")
        defer { CheckpointFiles.remove(path) }
        let mirror = try await SQLiteMirror(path: path)
        try await mirror.apply(F.batch([F.put("a", updated: 10, ["v": 1])], read: 40))
        try await mirror.apply(F.batch([F.remove("a")], read: 30))
        #expect(F.rows(path) == ["a \(F.stored(10)) {\"v\":{\"integerValue\":\"1\"}}"])
        #expect(F.tombstones(path) == [])
        #expect(F.counts(mirror) == [2, 1, 1, 0])
    }

    @Test func aDocumentThatReentersWithANewerVersionReplacesItsTombstone() async throws {
        let path = CheckpointFiles.temporaryPath("mirror")
        defer { CheckpointFiles.remove(path) }
        let mirror = try await SQLiteMirror(path: path)
        try await mirror.apply(F.batch([F.put("a", updated: 10)], read: 11))
        try await mirror.apply(F.batch([F.remove("a")], read: 30))
        try await mirror.apply(F.batch([F.put("a", updated: 40, ["back": true])], read: 41))
        #expect(F.rows(path) == ["a \(F.stored(40)) {\"back\":{\"booleanValue\":true}}"])
        #expect(F.tombstones(path) == [])
    }

    @Test func aLateRemovalDoesNotDeleteANewerRow() async throws {
        let path = CheckpointFiles.temporaryPath("mirror")
        defer { CheckpointFiles.remove(path) }
        let mirror = try await SQLiteMirror(path: path)
        try await mirror.apply(F.batch([F.put("a", updated: 50)], read: 51))
        try await mirror.apply(F.batch([F.remove("a")], read: 40))
        #expect(F.rows(path) == ["a \(F.stored(50)) {}"])
        #expect(F.tombstones(path) == [])
    }

    @Test func tombstonesArePrunedBeforeTheGivenTime() async throws {
        let path = CheckpointFiles.temporaryPath("mirror")
        defer { CheckpointFiles.remove(path) }
        let mirror = try await SQLiteMirror(path: path)
        try await mirror.apply(F.batch([F.remove("a"), F.remove("b")], read: 10))
        try await mirror.apply(F.batch([F.remove("c")], read: 20))
        #expect(try await mirror.pruneTombstones(removedBefore: F.time(20)) == 2)
        #expect(F.tombstones(path) == ["c \(F.stored(20))"])
        #expect(try await mirror.pruneTombstones(removedBefore: F.time(20)) == 0)
        #expect(SQLiteMirror.tombstoneHorizon == .seconds(604_800))
    }

    /// Times compare to the nanosecond: a version one nanosecond newer applies, one nanosecond older does not.
    @Test func versionsCompareToTheNanosecond() async throws {
        let path = CheckpointFiles.temporaryPath("mirror")
        defer { CheckpointFiles.remove(path) }
        let mirror = try await SQLiteMirror(path: path)
        func put(_ nanos: Int32, _ value: Int64) -> FeedSinkBatch {
            let document = Document(
                name: F.prefix + "a", fields: ["v": .integer(value)], createTime: F.time(1),
                updateTime: F.time(10, nanos))
            return F.batch([.put(document)], read: 20)
        }
        try await mirror.apply(put(5, 1))
        try await mirror.apply(put(4, 2))
        try await mirror.apply(put(6, 3))
        #expect(F.rows(path) == ["a \(F.time(10).rfc3339.dropLast()).000000006Z {\"v\":{\"integerValue\":\"3\"}}"])
    }
}
