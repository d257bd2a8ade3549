/// "Did you mean": the known words closest to a mistyped one (a command, an option).
package enum Suggestion {
    /// The words of `known` that `word` is most likely a mistyping of, best first: those at the smallest edit
    /// distance (insertions, deletions, substitutions and swaps of two neighbours, each 1) when that is at most 2
    /// (1 for a word of up to 4 characters), or else those that `word` begins (`--order` for `--order-by`), or else
    /// (for 5 characters or more) those whose beginning is one edit from `word` (`--ordr` for `--order-by`).
    /// Empty when none is close.
    /// - Complexity: O(`known.count` × `word.count` × the longest known word).
    package static func closest(to word: String, among known: [String]) -> [String] {
        let typed = Array(word.lowercased())
        let allowed = typed.count <= 4 ? 1 : 2
        let scored = known.map { (word: $0, distance: distance(typed, Array($0.lowercased()))) }
        if let best = scored.map(\.distance).min(), best <= allowed {
            return scored.filter { $0.distance == best }.map(\.word)
        }
        guard typed.count >= 3 else { return [] }
        let begun = known.filter { $0.count > word.count && $0.lowercased().hasPrefix(word.lowercased()) }
        guard begun.isEmpty, typed.count >= 5 else { return begun }
        // A mistyped beginning (`--ordr` for `--order-by`): one edit from the start of a longer word.
        return known.filter { candidate in
            let lowered = Array(candidate.lowercased())
            guard lowered.count > typed.count else { return false }
            return (typed.count - 1...typed.count + 1).contains { length in
                length <= lowered.count && distance(typed, Array(lowered.prefix(length))) == 1
            }
        }
    }

    /// ` (did you mean "watch"?)`, ` (did you mean --start-at or --start-after?)`, or empty: a suffix for an error
    /// message about `word`.
    package static func hint(for word: String, among known: [String], quoted: Bool = false) -> String {
        let words = closest(to: word, among: known).prefix(3).map { quoted ? "\"\($0)\"" : $0 }
        guard let last = words.last else { return "" }
        let list = words.count == 1 ? last : words.dropLast().joined(separator: ", ") + " or " + last
        return " (did you mean \(list)?)"
    }

    /// The optimal-string-alignment distance between `a` and `b`.
    private static func distance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var previous2 = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], previous2[j - 2] + 1)
                }
            }
            (previous2, previous, current) = (previous, current, previous2)
        }
        return previous[b.count]
    }
}
