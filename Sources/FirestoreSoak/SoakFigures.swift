import FirestoreREST
import Foundation

/// What a soak run measured, its verdict, and how it is printed.
struct SoakFigures {
    var polls = 0
    var writerSteps = 0
    var writerError: String?
    var failedPolls: [String: Int] = [:]
    var proxyRequests: [String: Int] = [:]
    var snapshots = 0
    var changes: [DocumentChangeType: Int] = [:]
    var spurious: [String] = []
    var feedList: [String] = []
    var directList: [String] = []
    var feedError: String?
    var memoryBaselinePolls = 100
    var memoryAtBaseline: Int?
    var memoryAtEnd = 0
    var memorySeries: [Int] = []
    var memoryTolerancePercent = 10.0
    var seconds = 0.0

    /// Change of resident memory from the baseline (poll 100) to the end, percent; `nil` without a baseline.
    var memoryGrowthPercent: Double? {
        guard let base = memoryAtBaseline, base > 0 else { return nil }
        return (Double(memoryAtEnd) - Double(base)) / Double(base) * 100
    }

    var faults: Int { proxyRequests.filter { $0.key != "none" }.values.reduce(0, +) }

    /// Every failed check, in words; empty when the run passed.
    func failures(requiredPolls: Int) -> [String] {
        var result: [String] = []
        if let feedError { result.append("feed: \(feedError)") }
        if let writerError { result.append("writer: \(writerError)") }
        if polls < requiredPolls { result.append("only \(polls) polls of \(requiredPolls)") }
        if feedList != directList {
            result.append(
                "final snapshot (\(feedList.count) documents) differs from the direct query (\(directList.count))")
        }
        if !spurious.isEmpty { result.append("\(spurious.count) spurious changes: \(spurious.prefix(5))") }
        if ResidentMemory.sanitizer != nil {
            // Not judged: see ResidentMemory.sanitizer.
        } else if let growth = memoryGrowthPercent {
            if abs(growth) > memoryTolerancePercent {
                result.append(
                    String(
                        format: "resident memory changed by %.1f %% (limit %.0f %%)", growth,
                        memoryTolerancePercent))
            }
        } else {
            result.append("no resident memory sample after \(memoryBaselinePolls) polls")
        }
        if !proxyRequests.isEmpty && faults == 0 { result.append("the proxy injected no fault") }
        return result
    }

    /// The figures as `soak: NAME  VALUE` lines.
    func lines() -> [String] {
        func sorted(_ counts: [String: Int]) -> String {
            counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        }
        let total = proxyRequests.values.reduce(0, +)
        var lines: [String] = []
        lines.append(
            "polls                 \(polls) (runQuery requests through the proxy) in "
                + String(format: "%.1f s", seconds) + ", \(writerSteps) writer steps")
        if total > 0 {
            let share = Double(faults) / Double(total) * 100
            lines.append(
                "requests faulted      \(faults) of \(total) (" + String(format: "%.1f %%", share) + "): "
                    + sorted(proxyRequests.filter { $0.key != "none" }))
        }
        lines.append("failed polls          \(failedPolls.values.reduce(0, +)) (\(sorted(failedPolls)))")
        lines.append("snapshots             \(snapshots)")
        lines.append(
            "changes               added \(changes[.added] ?? 0), modified \(changes[.modified] ?? 0), "
                + "removed \(changes[.removed] ?? 0)")
        lines.append(
            "final snapshot        "
                + (feedList == directList
                    ? "equals a direct query (\(directList.count) documents)"
                    : "DIFFERS from a direct query (feed \(feedList.count), direct \(directList.count) documents)"))
        lines.append("spurious changes      \(spurious.count)")
        let base = memoryAtBaseline.map(ResidentMemory.describe) ?? "?"
        let growth = memoryGrowthPercent.map { String(format: "%+.1f %%", $0) } ?? "?"
        lines.append(
            "resident memory       after \(memoryBaselinePolls) polls \(base), at the end "
                + "\(ResidentMemory.describe(memoryAtEnd)) (\(growth), "
                + (ResidentMemory.sanitizer.map { "not judged under \($0)" } ?? "limit \(Int(memoryTolerancePercent)) %")
                + ")")
        lines.append(
            "memory samples        "
                + memorySeries.map { String(format: "%.1f", Double($0) / 1_048_576) }
                .joined(separator: " ") + " MiB (at the baseline, then every 100 polls)")
        return lines.map { "soak: " + $0 }
    }

    /// One JSON object with the figures, for scripts.
    func json(passed: Bool) -> String {
        var members: [String: JSONValue] = [
            "polls": .integer(Int64(polls)), "snapshots": .integer(Int64(snapshots)),
            "faults": .integer(Int64(faults)), "spuriousChanges": .integer(Int64(spurious.count)),
            "finalEqualsDirectQuery": .bool(feedList == directList), "documents": .integer(Int64(directList.count)),
            "baselinePolls": .integer(Int64(memoryBaselinePolls)),
            "residentBytesAtBaseline": .integer(Int64(memoryAtBaseline ?? 0)),
            "residentBytesAtEnd": .integer(Int64(memoryAtEnd)), "passed": .bool(passed),
            "seconds": .double((seconds * 10).rounded() / 10),
        ]
        members["faultsByKind"] = .object(proxyRequests.filter { $0.key != "none" }.mapValues { .integer(Int64($0)) })
        members["failedPollsByCode"] = .object(failedPolls.mapValues { .integer(Int64($0)) })
        return JSONValue.object(members).serializedString()
    }
}
