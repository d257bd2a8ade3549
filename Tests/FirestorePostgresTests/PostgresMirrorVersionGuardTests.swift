import FirestoreFeed
import FirestorePostgres
import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

/// The PostgreSQL mirror's version guard: a change applies only when its `updateTime` is newer than the row's; a
/// removal leaves a tombstone at the snapshot's read time, which a late change (from a snapshot before it) never gets
/// past and a later snapshot holding the document replaces. Tombstones are pruned after a horizon.
@Suite(.timeLimit(.minutes(1)), PostgresFixture.enabled) struct PostgresMirrorVersionGuardTests {
    typealias F = PostgresFixture

    @Test func anOlderChangeAfterANewerOneIsIgnored() async throws {
        let (mirror, table) = try await F.mirror("older")
        try await mirror.apply(F.batch([F.put("a", updated: 20, ["v": 2])], read: 21))
        try await mirror.apply(F.batch([F.put("a", updated: 10, ["v": 1])], read: 22))
        #expect(try F.rows(table) == ["a \(F.stored(20)) {\"v\": {\"integerValue\": \"2\"}}"])
        #expect(F.counts(mirror) == [2, 1, 1, 0])
    }

    @Test func theSameChangeTwiceIsANoOp() async throws {
        let (mirror, table) = try await F.mirror("twice")
        let batch = F.batch([F.put("a", updated: 10, ["v": 1]), F.put("b", updated: 11)], read: 12)
        try await mirror.apply(batch)
        try await mirror.apply(batch)
        #expect(
            try F.rows(table) == [
                "a \(F.stored(10)) {\"v\": {\"integerValue\": \"1\"}}", "b \(F.stored(11)) {}",
            ])
        #expect(F.counts(mirror) == [2, 2, 2, 0])
    }

    @Test func aRemovedDocumentStaysRemovedWhenAnOlderChangeArrives() async throws {
        let (mirror, table) = try await F.mirror("tombstone")
        try await mirror.apply(F.batch([F.put("a", updated: 10)], read: 11))
        try await mirror.apply(F.batch([F.remove("a")], read: 30))
        // A snapshot from before the removal, delivered again late.
        try await mirror.apply(F.batch([F.put("a", updated: 20, ["late": true])], read: 25))
        #expect(try F.rows(table) == [])
        #expect(try F.tombstones(table) == ["a \(F.stored(30))"])
        #expect(try F.lines("SELECT update_time FROM \(table)_tombstones") == [F.stored(10)])
        // A removal of a document the mirror never held leaves a tombstone too.
        try await mirror.apply(F.batch([F.remove("b")], read: 32))
        try await mirror.apply(F.batch([F.put("b", updated: 25)], read: 31))
        #expect(try F.rows(table) == [])
        #expect(try F.tombstones(table) == ["a \(F.stored(30))", "b \(F.stored(32))"])
        #expect(F.counts(mirror) == [5, 3, 2, 0])
    }

    /// A removal seen again at a later read time moves the tombstone later without counting as applied; one seen at
    /// an earlier read time changes nothing.
    @Test func aRemovalSeenAgainMovesTheTombstoneLater() async throws {
        let (mirror, table) = try await F.mirror("again")
        try await mirror.apply(F.batch([F.put("a", updated: 10)], read: 11))
        try await mirror.apply(F.batch([F.remove("a")], read: 30))
        try await mirror.apply(F.batch([F.remove("a")], read: 20))
        #expect(try F.tombstones(table) == ["a \(F.stored(30))"])
        try await mirror.apply(F.batch([F.remove("a")], read: 40))
        #expect(try F.tombstones(table) == ["a \(F.stored(40))"])
        try await mirror.apply(F.batch([F.put("a", updated: 35)], read: 38))
        #expect(try F.rows(table) == [])
        #expect(F.counts(mirror) == [5, 2, 3, 0])
    }

    @Test func aDocumentThatReentersWithANewerVersionReplacesItsTombstone() async throws {
        let (mirror, table) = try await F.mirror("reenter")
        try await mirror.apply(F.batch([F.put("a", updated: 10)], read: 11))
        try await mirror.apply(F.batch([F.remove("a")], read: 30))
        try await mirror.apply(F.batch([F.put("a", updated: 40, ["back": true])], read: 41))
        #expect(try F.rows(table) == ["a \(F.stored(40)) {\"back\": {\"booleanValue\": true}}"])
        #expect(try F.tombstones(table) == [])
        #expect(F.counts(mirror) == [3, 3, 0, 0])
    }

    /// A document can leave a result and come back unchanged (a `limit` window it re-entered; a Listen snapshot that
    /// lacked it after a reset and sends it again, as the emulator's do): a snapshot after the tombstone that holds it
    /// writes it again, though its `updateTime` is older than the tombstone.
    @Test func aDocumentThatLeftAndCameBackUnchangedIsWrittenAgain() async throws {
        let (mirror, table) = try await F.mirror("cameback")
        try await mirror.apply(F.batch([F.put("a", updated: 10)], read: 11))
        try await mirror.apply(F.batch([F.remove("a")], read: 30))
        try await mirror.apply(F.batch([F.put("a", updated: 10)], read: 31))
        #expect(try F.rows(table) == ["a \(F.stored(10)) {}"])
        #expect(try F.tombstones(table) == [])
        #expect(F.counts(mirror) == [3, 3, 0, 0])
    }

    /// A removal from a snapshot before the one that wrote the row (delivered again late) leaves the row, though the
    /// row's `updateTime` is before the removal's read time.
    @Test func aRemovalOlderThanTheRowsSnapshotIsIgnored() async throws {
        let (mirror, table) = try await F.mirror("oldremove")
        try await mirror.apply(F.batch([F.put("a", updated: 10)], read: 40))
        try await mirror.apply(F.batch([F.remove("a")], read: 30))
        #expect(try F.rows(table) == ["a \(F.stored(10)) {}"])
        #expect(try F.tombstones(table) == [])
        #expect(F.counts(mirror) == [2, 1, 1, 0])
    }

    @Test func aLateRemovalDoesNotDeleteANewerRow() async throws {
        let (mirror, table) = try await F.mirror("lateremove")
        try await mirror.apply(F.batch([F.put("a", updated: 50)], read: 51))
        try await mirror.apply(F.batch([F.remove("a")], read: 40))
        #expect(try F.rows(table) == ["a \(F.stored(50)) {}"])
        #expect(try F.tombstones(table) == [])
        #expect(F.counts(mirror) == [2, 1, 1, 0])
    }

    /// A name that comes more than once in one batch is applied in the batch's order (the batch goes in runs of
    /// distinct names): put, remove, put again at a newer version.
    @Test func aNameTwiceInOneBatchAppliesInOrder() async throws {
        let (mirror, table) = try await F.mirror("order")
        try await mirror.apply(
            F.batch(
                [F.put("a", updated: 10), F.put("b", updated: 10), F.remove("a"), F.put("a", updated: 12, ["v": 3])],
                read: 11))
        #expect(try F.rows(table) == ["a \(F.stored(12)) {\"v\": {\"integerValue\": \"3\"}}", "b \(F.stored(10)) {}"])
        #expect(try F.tombstones(table) == [])
        try await mirror.apply(F.batch([F.put("c", updated: 20), F.put("c", updated: 15), F.remove("b")], read: 21))
        #expect(try F.rows(table).map { String($0.prefix(32)) } == ["a \(F.stored(12))", "c \(F.stored(20))"])
        #expect(try F.tombstones(table) == ["b \(F.stored(21))"])
        #expect(F.counts(mirror) == [2, 6, 1, 0])
    }

    @Test func tombstonesArePrunedBeforeTheGivenTime() async throws {
        let (mirror, table) = try await F.mirror("prune")
        try await mirror.apply(F.batch([F.remove("a"), F.remove("b")], read: 10))
        try await mirror.apply(F.batch([F.remove("c")], read: 20))
        #expect(try await mirror.pruneTombstones(removedBefore: F.time(20)) == 2)
        #expect(try F.tombstones(table) == ["c \(F.stored(20))"])
        #expect(try await mirror.pruneTombstones(removedBefore: F.time(20)) == 0)
        #expect(PostgresMirror.tombstoneHorizon == .seconds(604_800))
    }

    /// Times compare to the nanosecond: a version one nanosecond newer applies, one nanosecond older does not.
    @Test func versionsCompareToTheNanosecond() async throws {
        let (mirror, table) = try await F.mirror("nanos")
        func put(_ nanos: Int32, _ value: Int64) -> FeedSinkBatch {
            let document = Document(
                name: F.prefix + "a", fields: ["v": .integer(value)], createTime: F.time(1),
                updateTime: F.time(10, nanos))
            return F.batch([.put(document)], read: 20)
        }
        try await mirror.apply(put(5, 1))
        try await mirror.apply(put(4, 2))
        try await mirror.apply(put(6, 3))
        #expect(
            try F.rows(table) == [
                "a \(F.time(10).rfc3339.dropLast()).000000006Z {\"v\": {\"integerValue\": \"3\"}}"
            ])
        #expect(try await mirror.documents().first?.updateTime == F.time(10, 6))
    }
}
