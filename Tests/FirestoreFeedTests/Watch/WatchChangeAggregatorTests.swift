import FirestoreFeed
import FirestoreREST
import Testing

/// The watch change aggregator beyond the single-target conformance files: many targets on one stream, targets
/// that are not current, resume tokens that only count once their changes are applied, existence filters with
/// and without a bloom filter, and the client's own removals.
@Suite(.timeLimit(.minutes(2))) struct WatchChangeAggregatorTests {
    static let root = "projects/p/databases/(default)/documents/C/"
    static let byName = DocumentOrdering(orders: [])

    static func document(_ id: String, version: Int64 = 1) -> Document {
        let time = (try? Timestamp(seconds: version, nanos: 0)) ?? .maximum
        return Document(name: root + id, fields: ["v": .integer(version)], createTime: time, updateTime: time)
    }

    static func change(_ id: String, version: Int64 = 1, targets: [Int32]) -> ListenResponse {
        .documentChange(ListenDocumentChange(document: document(id, version: version), targetIDs: targets))
    }

    static func target(_ kind: ListenTargetChange.Kind, _ ids: [Int32] = [], token: [UInt8]? = nil) -> ListenResponse {
        .targetChange(ListenTargetChange(kind: kind, targetIDs: ids, resumeToken: token))
    }

    static func point(_ seconds: Int64) -> ListenResponse {
        .targetChange(ListenTargetChange(kind: .noChange, readTime: try? Timestamp(seconds: seconds, nanos: 0)))
    }

    /// The IDs of each published snapshot, by target.
    static func published(_ events: [WatchEvent]) -> [Int32: [String]] {
        var result: [Int32: [String]] = [:]
        for case .snapshot(let id, let documents, _, _) in events {
            result[id] = documents.map(\.id)
        }
        return result
    }

    @Test func twoTargetsPublishAtTheSameSnapshotPointEachWithItsOwnDocuments() throws {
        var aggregator = WatchChangeAggregator()
        aggregator.addTarget(1, ordering: Self.byName)
        aggregator.addTarget(2, ordering: Self.byName)
        for response in [
            Self.target(.add, [1, 2]), Self.change("a", targets: [1]), Self.change("b", targets: [1, 2]),
            Self.target(.current, [1, 2]),
        ] {
            #expect(try aggregator.apply(response) == [])
        }
        #expect(Self.published(try aggregator.apply(Self.point(10))) == [1: ["a", "b"], 2: ["b"]])
        // b leaves target 2 only; a is unchanged (same update time): only target 2 publishes.
        _ = try aggregator.apply(
            .documentChange(ListenDocumentChange(document: Self.document("b"), targetIDs: [1], removedTargetIDs: [2])))
        _ = try aggregator.apply(Self.change("a", targets: [1]))
        #expect(Self.published(try aggregator.apply(Self.point(11))) == [2: []])
    }

    @Test func aTargetThatIsNotCurrentWaitsForCurrentAndTheNextPoint() throws {
        var aggregator = WatchChangeAggregator()
        aggregator.addTarget(1, ordering: Self.byName)
        aggregator.addTarget(2, ordering: Self.byName)
        _ = try aggregator.apply(Self.change("a", targets: [1, 2]))
        _ = try aggregator.apply(Self.target(.current, [1]))
        #expect(Self.published(try aggregator.apply(Self.point(10))) == [1: ["a"]])
        _ = try aggregator.apply(Self.target(.current, [2]))
        #expect(Self.published(try aggregator.apply(Self.point(11))) == [2: ["a"]])
    }

    @Test func aResumeTokenCountsOnlyOnceItsChangesAreApplied() throws {
        var aggregator = WatchChangeAggregator()
        aggregator.addTarget(1, ordering: Self.byName)
        _ = try aggregator.apply(Self.change("a", targets: [1]))
        _ = try aggregator.apply(Self.target(.current, [1], token: [0x01]))
        #expect(aggregator.targets[1]?.resumeToken == nil)
        _ = try aggregator.apply(Self.point(10))
        #expect(aggregator.targets[1]?.resumeToken == [0x01])
        // A token with changes still unapplied when the stream drops is forgotten; the applied one stays.
        _ = try aggregator.apply(Self.change("b", targets: [1]))
        _ = try aggregator.apply(Self.target(.noChange, [1], token: [0x02]))
        aggregator.streamDropped()
        #expect(aggregator.targets[1]?.resumeToken == [0x01])
        #expect(aggregator.targets[1]?.pending.isEmpty == true)
        #expect(aggregator.targets[1]?.isCurrent == false)
        // The resumed stream sends b again; after CURRENT and a point, b is published once.
        _ = try aggregator.apply(Self.change("b", targets: [1]))
        _ = try aggregator.apply(Self.target(.current, [1], token: [0x03]))
        let events = try aggregator.apply(Self.point(12))
        #expect(Self.published(events) == [1: ["a", "b"]])
        guard case .snapshot(_, _, .computed(let changes), _)? = events.first else {
            Issue.record("no snapshot with computed changes in \(events)")
            return
        }
        #expect(changes.map(\.document.id) == ["b"])
        #expect(changes.map(\.type) == [.added])
        #expect(aggregator.targets[1]?.resumeToken == [0x03])
    }

    @Test func aResumedStreamsStalePointPublishesNothingUntilItPassesThePublishedReadTime() throws {
        var aggregator = WatchChangeAggregator()
        aggregator.addTarget(1, ordering: Self.byName)
        _ = try aggregator.apply(Self.change("a", version: 1, targets: [1]))
        _ = try aggregator.apply(Self.target(.current, [1], token: [0x01]))
        _ = try aggregator.apply(Self.point(10))
        _ = try aggregator.apply(Self.change("a", version: 5, targets: [1]))
        _ = try aggregator.apply(Self.point(20))
        aggregator.streamDropped()
        // Resumed from the token of time 10, the server resends a's version 1 and calls time 15 a snapshot point:
        // publishing it would put version 1 under a time after version 5 was written.
        _ = try aggregator.apply(Self.change("a", version: 1, targets: [1]))
        _ = try aggregator.apply(Self.target(.current, [1], token: [0x02]))
        #expect(try aggregator.apply(Self.point(15)) == [])
        #expect(aggregator.targets[1]?.readTime == (try Timestamp(seconds: 20, nanos: 0)))
        #expect(aggregator.targets[1]?.resumeToken == [0x01])
        // The stream passes time 20 with version 5 again and then version 7: one snapshot, a modified to 7.
        _ = try aggregator.apply(Self.change("a", version: 5, targets: [1]))
        _ = try aggregator.apply(Self.change("a", version: 7, targets: [1]))
        let events = try aggregator.apply(Self.point(25))
        guard case .snapshot(_, let documents, .computed(let changes), let readTime)? = events.first else {
            Issue.record("no snapshot in \(events)")
            return
        }
        #expect(documents.map { $0.fields["v"] } == [.integer(7)])
        #expect(changes.map(\.type) == [.modified])
        #expect(readTime == (try Timestamp(seconds: 25, nanos: 0)))
        #expect(aggregator.targets[1]?.resumeToken == [0x02])
    }

    @Test func anExistenceFilterSettledByItsBloomFilterRemovesTheMissingDocument() throws {
        var aggregator = WatchChangeAggregator()
        aggregator.addTarget(1, ordering: Self.byName)
        for id in ["a", "b", "c"] { _ = try aggregator.apply(Self.change(id, targets: [1])) }
        _ = try aggregator.apply(Self.target(.current, [1]))
        _ = try aggregator.apply(Self.point(10))
        // Bits for C/a and C/b (29 bits, 3 hashes; computed with Python's hashlib.md5 by the rule of
        // BloomFilterMembership): C/c is not in it.
        let bloom = ListenBloomFilter(bitmap: [33, 16, 129, 0], padding: 3, hashCount: 3)
        let events = try aggregator.apply(.filter(ListenExistenceFilter(targetID: 1, count: 2, unchangedNames: bloom)))
        #expect(events == [])
        let snapshot = try aggregator.apply(Self.point(11))
        #expect(Self.published(snapshot) == [1: ["a", "b"]])
    }

    @Test func anExistenceFilterThatStillDisagreesAsksForARelisten() throws {
        var aggregator = WatchChangeAggregator()
        aggregator.addTarget(1, ordering: Self.byName)
        for id in ["a", "b", "c"] { _ = try aggregator.apply(Self.change(id, targets: [1])) }
        _ = try aggregator.apply(Self.target(.current, [1], token: [0x01]))
        _ = try aggregator.apply(Self.point(10))
        #expect(
            try aggregator.apply(.filter(ListenExistenceFilter(targetID: 1, count: 1))) == [
                .targetNeedsRelisten(
                    targetID: 1,
                    reason: "target 1: the server's existence filter counts 1, the client's view holds 3; listening to "
                        + "it again from scratch")
            ])
        // Listened to again as target 2: the published view is kept, the resume token is not; the new target's
        // documents are diffed against it.
        aggregator.moveTarget(from: 1, to: 2)
        #expect(aggregator.targets[2]?.resumeToken == nil)
        #expect(aggregator.targets[2]?.published.map(\.id) == ["a", "b", "c"])
        _ = try aggregator.apply(Self.change("b", targets: [2]))
        _ = try aggregator.apply(Self.target(.current, [2]))
        let events = try aggregator.apply(Self.point(11))
        #expect(Self.published(events) == [2: ["b"]])
        guard case .snapshot(_, _, .computed(let changes), _)? = events.first else {
            Issue.record("no snapshot with computed changes in \(events)")
            return
        }
        #expect(changes.map(\.type) == [.removed, .removed])
        #expect(changes.map(\.document.id) == ["a", "c"])
    }

    @Test func theClientsOwnRemovalIsAcknowledgedAndAnotherIsAnError() throws {
        var aggregator = WatchChangeAggregator()
        aggregator.addTarget(1, ordering: Self.byName)
        aggregator.addTarget(2, ordering: Self.byName)
        aggregator.removeTarget(1)
        #expect(try aggregator.apply(Self.target(.remove, [1])) == [])
        let cause = RPCStatus(code: 7, message: "Missing or insufficient permissions.")
        let events = try aggregator.apply(
            .targetChange(ListenTargetChange(kind: .remove, targetIDs: [2], cause: cause)))
        #expect(
            events == [
                .targetFailed(
                    targetID: 2,
                    error: try #require(cause.error))
            ])
        #expect(cause.error?.code == .permissionDenied)
        #expect(cause.error?.message == "Missing or insufficient permissions.")
        #expect(aggregator.targets.isEmpty)
        // Messages for a removed target are ignored; an ADD of a target never asked for is a protocol error.
        #expect(try aggregator.apply(Self.change("a", targets: [1])) == [])
        #expect(throws: FirestoreError.self) { try aggregator.apply(Self.target(.add, [9])) }
    }

    @Test func bloomFilterMembershipFollowsTheMD5Rule() throws {
        let membership = try #require(
            BloomFilterMembership(ListenBloomFilter(bitmap: [33, 16, 129, 0], padding: 3, hashCount: 3)))
        #expect(
            ["a", "b", "c", "d", "e", "x"].map { membership.mightContain(Self.root + $0) }
                == [true, true, false, false, false, false])
        #expect(!membership.mightContain(""))
        let empty = try #require(BloomFilterMembership(ListenBloomFilter(bitmap: [], padding: 0, hashCount: 3)))
        #expect(!empty.mightContain(Self.root + "a"))
        #expect(BloomFilterMembership(ListenBloomFilter(bitmap: [0xFF], padding: 8, hashCount: 1)) == nil)
        #expect(BloomFilterMembership(ListenBloomFilter(bitmap: [], padding: 1, hashCount: 1)) == nil)
    }
}
