import FirestoreFeed
import FirestoreREST
import Foundation

/// `feed-100k` (issue 9): two consecutive snapshots of 100,000 documents with 1 % changed (500 modified in
/// place, 250 removed, 250 added) turned into `DocumentChange`s, against `SnapshotArrayDiff` on the diff
/// workload at the same N. Target: at most 2x.
enum FeedWorkload {
    static func run(count: Int) throws -> [Measurement] {
        let old = BenchmarkDocuments.documents(count)
        // 1 % changed: 0.5 % modified in place (a new updateTime and field value, same position), 0.25 %
        // removed and 0.25 % added (new names that sort right after existing ones).
        let stride = 200
        var next: [Document] = []
        next.reserveCapacity(count)
        for (index, document) in old.enumerated() {
            switch index % stride {
            case 0: next.append(BenchmarkDocuments.document(index, version: 1))
            case 100 where index % (2 * stride) == 100: continue
            case 150 where index % (2 * stride) == 150:
                next.append(document)
                var added = BenchmarkDocuments.document(index)
                added.name += "a"
                next.append(added)
            default: next.append(document)
            }
        }
        let ordering = DocumentOrdering(orders: [])
        let changes = DocumentChangeComputation.changes(from: old, to: next, ordering: ordering)
        let counts = (
            changes.filter { $0.type == .removed }.count, changes.filter { $0.type == .added }.count,
            changes.filter { $0.type == .modified }.count
        )
        print(
            "feed: \(changes.count) changes (removed \(counts.0), added \(counts.1), modified \(counts.2)) of \(count)")

        let (source, target) = DiffWorkload.make(n: count)
        var sink = 0
        let measurement = Harness.compare(
            workload: "feed-100k", n: count, baseline: "SnapshotArrayDiff (diff workload)",
            candidate: { sink &+= DocumentChangeComputation.changes(from: old, to: next, ordering: ordering).count },
            baselineBody: { sink &+= SnapshotArrayDiff(initial: source, result: target).movedInitialIndexes.count })
        // What the feed runs since issue 19: the same computation, then the replay that checks its changes rebuild
        // the server's list (information, not a target).
        let check = Harness.compare(
            workload: "feed-100k", n: count, baseline: "changes alone",
            candidate: {
                sink &+= DocumentChangeComputation.checkedChanges(from: old, to: next, ordering: ordering).changes.count
            },
            baselineBody: { sink &+= DocumentChangeComputation.changes(from: old, to: next, ordering: ordering).count })
        print(
            "feed-100k: with the replay check (checkedChanges) "
                + String(
                    format: "%.2f ms, changes alone %.2f ms: the check adds %.0f %%", check.medianSeconds * 1000,
                    check.baselineMedianSeconds * 1000, (check.ratio - 1) * 100))
        if sink == 42 { print("") }
        return [measurement]
    }
}
