import FirestoreFeed
import FirestoreREST
import Foundation
import Synchronization

/// `slow-consumer` (issue 19): resident memory of a process whose feed consumer takes 2 s per snapshot while a
/// writer changes one document of a 2,000-document query 20 times a second, for 60 s, once per source (Listen,
/// then keys-mode polling every 0.2 s); then, as the baseline, the same Listen feed read through an unbounded
/// `AsyncStream` relay, which is how every listener was fed before the fix (each snapshot queued until taken).
/// Polls are counted (`FeedEvent.polled`): since issue 17 a poller polls only while its listener waits, so the keys
/// feed is polled at the consumer's pace (about one poll per 2 s pause) instead of every 0.2 s. Target: resident
/// memory flat (the last sample within 10 % of the one after 10 s) with the fix; the consumer's last snapshot
/// equal to a direct query once the writes stop. Run it in a process of its own, as the `memory` workload:
/// `swift run -c release FirestoreBenchmarks slow-consumer`.
enum SlowConsumerWorkload {
    /// What a paced consumer saw.
    final class Consumer: Sendable {
        let state = Mutex<(snapshots: Int, last: [String], coalesced: Int, polls: Int)>((0, [], 0, 0))

        func note(_ snapshot: QuerySnapshot) {
            let ids = snapshot.documents.map { "\($0.documentID)@\($0.updateTime.map { "\($0)" } ?? "-")" }
            state.withLock { state in
                state.snapshots += 1
                state.last = ids
            }
        }

        func note(_ event: FeedEvent) {
            switch event {
            case .snapshotsCoalesced: state.withLock { $0.coalesced += 1 }
            case .polled: state.withLock { $0.polls += 1 }
            default: break
            }
        }
    }

    struct Phase {
        let name: String
        /// Resident MiB, one sample every `sampleEvery`.
        let samples: [Double]
        let snapshots: Int
        let coalesced: Int
        /// Polls made from the start of the feed until the writes stopped (0 for Listen).
        let polls: Int
        let writes: Int
        let seconds: Int
        let endsRight: Bool
    }

    static let pause = Duration.seconds(2)
    static let writesPerSecond = 20

