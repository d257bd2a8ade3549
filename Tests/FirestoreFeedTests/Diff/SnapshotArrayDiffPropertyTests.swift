import FirestoreFeed
import FirestoreTesting
import Testing

/// 10,500 seeded random pairs (sizes 0-200; repeated identities, empty, identical, reversed, permuted, edited),
/// each checked against rules computed here independently of the code under test:
/// - deletions, insertions and changes are exactly those of the pairing rule (k-th occurrence with k-th);
/// - every move joins a paired initial and result position;
/// - the validity rules hold and applying the diff to `initial` gives `result` (``DiffChecks``);
/// - minimality: moves == retained - (longest increasing subsequence length, by O(n²) dynamic programming).
@Suite(.timeLimit(.minutes(2))) struct SnapshotArrayDiffPropertyTests {
    enum Kind: Int, CaseIterable {
        case repeatedIdentities, edited, empty, identical, reversed, permuted, fewRepeats
    }

    static let pairsPerKind = 1_500

    @Test func seededPairsFollowEveryRule() {
        var rng = SplitMix64(state: 20_240_501)
        var failures: [String] = []
        var seen = Coverage()
        for kind in Kind.allCases {
            for _ in 0..<Self.pairsPerKind {
                let (initial, result) = Self.makePair(kind, &rng)
                seen.note(initial, result, kind)
                let diff = SnapshotArrayDiff(initial: initial, result: result)
                let problems = Self.problems(diff)
                if !problems.isEmpty && failures.count < 5 {
                    let shown =
                        initial.count + result.count <= 40
                        ? "\(initial) -> \(result)" : "\(initial.count) -> \(result.count) elements"
                    failures.append("\(kind) \(shown): \(problems.joined(separator: "; "))")
                }
            }
        }
        #expect(failures == [])
        // The generator really produced the shapes the issue lists.
        #expect(seen.pairs == 10_500)
        #expect(seen.withRepeats >= 1_500)
        #expect(seen.emptyInitial >= 500 && seen.emptyResult >= 500)
        #expect(seen.identical >= 1_500)
        #expect(seen.reversed >= 1_500)
        #expect(seen.largest == 200 && seen.smallest == 0)
        #expect(seen.withMoves >= 3_000)
    }

    struct Coverage {
        var pairs = 0, withRepeats = 0, emptyInitial = 0, emptyResult = 0, identical = 0, reversed = 0
        var withMoves = 0, largest = 0, smallest = Int.max
        mutating func note(_ initial: [Item], _ result: [Item], _ kind: Kind) {
            pairs += 1
            if Set(initial.map(\.id)).count < initial.count || Set(result.map(\.id)).count < result.count {
                withRepeats += 1
            }
            if initial.isEmpty { emptyInitial += 1 }
            if result.isEmpty { emptyResult += 1 }
            if initial == result { identical += 1 }
            if initial.count > 1 && initial.reversed() == result.map({ Item($0.id) }) { reversed += 1 }
            if kind == .permuted || kind == .edited || kind == .reversed { withMoves += 1 }
            largest = max(largest, initial.count, result.count)
            smallest = min(smallest, initial.count, result.count)
        }
    }

    static func makePair(_ kind: Kind, _ rng: inout SplitMix64) -> ([Item], [Item]) {
        func unique(_ count: Int, _ prefix: String) -> [Item] { (0..<count).map { Item("\(prefix)\($0)") } }
        func shuffled(_ items: [Item]) -> [Item] {
            var items = items
            for i in items.indices.dropLast() { items.swapAt(i, i + rng.below(items.count - i)) }
            return items
        }
        func bumpSome(_ items: [Item]) -> [Item] {
            items.map { rng.below(5) == 0 ? Item($0.id, $0.version + 1) : $0 }
        }
        let size = rng.below(201)
        switch kind {
        case .repeatedIdentities:
            let alphabet = rng.below(8) + 1
            func draw(_ count: Int) -> [Item] {
                (0..<count).map { _ in Item("r\(rng.below(alphabet))", rng.below(3)) }
            }
            return (draw(size), draw(rng.below(201)))
        case .edited:
            let initial = shuffled(unique(size, "u"))
            var result = bumpSome(initial.filter { _ in rng.below(6) != 0 })
            for _ in 0..<rng.below(max(1, size / 8) + 1) where !result.isEmpty {
                let element = result.remove(at: rng.below(result.count))
                result.insert(element, at: rng.below(result.count + 1))
            }
            for n in 0..<min(rng.below(max(1, size / 5) + 1), 200 - result.count) {
                result.insert(Item("new\(n)"), at: rng.below(result.count + 1))
            }
            return (initial, result)
        case .empty:
            let items = unique(size, "e")
            switch rng.below(3) {
            case 0: return ([], items)
            case 1: return (items, [])
            default: return ([], [])
            }
        case .identical:
            let items = (0..<size).map { _ in Item("i\(rng.below(size / 2 + 1))", rng.below(2)) }
            return (items, items)
        case .reversed:
            let items = unique(max(size, 2), "v")
            return (items, items.reversed())
        case .permuted:
            let items = unique(size, "p")
            return (items, bumpSome(shuffled(items)))
        case .fewRepeats:
            func draw(_ count: Int) -> [Item] {
                (0..<count).map { _ in Item("f\(rng.below(count * 2 + 1))", rng.below(2)) }
            }
            return (draw(size), draw(rng.below(201)))
        }
    }

    /// Every rule `diff` breaks; the expectations are derived here from the inputs alone.
    static func problems(_ diff: SnapshotArrayDiff<Item>) -> [String] {
        let initial = diff.initial
        let result = diff.result
        // Pairing rule: the k-th occurrence of an id in initial with its k-th occurrence in result.
        var positions: [String: [Int]] = [:]
        for (i, item) in initial.enumerated() { positions[item.id, default: []].append(i) }
        var used: [String: Int] = [:]
        var pairedInitialOfResult = [Int?](repeating: nil, count: result.count)
        var pairedResultOfInitial = [Int?](repeating: nil, count: initial.count)
        for (j, item) in result.enumerated() {
            let k = used[item.id, default: 0]
            if let list = positions[item.id], k < list.count {
                pairedInitialOfResult[j] = list[k]
                pairedResultOfInitial[list[k]] = j
                used[item.id] = k + 1
            }
        }
        let expectedDeleted = initial.indices.filter { pairedResultOfInitial[$0] == nil }
        let expectedInserted = result.indices.filter { pairedInitialOfResult[$0] == nil }
        let expectedChanged = initial.indices.compactMap { i -> [Int]? in
            guard let j = pairedResultOfInitial[i], initial[i].version != result[j].version else { return nil }
            return [i, j]
        }
        let retained = result.indices.compactMap { pairedInitialOfResult[$0] }
        var lengths = [Int](repeating: 1, count: retained.count)  // LIS ending at each position, O(n²)
        for a in retained.indices {
            for b in 0..<a where retained[b] < retained[a] { lengths[a] = max(lengths[a], lengths[b] + 1) }
        }
        let longest = lengths.max() ?? 0

        var problems = DiffChecks.problems(diff, same: ==)
        if diff.deletedIndexes != expectedDeleted {
            problems.append("deleted \(diff.deletedIndexes) != \(expectedDeleted)")
        }
        if diff.insertedIndexes != expectedInserted {
            problems.append("inserted \(diff.insertedIndexes) != \(expectedInserted)")
        }
        let changed = zip(diff.changedIndexes, diff.changedResultIndexes).map { [$0, $1] }
        if changed != expectedChanged { problems.append("changed \(changed) != \(expectedChanged)") }
        for (from, to) in zip(diff.movedInitialIndexes, diff.movedResultIndexes) where pairedResultOfInitial[from] != to
        {
            problems.append("move \(from)->\(to) joins unpaired positions")
        }
        if diff.movedResultIndexes != diff.movedResultIndexes.sorted() { problems.append("moves not in result order") }
        if diff.movedInitialIndexes.count != retained.count - longest {
            problems.append("\(diff.movedInitialIndexes.count) moves, minimal is \(retained.count - longest)")
        }
        return problems
    }
}
