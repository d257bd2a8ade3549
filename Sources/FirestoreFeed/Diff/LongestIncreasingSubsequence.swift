/// One longest strictly increasing subsequence of a list of integers, found by patience sorting.
///
/// ``SnapshotArrayDiff`` uses it to choose the retained elements that stay in place: the initial positions of
/// the retained elements, read in result order, form a list whose longest increasing subsequence is the
/// largest set of elements that keep their relative order, so every other retained element is a move and the
/// number of moves is minimal (`SnapshotArrayDiffFieldCaseTests.a4RotationIsOneMove`).
@usableFromInline
enum LongestIncreasingSubsequence {
    /// The positions (into `values`, ascending) of one longest strictly increasing subsequence of `values`.
    ///
    /// Among several longest subsequences it returns the one whose members sit latest in `values`: read
    /// backwards, each member is the last position that still ends a chain of the needed length. For
    /// ``SnapshotArrayDiff`` this means that when two elements swap, the one now further to the front is the
    /// one reported as moved (`[b,a] → [a,b]` moves `a`, as FirebaseUI does; `SnapshotArrayDiffFieldCaseTests.a2...`
    /// moves `B`).
    ///
    /// - Complexity: O(n log n) time and O(n) extra memory at worst; O(n) when `values` is already mostly
    ///   increasing (a value larger than the current longest chain's end is appended without a search).
    ///   Iterative: no recursion, no stack growth with n.
    @usableFromInline
    static func positions(in values: [Int]) -> [Int] {
        guard !values.isEmpty else { return [] }
        // tails[k]: the position of the latest (and smallest-valued) element ending a chain of length k + 1.
        var tails: [Int] = []
        tails.reserveCapacity(values.count)
        // predecessor[p]: the position before p in the chain that p ends, or -1.
        var predecessor = [Int](repeating: -1, count: values.count)
        for position in values.indices {
            let value = values[position]
            if let last = tails.last {
                if values[last] < value {
                    predecessor[position] = last
                    tails.append(position)
                    continue
                }
                // The first chain length whose end is >= value: that end is replaced by this position.
                var low = 0
                var high = tails.count - 1
                while low < high {
                    let middle = low + (high - low) / 2
                    if values[tails[middle]] < value { low = middle + 1 } else { high = middle }
                }
                tails[low] = position
                predecessor[position] = low > 0 ? tails[low - 1] : -1
            } else {
                tails.append(position)
            }
        }
        var chain = [Int](repeating: 0, count: tails.count)
        var cursor = tails[tails.count - 1]
        for slot in stride(from: chain.count - 1, through: 0, by: -1) {
            chain[slot] = cursor
            cursor = predecessor[cursor]
        }
        return chain
    }
}