    static func run(documents: Int, seconds: Int) throws -> [Measurement] {
        guard let host = ListenSupport.emulatorHost(workload: "slow-consumer") else { return [] }
        let project = ListenSupport.projectID("slow")
        let db = try Firestore.emulator(host: host, projectID: project)
        _ = try blocking { try await ListenSupport.seed(db, collection: "slow", documents: documents) }
        let sampleEvery = seconds >= 30 ? 5 : 1
        var phases: [Phase] = []
        for (name, source) in [("listen", FeedSource.listen), ("keys 0.2 s", .poll(.keys))] {
            phases.append(
                try phase(name, db: db, documents: documents, seconds: seconds, sampleEvery: sampleEvery) { onEvent in
                    db.collection("slow").order(by: "n").snapshots(
                        source: source, interval: .milliseconds(200), onEvent: onEvent)
                })
        }
        // The delivery before issue 19: a task that takes every snapshot at once into an unbounded buffer.
        phases.append(
            try phase(
                "listen, unbounded (before)", db: db, documents: documents, seconds: max(seconds / 3, 2),
                sampleEvery: sampleEvery,
                checksEnd: false
            ) { onEvent in
                let feed = db.collection("slow").order(by: "n").snapshots(source: .listen, onEvent: onEvent)
                let (stream, continuation) = AsyncThrowingStream<QuerySnapshot, any Error>.makeStream(
                    bufferingPolicy: .unbounded)
                let relay = Task {
                    do {
                        for try await snapshot in feed { continuation.yield(snapshot) }
                        continuation.finish()
                    } catch {
                        continuation.finish(throwing: error)
                    }
                }
                continuation.onTermination = { _ in relay.cancel() }
                return stream
            })
        for phase in phases {
            let after10 = phase.samples.dropFirst(min(10 / sampleEvery, phase.samples.count - 1)).first ?? 0
            let last = phase.samples.last ?? 0
            let growth = after10 > 0 ? (last - after10) / after10 : 0
            let samples = phase.samples.map { String(format: "%.1f", $0) }.joined(separator: " ")
            var flat = ""
            if !phase.name.hasSuffix("(before)") {
                let verdict = ListenSupport.verdict(
                    growth <= 0.1, goal: "slow-consumer \(phase.name): resident memory after the first 10 s",
                    figure: String(format: "%+.1f %%", growth * 100), target: "flat within 10 %")
                flat = "  (target flat within 10 %: \(verdict))"
            }
            print(
                "slow-consumer  \(phase.name): \(phase.writes) writes in \(phase.seconds) s, consumer took "
                    + "\(phase.snapshots) snapshots (\(phase.coalesced) coalesced), \(phase.polls) polls, "
                    + "resident MiB every \(sampleEvery) s: \(samples)\(flat)")
            print(
                #"{"workload":"slow-consumer","phase":"\#(phase.name)","n":\#(documents),"writes":\#(phase.writes),"#
                    + #""snapshots":\#(phase.snapshots),"coalesced":\#(phase.coalesced),"polls":\#(phase.polls),"#
                    + #""rss_mib":[\#(phase.samples.map { String(format: "%.1f", $0) }.joined(separator: ","))],"#
                    + #""growth_after_10s":\#(growth),"ends_right":\#(phase.endsRight)}"#)
            if !phase.endsRight {
                print(
                    "CHECK FAILED: slow-consumer \(phase.name): the consumer's last snapshot is not the direct query's")
            }
        }
        return []
    }

    /// Follows the feed `makeFeed` gives with a consumer pausing ``pause`` per snapshot, writes for `seconds`, and
    /// samples resident memory; then (when `checksEnd`) waits up to 60 s for the consumer to match a direct query.
    static func phase(
        _ name: String, db: Firestore, documents: Int, seconds: Int, sampleEvery: Int, checksEnd: Bool = true,
        makeFeed:
            @escaping @Sendable (@escaping @Sendable (FeedEvent) -> Void) -> AsyncThrowingStream<
                QuerySnapshot, any Error
            >
    ) throws -> Phase {
        try blocking { () async throws -> Phase in
            let consumer = Consumer()
            let feed = makeFeed { consumer.note($0) }
            let consuming = Task {
                do {
                    for try await snapshot in feed {
                        consumer.note(snapshot)
                        try await Task.sleep(for: pause)
                    }
                } catch {}
            }
            defer { consuming.cancel() }
            let clock = ContinuousClock()
            while consumer.state.withLock({ $0.snapshots }) == 0 { try await clock.sleep(for: .milliseconds(20)) }
            var random = SystemRandomNumberGenerator()
            var samples: [Double] = []
            let start = clock.now
            var writes = 0
            var nextSample = start
            while clock.now < start + .seconds(seconds) {
                if clock.now >= nextSample {
                    samples.append(Double(MemoryWorkload.kilobytes("VmRSS")) / 1024)
                    nextSample += .seconds(sampleEvery)
                }
                try await clock.sleep(until: start + .milliseconds(writes * 1000 / writesPerSecond))
                let index = Int.random(in: 0..<documents, using: &random)
                try await db.document("slow/d\(index)").setData(
                    ["n": .value(.integer(Int64.random(in: 0..<1_000_000, using: &random)))])
                writes += 1
            }
            samples.append(Double(MemoryWorkload.kilobytes("VmRSS")) / 1024)
            let polls = consumer.state.withLock { $0.polls }
            var endsRight = true
            if checksEnd {
                let expected = try await db.collection("slow").order(by: "n").getDocuments().documents.map {
                    "\($0.documentID)@\($0.updateTime.map { "\($0)" } ?? "-")"
                }
                // A hang guard, not a latency claim (the smoke test runs this inside the loaded suite).
                let deadline = clock.now + .seconds(60)
                while consumer.state.withLock({ $0.last }) != expected, clock.now < deadline {
                    try await clock.sleep(for: .milliseconds(100))
                }
                endsRight = consumer.state.withLock { $0.last } == expected
            }
            let (snapshots, coalesced) = consumer.state.withLock { ($0.snapshots, $0.coalesced) }
            return Phase(
                name: name, samples: samples, snapshots: snapshots, coalesced: coalesced, polls: polls,
                writes: writes, seconds: seconds, endsRight: endsRight)
        }
    }
}
