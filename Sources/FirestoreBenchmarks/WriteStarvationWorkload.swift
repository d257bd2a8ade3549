import FirestoreFeed
import FirestoreREST
import Foundation
import Synchronization

/// `write-starvation` (issue 19 item 5, issue 33): a writer that writes, waits 100 ms and writes again, first alone
/// for `seconds`, then for `seconds` beside `pollers` keys-mode pollers of distinct queries asking for a poll every
/// 0.2 s on the same client (the emulator's default `CurlTransport`, 8 connections). Prints both write rates and
/// their ratio (target at least 0.5: polls go out as background work and leave connections to the writes; before
/// the fix the ratio was about 0.15, 1.2 writes a second against 8), and how many pollers said they could not keep
/// their interval. `WriteStarvationLiveTests` checks the rules on the same workload; this is where the rate lives,
/// as a ratio of two runs on one machine.
enum WriteStarvationWorkload {
    final class Crowd: Sendable {
        let snapshots = Mutex(0)
        let behind = Mutex(Set<Int>())
    }

    static func run(pollers: Int, seconds: Int) throws -> [Measurement] {
        guard let host = ListenSupport.emulatorHost(workload: "write-starvation") else { return [] }
        let db = try Firestore.emulator(host: host, projectID: ListenSupport.projectID("starvation"))
        let (alone, beside, behind) = try blocking {
            let items = db.collection("items")
            let batch = db.batch()
            for index in 0..<pollers {
                try batch.setData(["n": .integer(Int64(index))], forDocument: items.document("seed\(index)"))
            }
            try await batch.commit()
            let writer = items.document("written")
            let alone = try await writeRate(writer, seconds: seconds)
            let crowd = Crowd()
            var consumers: [Task<Void, Never>] = []
            defer { for consumer in consumers { consumer.cancel() } }
            for index in 0..<pollers {
                let feed = items.whereField("n", isLessThan: index + 1).snapshots(
                    source: .poll(.keys), interval: .milliseconds(200)
                ) { event in
                    if case .intervalNotKept = event { _ = crowd.behind.withLock { $0.insert(index) } }
                }
                consumers.append(
                    Task {
                        do {
                            for try await _ in feed { crowd.snapshots.withLock { $0 += 1 } }
                        } catch {}
                    })
            }
            while crowd.snapshots.withLock({ $0 }) < pollers { try await Task.sleep(for: .milliseconds(100)) }
            let beside = try await writeRate(writer, seconds: seconds)
            return (alone, beside, crowd.behind.withLock { $0.count })
        }
        let ratio = alone > 0 ? beside / alone : 0
        let verdict = ListenSupport.verdict(
            ratio >= 0.5, goal: "write-starvation: writes a second beside \(pollers) pollers / alone",
            figure: String(format: "%.2f", ratio), target: ">= 0.5")
        print(
            "write-starvation pollers=\(pollers)  writes/s alone \(String(format: "%.1f", alone)), beside \(pollers) "
                + "pollers at 0.2 s \(String(format: "%.1f", beside)): ratio \(String(format: "%.2f", ratio)) "
                + "(target >= 0.5: \(verdict)); \(behind) pollers said they could not "
                + "keep their interval")
        print(
            #"{"workload":"write-starvation","pollers":\#(pollers),"seconds":\#(seconds),"#
                + #""alonePerSecond":\#(alone),"besidePerSecond":\#(beside),"ratio":\#(ratio),"#
                + #""pollersBehind":\#(behind)}"#)
        return []
    }

    /// Writes `writer`, waits 100 ms, and again, for `seconds`: writes a second.
    static func writeRate(_ writer: DocumentReference, seconds: Int) async throws -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        var writes = 0
        while clock.now - start < .seconds(seconds) {
            try await writer.setData(["w": .integer(Int64(writes))])
            writes += 1
            try await Task.sleep(for: .milliseconds(100))
        }
        return Double(writes) / ListenSupport.seconds(clock.now - start)
    }
}
