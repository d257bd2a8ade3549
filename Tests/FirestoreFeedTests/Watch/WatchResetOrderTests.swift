import FirestoreFeed
import FirestoreREST
import Testing

/// The order in which the emulator resets a target during its initial load under concurrent writes (recorded from
/// the emulator, in `CheckpointCrashLiveTests` runs): `ADD`, the documents, `RESET` (read at t2), a `CURRENT`
/// read before the reset (t1 < t2), a `NO_CHANGE` snapshot point (t3), and only then the documents of the new
/// state, a `CURRENT` and a `NO_CHANGE`. The stale `CURRENT` must not make the target current: else the snapshot
/// point at t3 publishes the reset view, empty, and a checkpointed feed resumed on it reports every stored
/// document removed, then added back.
@Suite(.timeLimit(.minutes(2))) struct WatchResetOrderTests {
    typealias Helpers = WatchChangeAggregatorTests

    static func change(_ kind: ListenTargetChange.Kind, at seconds: Int64, targets: [Int32] = [1]) -> ListenResponse {
        .targetChange(
            ListenTargetChange(kind: kind, targetIDs: targets, readTime: try? Timestamp(seconds: seconds, nanos: 0)))
    }

    static func published(_ events: [WatchEvent]) -> [String]? {
        for case .snapshot(_, let documents, _, _) in events { return documents.map(\.id) }
        return nil
    }

    @Test func aCurrentReadBeforeTheResetDoesNotPublishTheResetView() throws {
        var aggregator = WatchChangeAggregator()
        aggregator.addTarget(1, ordering: Helpers.byName)
        for response in [
            Helpers.target(.add, [1]), Helpers.change("a", targets: [1]), Helpers.change("b", targets: [1]),
            Self.change(.reset, at: 20), Self.change(.current, at: 19),
        ] {
            #expect(try aggregator.apply(response) == [])
        }
        #expect(Self.published(try aggregator.apply(Helpers.point(30))) == nil)
        for response in [
            Helpers.change("a", targets: [1]), Helpers.change("b", version: 2, targets: [1]),
            Helpers.change("c", targets: [1]), Self.change(.current, at: 31),
        ] {
            #expect(try aggregator.apply(response) == [])
        }
        #expect(Self.published(try aggregator.apply(Helpers.point(32))) == ["a", "b", "c"])
    }

    /// A CURRENT at or after the RESET (what the protocol promises) makes the target current as before.
    @Test func aCurrentAfterTheResetPublishes() throws {
        var aggregator = WatchChangeAggregator()
        aggregator.addTarget(1, ordering: Helpers.byName)
        for response in [
            Helpers.target(.add, [1]), Helpers.change("a", targets: [1]), Self.change(.reset, at: 20),
            Helpers.change("b", targets: [1]), Self.change(.current, at: 20),
        ] {
            #expect(try aggregator.apply(response) == [])
        }
        #expect(Self.published(try aggregator.apply(Helpers.point(21))) == ["b"])
    }
}
