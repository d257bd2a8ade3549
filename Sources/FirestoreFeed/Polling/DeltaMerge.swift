import FirestoreREST

/// The pure part of a delta poll: the previous result merged with the documents changed since the watermark, and
/// what the `count()` at the same `readTime` must say for the merge to be the exact new result.
///
/// Why the count decides: every document that matches the query now and changed since the watermark is in
/// `changed`; every other document that matches now is unchanged since the previous poll, so it was in the
/// previous result (or, for a full `limit` window, beyond its edge, where it stays). So the documents that match
/// now (up to the edge) number exactly the merged view's unless one of the previous documents left the result;
/// a count that differs means one did, and the poll scans.
package enum DeltaMerge {
    /// The merge of one delta poll.
    package struct Outcome: Sendable, Equatable {
        /// The new result, in query order, limit applied, when the count confirms it.
        package var documents: [Document]
        /// How many documents the count must find.
        package var expectedCount: Int
        /// The edge the count ends at (inclusive, in the sent orientation), or `nil` to count the whole query.
        package var edge: Document?
        /// Whether a change may have moved the window's edge, so documents beyond it may come in: the result is
        /// unknown without a scan.
        package var edgeMoved: Bool
        /// Changed documents that were already known at the same `updateTime` (found again inside the margin).
        package var rereads: Int
    }

    /// Merges `changed` into `previous`.
    ///
    /// - Parameters:
    ///   - previous: the previous result in query order, limit applied.
    ///   - changed: the documents of the query (no limit) whose tracking field is at or after the watermark, any
    ///     order; repeated names count once.
    ///   - ordering: the query's ordering.
    ///   - limit: the query's limit, or `nil`.
    /// - Complexity: O(n + c log c) for n previous and c changed documents.
    package static func merge(
        previous: [Document], changed: [Document], ordering: DocumentOrdering, limit: DocumentLimit?
    ) -> Outcome {
        let known = PollFetcher.index(previous)
        var rereads = 0
        var incoming: [Document] = []
        var seen: Set<ByteExactName> = []
        var replaced: Set<ByteExactName> = []
        for document in changed {
            let name = ByteExactName(name: document.name)
            guard seen.insert(name).inserted else { continue }
            if let old = known[name], old.updateTime == document.updateTime, old.updateTime != nil {
                rereads += 1
                continue
            }
            replaced.insert(name)
            incoming.append(document)
        }
        incoming.sort(by: ordering.areInIncreasingOrder)
        // The previous documents that did not change (re-read ones included), then one merge pass with the
        // changed ones.
        var merged: [Document] = []
        merged.reserveCapacity(previous.count + incoming.count)
        var next = incoming.startIndex
        for document in previous where !replaced.contains(ByteExactName(name: document.name)) {
            while next < incoming.endIndex, ordering.compare(incoming[next], document) < 0 {
                merged.append(incoming[next])
                next += 1
            }
            merged.append(document)
        }
        merged.append(contentsOf: incoming[next...])
        switch limit {
        case nil:
            return Outcome(
                documents: merged, expectedCount: merged.count, edge: nil, edgeMoved: false, rereads: rereads)
        case .first(let n)?:
            guard previous.count >= n, n > 0, let edge = previous.dropLast(previous.count - n).last else {
                return Outcome(
                    documents: Array(merged.prefix(n)), expectedCount: merged.count, edge: nil, edgeMoved: false,
                    rereads: rereads)
            }
            let within = merged.prefix { ordering.compare($0, edge) <= 0 }.count
            return Outcome(
                documents: Array(merged.prefix(n)), expectedCount: within, edge: edge, edgeMoved: within < n,
                rereads: rereads)
        case .last(let n)?:
            guard previous.count >= n, n > 0, let edge = previous.dropFirst(previous.count - n).first else {
                return Outcome(
                    documents: Array(merged.suffix(n)), expectedCount: merged.count, edge: nil, edgeMoved: false,
                    rereads: rereads)
            }
            let within = merged.reversed().prefix { ordering.compare($0, edge) >= 0 }.count
            return Outcome(
                documents: Array(merged.suffix(n)), expectedCount: within, edge: edge, edgeMoved: within < n,
                rereads: rereads)
        }
    }
}
