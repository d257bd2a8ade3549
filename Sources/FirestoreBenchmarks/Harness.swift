import FirestoreREST
import Foundation

/// One workload's result: the median time of the code under test and of its baseline, measured in the same
/// run, interleaved.
struct Measurement {
    var workload: String
    /// Items per run (documents, rows, ...).
    var n: Int
    /// Median seconds per run of the code under test.
    var medianSeconds: Double
    /// What the workload is compared against.
    var baseline: String
    /// Median seconds per run of the baseline.
    var baselineMedianSeconds: Double
    /// The row's own target ratio, for workloads whose rows have different targets; else the workload's.
    var target: Double?
    /// `medianSeconds / baselineMedianSeconds`.
    var ratio: Double { baselineMedianSeconds > 0 ? medianSeconds / baselineMedianSeconds : .infinity }
}

/// The benchmark harness: warm-up runs, then repeated runs of the candidate and its baseline alternately (so
/// that drift in machine load hits both), medians, the ratio, and two output lines per workload: a table line
/// for people and one JSON line for tools:
/// `{"workload":"decode","n":10000,"median_s":0.01,"baseline":"JSONDecoder","baseline_median_s":0.01,"ratio":1.0}`.
enum Harness {
    /// Settings for every workload; `--runs N` and `--warmup N` on the command line change them.
    nonisolated(unsafe) static var runs = 11
    nonisolated(unsafe) static var warmup = 2

    /// Seconds one call of `body` takes.
    static func seconds(_ body: () throws -> Void) rethrows -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        try body()
        let elapsed = clock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    /// The median of `values` (the mean of the two middle ones for an even count).
    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    /// Measures `candidate` against `baseline`, each run ``warmup`` times unmeasured and then ``runs`` times
    /// alternately.
    static func compare(
        workload: String, n: Int, baseline: String, target: Double? = nil, candidate: () throws -> Void,
        baselineBody: () throws -> Void
    ) rethrows -> Measurement {
        try compareTimed(
            workload: workload, n: n, baseline: baseline, target: target,
            candidate: { try seconds(candidate) }, baselineBody: { try seconds(baselineBody) })
    }

    /// ``compare(workload:n:baseline:target:candidate:baselineBody:)`` for bodies that time themselves: each
    /// returns the seconds its run took by its own measure (a bare client's own timer, say, without its
    /// process's start-up), run ``warmup`` times unmeasured and then ``runs`` times alternately.
    static func compareTimed(
        workload: String, n: Int, baseline: String, target: Double? = nil, candidate: () throws -> Double,
        baselineBody: () throws -> Double
    ) rethrows -> Measurement {
        for _ in 0..<warmup {
            _ = try candidate()
            _ = try baselineBody()
        }
        var candidateTimes: [Double] = []
        var baselineTimes: [Double] = []
        for _ in 0..<max(runs, 1) {
            candidateTimes.append(try candidate())
            baselineTimes.append(try baselineBody())
        }
        return Measurement(
            workload: workload, n: n, medianSeconds: median(candidateTimes), baseline: baseline,
            baselineMedianSeconds: median(baselineTimes), target: target)
    }

    /// Records one goal's verdict for the report: prints the JSON line
    /// `{"goal":NAME,"figure":FIGURE,"target":TARGET,"met":true}` (Scripts/bench lists every such line in
    /// BENCHMARKS.md's "Goals" table) and returns `met` or `MISSED` for the workload's own table line.
    @discardableResult
    static func goal(_ name: String, figure: String, target: String, met: Bool) -> String {
        let fields = [("goal", name), ("figure", figure), ("target", target)].map {
            "\(JSONValue.string($0.0).serializedString()):\(JSONValue.string($0.1).serializedString())"
        }
        print("{" + fields.joined(separator: ",") + ",\"met\":\(met)}")
        return met ? "met" : "MISSED"
    }

    /// Prints the table line and the JSON line of `measurement`.
    static func report(_ measurement: Measurement, target: Double? = nil) {
        func ms(_ seconds: Double) -> String { String(format: "%.2f ms", seconds * 1000) }
        var line =
            "\(measurement.workload.padding(toLength: max(14, measurement.workload.count), withPad: " ", startingAt: 0))"
            + " n=\(measurement.n)"
            + "  median \(ms(measurement.medianSeconds))  \(measurement.baseline) \(ms(measurement.baselineMedianSeconds))"
            + "  ratio \(String(format: "%.2f", measurement.ratio))x"
        if let target {
            let verdict = goal(
                "\(measurement.workload) at \(measurement.n), against \(measurement.baseline)",
                figure: String(format: "%.2fx", measurement.ratio), target: "<= \(String(format: "%g", target))x",
                met: measurement.ratio <= target)
            line += "  (target <= \(String(format: "%g", target))x: \(verdict))"
        }
        print(line)
        // The names through the JSON printer: a baseline's text may hold a backslash or a quote (`psql \copy`).
        let workload = JSONValue.string(measurement.workload).serializedString()
        let baseline = JSONValue.string(measurement.baseline).serializedString()
        print(
            "{\"workload\":\(workload),\"n\":\(measurement.n),\"median_s\":\(measurement.medianSeconds),"
                + "\"baseline\":\(baseline),\"baseline_median_s\":\(measurement.baselineMedianSeconds),"
                + "\"ratio\":\(measurement.ratio)}")
    }
}
