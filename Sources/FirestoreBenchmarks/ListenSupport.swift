import FirestoreREST
import Foundation

/// What the Listen workloads (`listen-latency`, `listen-cost`, `listen-fanout`) share: the emulator's address, a
/// fresh project per run (the emulator keeps data between runs), percentiles, CPU time.
enum ListenSupport {
    /// `FIRESTORE_EMULATOR_HOST`, or `nil` after printing that `workload` is skipped.
    static func emulatorHost(workload: String) -> String? {
        guard let host = ProcessInfo.processInfo.environment["FIRESTORE_EMULATOR_HOST"], !host.isEmpty else {
            print("\(workload): skipped (FIRESTORE_EMULATOR_HOST is not set; Scripts/bench starts an emulator)")
            return nil
        }
        return host
    }

    /// A project ID not used before on this emulator, so no run sees another's documents.
    static func projectID(_ workload: String) -> String {
        "bench-\(workload)-\(UInt32.random(in: 0...UInt32.max))"
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// The nearest-rank `fraction` percentile of `values` (0.5: median).
    static func percentile(_ values: [Double], _ fraction: Double) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        let rank = Int((fraction * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }

    static func ms(_ seconds: Double) -> String { String(format: "%.2f ms", seconds * 1000) }

    /// User plus system CPU seconds of this process so far (`getrusage(RUSAGE_SELF)`).
    static func cpuSeconds() -> Double {
        var usage = rusage()
        #if canImport(Glibc)
            getrusage(RUSAGE_SELF.rawValue, &usage)
        #else
            getrusage(RUSAGE_SELF, &usage)
        #endif
        func value(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return value(usage.ru_utime) + value(usage.ru_stime)
    }

    /// `met` or `MISSED`, the goal recorded for the report (``Harness/goal(_:figure:target:met:)``).
    static func verdict(_ met: Bool, goal: String, figure: String, target: String) -> String {
        Harness.goal(goal, figure: figure, target: target, met: met)
    }

    /// Writes `documents` documents `COLLECTION/d0 ... d(N-1)`, each `{n: index, name: "document index"}`, in
    /// batched commits of 500 (Firestore's limit per commit); the seconds it took.
    static func seed(_ db: Firestore, collection: String, documents: Int) async throws -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        for first in stride(from: 0, to: documents, by: 500) {
            let batch = db.batch()
            for index in first..<min(first + 500, documents) {
                try batch.setData(
                    ["n": .integer(Int64(index)), "name": .string("document \(index)")],
                    forDocument: db.document("\(collection)/d\(index)"))
            }
            try await batch.commit()
        }
        return seconds(clock.now - start)
    }
}
