/// The baseline: a plain O(N·M) longest-common-subsequence diff, as FUISnapshotArrayDiff computes one
/// (FirebaseUI-iOS `FUISnapshotArrayDiff.m`, without its memoised recursion): a full dynamic-programming table of
/// LCS lengths over identities, one backtrack, then retained elements outside the LCS are moves.
/// At N = M = 10,000 the table holds 10^8 32-bit entries (400 MB).
struct LCSDiff: CustomStringConvertible {
    var deletions = 0, insertions = 0, moves = 0, changes = 0

    init(initial: [DiffWorkload.Element], result: [DiffWorkload.Element]) {
        let n = initial.count
        let m = result.count
        let width = m + 1
        var table = [Int32](repeating: 0, count: (n + 1) * width)
        for i in stride(from: n - 1, through: 0, by: -1) {
            for j in stride(from: m - 1, through: 0, by: -1) {
                table[i * width + j] =
                    initial[i].id == result[j].id
                    ? table[(i + 1) * width + j + 1] + 1
                    : max(table[(i + 1) * width + j], table[i * width + j + 1])
            }
        }
        var inLCSInitial = [Bool](repeating: false, count: n)
        var inLCSResult = [Bool](repeating: false, count: m)
        var i = 0
        var j = 0
        while i < n && j < m {
            if initial[i].id == result[j].id {
                inLCSInitial[i] = true
                inLCSResult[j] = true
                i += 1
                j += 1
            } else if table[(i + 1) * width + j] >= table[i * width + j + 1] {
                i += 1
            } else {
                j += 1
            }
        }
        var unmatchedInitial: [String: Int] = [:]
        for k in 0..<n where !inLCSInitial[k] { unmatchedInitial[initial[k].id] = k }
        var pairedInitial = [Bool](repeating: false, count: n)
        var positionInInitial: [String: Int] = [:]
        for k in 0..<n { positionInInitial[initial[k].id] = k }
        for k in 0..<m {
            if inLCSResult[k] {
                if let from = positionInInitial[result[k].id], initial[from] != result[k] { changes += 1 }
            } else if let from = unmatchedInitial.removeValue(forKey: result[k].id) {
                moves += 1
                pairedInitial[from] = true
                if initial[from] != result[k] { changes += 1 }
            } else {
                insertions += 1
            }
        }
        for k in 0..<n where !inLCSInitial[k] && !pairedInitial[k] { deletions += 1 }
    }

    var description: String { "deletions \(deletions), insertions \(insertions), moves \(moves), changes \(changes)" }
}
