import FirestoreFeed
import FirestoreREST
import FirestoreTesting
import Testing

/// A target's ordered list when many changes arrive between two snapshot points (merged in one pass) against the same
/// changes applied a few at a time (placed one by one), over seeded random rounds of additions, modifications that
/// move or keep their place, unchanged versions and removals, ordered by field `a` (with ties) then name.
@Suite(.timeLimit(.minutes(2))) struct WatchTargetStateMergeTests {
    static let byA: DocumentOrdering = {
        guard let field = try? FieldPath(["a"]) else { return DocumentOrdering(orders: []) }
        return DocumentOrdering(orders: [QueryOrder(field: field, descending: false)])
    }()

    static func document(_ id: Int, a: Int, version: Int) -> Document {
        let time = (try? Timestamp(seconds: Int64(version), nanos: 0)) ?? .minimum
        return Document(
            name: "projects/p/databases/(default)/documents/C/d\(id)", fields: ["a": .integer(Int64(a))],
            createTime: .minimum, updateTime: time)
    }

    /// The documents of `state` in the ordering's order, as a reference sort gives them.
    static func sorted(_ state: WatchTargetState) -> [String] {
        state.documents.values.sorted { byA.compare($0, $1) < 0 }.map(\.name)
    }

    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8])
    func manyChangesMergedGiveTheListOneByOnePlacementGives(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        var merged = WatchTargetState(ordering: Self.byA, limit: nil)
        var oneByOne = WatchTargetState(ordering: Self.byA, limit: nil)
        var versions: [Int: Int] = [:]
        for round in 1...12 {
            var changes: [(name: ByteExactName, document: Document?)] = []
            var touched: Set<Int> = []
            for _ in 0..<(round == 1 ? 200 : 1 + random.below(60)) {
                let id = random.below(300)
                guard touched.insert(id).inserted else { continue }
                let name = ByteExactName(name: Self.document(id, a: 0, version: 0).name)
                if versions[id] != nil, random.below(4) == 0 {
                    versions[id] = nil
                    changes.append((name, nil))
                } else {
                    // A third of the versions are unchanged (same update time: not applied).
                    let version = (versions[id] ?? 0) + (random.below(3) == 0 ? 0 : 1)
                    versions[id] = max(version, 1)
                    changes.append((name, Self.document(id, a: random.below(20), version: max(version, 1))))
                }
            }
            for (name, document) in changes { merged.pending[name] = .some(document) }
            let published = merged.applyPending(readTime: nil)
            #expect(published?.mismatch == nil)
            for start in stride(from: 0, to: changes.count, by: WatchTargetState.placedOneByOne) {
                for (name, document) in changes[start..<min(start + WatchTargetState.placedOneByOne, changes.count)] {
                    oneByOne.pending[name] = .some(document)
                }
                _ = oneByOne.applyPending(readTime: nil)
            }
            #expect(merged.ordered.map(\.name) == Self.sorted(merged), "round \(round)")
            #expect(merged.ordered == oneByOne.ordered, "round \(round)")
            #expect(merged.documents == oneByOne.documents, "round \(round)")
        }
    }
}
