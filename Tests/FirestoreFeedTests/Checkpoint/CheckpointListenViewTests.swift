import FirestoreFeed
import FirestoreREST
import FirestoreTestSupport
import Testing

/// A Listen target resumed from a durable checkpoint (`CheckpointResume.listenView`, restored in the watch change
/// aggregator): the server sends only what changed after the resume token, or, having dropped the token, a
/// `RESET` and the whole result; either way the first snapshot is published at the next snapshot point, even with
/// nothing changed, and lists only the changes from the stored documents.
@Suite(.timeLimit(.minutes(2))) struct CheckpointListenViewTests {
    typealias Aggregator = WatchChangeAggregatorTests

    /// A checkpoint of `ids` (version 1) with `token`, resumed in an aggregator as target 1.
    static func resumed(_ ids: [String], token: [UInt8] = [7, 7]) throws -> WatchChangeAggregator {
        let query = try Firestore.offline(transport: ScriptedTransport([]))
            .collection("C").query
        let checkpoint = FeedCheckpoint(
            key: "k", query: "q", source: "listen", deltaField: nil, documents: ids.map { Aggregator.document($0) },
            readTime: try Timestamp(seconds: 5, nanos: 0), deltaWatermark: nil, lastKeysScan: nil,
            resumeToken: token, committedAt: try Timestamp(seconds: 5, nanos: 0), generation: 1)
        var aggregator = WatchChangeAggregator()
        aggregator.addTarget(1, ordering: Aggregator.byName)
        aggregator.restoreTarget(
            1, from: CheckpointResume.listenView(from: checkpoint, query: query, resumeToken: token))
        #expect(aggregator.targets[1]?.resumeToken == token)
        return aggregator
    }

    static func snapshot(_ events: [WatchEvent]) -> (ids: [String], changes: [String])? {
        for case .snapshot(_, let documents, let changes, _) in events {
            return (documents.map(\.id), changes.list(for: documents).map { "\($0.type.rawValue) \($0.document.id)" })
        }
        return nil
    }

    @Test func theServerSendsOnlyWhatChangedAfterTheToken() throws {
        var aggregator = try Self.resumed(["a", "b", "c"])
        for response in [
            Aggregator.target(.add, [1]), Aggregator.change("b", version: 2, targets: [1]),
            .documentDelete(ListenDocumentDelete(documentName: Aggregator.root + "c", removedTargetIDs: [1])),
            Aggregator.change("d", targets: [1]), Aggregator.target(.current, [1], token: [8]),
        ] {
            #expect(try aggregator.apply(response) == [])
        }
        let first = try #require(Self.snapshot(try aggregator.apply(Aggregator.point(10))))
        #expect(first.ids == ["a", "b", "d"])
        #expect(first.changes == ["removed c", "added d", "modified b"])
        #expect(aggregator.targets[1]?.resumeToken == [8])
    }

    @Test func nothingChangedStillPublishesAFirstSnapshotWithNoChanges() throws {
        var aggregator = try Self.resumed(["a", "b"])
        _ = try aggregator.apply(Aggregator.target(.add, [1]))
        _ = try aggregator.apply(Aggregator.target(.current, [1]))
        let first = try #require(Self.snapshot(try aggregator.apply(Aggregator.point(10))))
        #expect(first.ids == ["a", "b"])
        #expect(first.changes == [])
    }

    /// The emulator's answer to a resume token of an earlier stream (`CheckpointLiveTests`): RESET, then every
    /// document of the result again.
    @Test func aResetAndTheWholeResultGiveTheSameChanges() throws {
        var aggregator = try Self.resumed(["a", "b", "c"])
        for response in [
            Aggregator.target(.add, [1]), Aggregator.target(.reset, [1]), Aggregator.change("a", targets: [1]),
            Aggregator.change("b", version: 2, targets: [1]), Aggregator.change("d", targets: [1]),
            Aggregator.target(.current, [1]),
        ] {
            #expect(try aggregator.apply(response) == [])
        }
        let first = try #require(Self.snapshot(try aggregator.apply(Aggregator.point(10))))
        #expect(first.ids == ["a", "b", "d"])
        #expect(first.changes == ["removed c", "added d", "modified b"])
    }
}
