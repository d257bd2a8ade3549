import Foundation

// fuzz-modules: FirestoreWire FirestoreREST FirestoreFeed
// fuzz-seeds: none
@testable import FirestoreFeed

// Fuzz target SnapshotArrayDiffApply: random pairs of lists -> `SnapshotArrayDiff(initial:result:...)`,
// checked against the rules its documentation states.
//
// Input: byte 0 is the length of the first list (mod 65), then one byte per element, then the second list
// the same way. An element's identity is its low 4 bits (so identities repeat), its content the high 4 bits.
// Checks, besides "no crash, no leak, no hang":
// - valid as a batch update: every index in range, no index twice within a category, ascending where
//   promised, no initial index both deleted and moved from, no result index both inserted and moved to,
//   initial.count - deleted - moved == result.count - inserted - moved;
// - the apply rule: remove deleted and moved-from elements; place inserted (result[i]) and moved
//   (initial[from]) elements at their result positions; fill the other positions with the remaining elements
//   in order; replace each changed element by result[changedResultIndexes[k]]: the list equals `result`;
// - minimal moves when identities are unique: moves == retained - longest increasing subsequence.

struct FuzzElement: Equatable {
    let identity: UInt8
    let content: UInt8
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSnapshotArrayDiff(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var bytes = UnsafeBufferPointer(start: data, count: size)[...]
    func list() -> [FuzzElement] {
        guard let count = bytes.popFirst() else { return [] }
        return (0..<Int(count) % 65).compactMap { _ in
            bytes.popFirst().map { FuzzElement(identity: $0 & 0x0F, content: $0 >> 4) }
        }
    }
    let initial = list()
    let result = list()
    let diff = SnapshotArrayDiff(
        initial: initial, result: result, identity: \.identity,
        contentEquals: { $0.content == $1.content })

    func checkIndexes(_ indexes: [Int], below count: Int, ascending: Bool, _ name: String) {
        fuzzCheck(indexes.allSatisfy { $0 >= 0 && $0 < count }, "\(name) out of range: \(indexes)")
        fuzzCheck(Set(indexes).count == indexes.count, "\(name) repeats an index: \(indexes)")
        if ascending { fuzzCheck(indexes == indexes.sorted(), "\(name) not ascending: \(indexes)") }
    }
    checkIndexes(diff.deletedIndexes, below: initial.count, ascending: true, "deletedIndexes")
    checkIndexes(diff.insertedIndexes, below: result.count, ascending: true, "insertedIndexes")
    checkIndexes(diff.movedInitialIndexes, below: initial.count, ascending: false, "movedInitialIndexes")
    checkIndexes(diff.movedResultIndexes, below: result.count, ascending: true, "movedResultIndexes")
    checkIndexes(diff.changedIndexes, below: initial.count, ascending: true, "changedIndexes")
    checkIndexes(diff.changedResultIndexes, below: result.count, ascending: false, "changedResultIndexes")
    fuzzCheck(diff.movedInitialIndexes.count == diff.movedResultIndexes.count, "moves not parallel")
    fuzzCheck(diff.changedIndexes.count == diff.changedResultIndexes.count, "changes not parallel")
    fuzzCheck(Set(diff.deletedIndexes).isDisjoint(with: diff.movedInitialIndexes), "deleted and moved from")
    fuzzCheck(Set(diff.insertedIndexes).isDisjoint(with: diff.movedResultIndexes), "inserted and moved to")
    let moves = diff.movedInitialIndexes.count
    fuzzCheck(
        initial.count - diff.deletedIndexes.count - moves == result.count - diff.insertedIndexes.count - moves,
        "counts do not balance")

    // The apply rule.
    let removed = Set(diff.deletedIndexes).union(diff.movedInitialIndexes)
    var remaining = initial.indices.filter { !removed.contains($0) }.map { initial[$0] }[...]
    var applied = [FuzzElement?](repeating: nil, count: result.count)
    for position in diff.insertedIndexes { applied[position] = result[position] }
    for (from, to) in zip(diff.movedInitialIndexes, diff.movedResultIndexes) { applied[to] = initial[from] }
    for position in applied.indices where applied[position] == nil {
        guard let next = remaining.popFirst() else {
            fuzzCheck(false, "too few elements to fill position \(position)")
            return 0
        }
        applied[position] = next
    }
    fuzzCheck(remaining.isEmpty, "elements left over after applying")
    for position in diff.changedResultIndexes { applied[position] = result[position] }
    fuzzCheck(applied == result.map { Optional($0) }, "applying the diff does not give the result")

    // Minimal moves for unique identities: retained - LIS of initial positions in result order.
    let initialIDs = initial.map(\.identity)
    let resultIDs = result.map(\.identity)
    if Set(initialIDs).count == initialIDs.count, Set(resultIDs).count == resultIDs.count {
        let positions = resultIDs.compactMap { initialIDs.firstIndex(of: $0) }
        var longest = [Int](repeating: 1, count: positions.count)
        for i in positions.indices {
            for j in 0..<i where positions[j] < positions[i] { longest[i] = max(longest[i], longest[j] + 1) }
        }
        let lis = longest.max() ?? 0
        fuzzCheck(moves == positions.count - lis, "\(moves) moves, minimal is \(positions.count - lis)")
    }
    return 0
}
