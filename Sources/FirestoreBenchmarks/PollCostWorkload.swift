import FirestoreFeed
import FirestoreREST
import Foundation

/// `poll-cost` (issue 18): what Firestore would bill (the meter, `PollStatistics.billedReads`) for polling an
/// N-document query on the emulator, keys, full and delta mode measured in the same run, poll by poll
/// (`PollFetcher`, so each poll sees exactly the writes made before it): unchanged polls, polls after one
/// document changed, and a poll after one document was deleted (delta falls back to a keys scan). Targets:
/// delta at most 1 + ceil(N / 1,000) per unchanged poll, at most that + 1 plus its margin re-reads with one
/// change. Also the median latency and bytes of each mode's polls.
enum PollCostWorkload {
    /// One mode's polls in one scenario.
    struct Figures {
        var billed: [Int] = []
        var rereads: [Int] = []
        var bytes: [Int] = []
        var latencies: [Double] = []

        mutating func add(_ statistics: PollStatistics) {
            billed.append(statistics.billedReads)
            rereads.append(statistics.marginRereads)
            bytes.append(statistics.bytesReceived)
            latencies.append(ListenSupport.seconds(statistics.latency))
        }
        var maximum: Int { billed.max() ?? 0 }
        var medianLatency: Double { Harness.median(latencies) }
        var medianBytes: Int { Int(Harness.median(bytes.map(Double.init))) }
    }

    static func run(documents: Int, polls: Int) throws -> [Measurement] {
        guard let host = ListenSupport.emulatorHost(workload: "poll-cost") else { return [] }
        let db = try Firestore.emulator(host: host, projectID: ListenSupport.projectID("poll-cost"))
            .settingServerTimestamp(on: "updatedAt")
        let margin = Duration.milliseconds(500)
        let delta = PollMode.delta(field: "updatedAt", margin: margin, reconcileInterval: .seconds(3600))
        let query = db.collection("cost").query
        let fetcher = PollFetcher(query: query)
        let clock = ContinuousClock()
        let seeded = try blocking { try await ListenSupport.seed(db, collection: "cost", documents: documents) }
        print("poll-cost: seeded \(documents) documents in \(String(format: "%.1f", seeded)) s, margin 0.5 s")

        let modes: [(name: String, mode: PollMode)] = [("keys", .keys), ("full", .full), ("delta", delta)]
        let (unchanged, changed, deletion, checks) = try blocking {
            () async throws -> ([Figures], [Figures], [Figures], [String]) in
            var unchanged = Array(repeating: Figures(), count: modes.count)
            var changed = Array(repeating: Figures(), count: modes.count)
            var deletion = Array(repeating: Figures(), count: modes.count)
            var checks: [String] = []
            var states = Array(repeating: PollState(), count: modes.count)
            for (index, mode) in modes.enumerated() {
                states[index] = try await fetcher.fetch(mode: mode.mode, previous: states[index]).state
            }
            // Let the seeding writes fall out of the delta margin.
            try await clock.sleep(for: margin + .milliseconds(200))
            for (index, mode) in modes.enumerated() {
                states[index] = try await fetcher.fetch(mode: mode.mode, previous: states[index]).state
            }
            for _ in 0..<polls {
                for (index, mode) in modes.enumerated() {
                    let result = try await fetcher.fetch(mode: mode.mode, previous: states[index])
                    unchanged[index].add(result.statistics)
                    states[index] = result.state
                }
            }
            for change in 0..<polls {
                try await db.document("cost/d\((change * 997) % documents)").updateData(["n": .integer(-1)])
                for (index, mode) in modes.enumerated() {
                    let result = try await fetcher.fetch(mode: mode.mode, previous: states[index])
                    changed[index].add(result.statistics)
                    states[index] = result.state
                }
            }
            try await db.document("cost/d1").delete()
            for (index, mode) in modes.enumerated() {
                let result = try await fetcher.fetch(mode: mode.mode, previous: states[index])
                deletion[index].add(result.statistics)
                states[index] = result.state
            }
            let counts = Set(states.map(\.documents.count))
            if counts != [documents - 1] { checks.append("the modes disagree on the result size: \(counts)") }
            let names = states.map { $0.documents.map(\.name) }
            if Set(names.map { $0.joined(separator: ",") }).count != 1 { checks.append("the modes' results differ") }
            return (unchanged, changed, deletion, checks)
        }
        let target = 1 + (documents + 999) / 1000
        let scenarios = [
            ("unchanged", unchanged, target), ("one change", changed, target + 1), ("one deletion", deletion, 0),
        ]
        for (scenario, figures, bound) in scenarios {
            let keys = figures[0]
            let full = figures[1]
            let delta = figures[2]
            let rereads = delta.rereads.max() ?? 0
            var line =
                "poll-cost      n=\(documents)  \(scenario), per poll (\(keys.billed.count) poll\(keys.billed.count == 1 ? "" : "s")): billed reads "
                + "keys \(keys.maximum), full \(full.maximum), delta \(delta.maximum)"
            if rereads > 0 { line += " (margin re-reads up to \(rereads))" }
            line +=
                String(format: "  delta/keys %.4f", Double(delta.maximum) / Double(max(keys.maximum, 1)))
                + "  latency keys \(ListenSupport.ms(keys.medianLatency)), delta \(ListenSupport.ms(delta.medianLatency))"
                + "  bytes keys \(keys.medianBytes), delta \(delta.medianBytes)"
            let met = delta.billed.enumerated().allSatisfy { index, billed in billed <= bound + delta.rereads[index] }
            if bound > 0 {
                let target = "<= \(bound)\(scenario == "unchanged" ? "" : " + re-reads")"
                let verdict = ListenSupport.verdict(
                    met, goal: "poll-cost: billed reads of a delta poll of \(documents) documents, \(scenario)",
                    figure: "\(delta.maximum)", target: target)
                line += "  (target delta \(target): \(verdict))"
            }
            print(line)
            print(
                #"{"workload":"poll-cost","n":\#(documents),"scenario":"\#(scenario)","polls":\#(keys.billed.count),"#
                    + #""keys_reads":\#(keys.maximum),"full_reads":\#(full.maximum),"delta_reads":\#(delta.maximum),"#
                    + #""delta_rereads":\#(rereads),"target":\#(bound > 0 ? String(bound) : "null"),"#
                    + #""keys_latency_s":\#(keys.medianLatency),"delta_latency_s":\#(delta.medianLatency),"#
                    + #""keys_bytes":\#(keys.medianBytes),"delta_bytes":\#(delta.medianBytes),"#
                    + #""ratio":\#(Double(delta.maximum) / Double(max(keys.maximum, 1)))}"#)
        }
        for check in checks { print("CHECK FAILED: poll-cost: \(check)") }
        return []
    }
}
