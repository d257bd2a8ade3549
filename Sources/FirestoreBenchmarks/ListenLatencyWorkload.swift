import FirestoreFeed
import FirestoreREST
import Foundation

/// `listen-latency` (issue 15): write-to-event time on the emulator. A listener on a query; N writes one after
/// another, each waiting for its event before the next; latency = from the start of the `setData` call to the
/// snapshot carrying that write arriving at the consumer task. The write's own round trip (start of the call to
/// its return) is part of it and is reported beside it. The same run measures keys-mode polling at 0.25 s the
/// same way. Targets (Listen): median <= 5 ms, p99 <= 25 ms.
enum ListenLatencyWorkload {
    struct Samples: Sendable {
        var latencies: [Double] = []
        var writes: [Double] = []
        /// From the commit (the document's `updateTime`, the emulator's clock, which is this machine's) to the
        /// event reaching the consumer (`Date()`): the feed's own delay, without the write's round trip.
        var fromCommit: [Double] = []
        /// Events that reached the consumer before `setData` returned.
        var beforeReturn = 0
    }

    static func run(listenWrites: Int, pollWrites: Int) throws -> [Measurement] {
        guard let host = ListenSupport.emulatorHost(workload: "listen-latency") else { return [] }
        let db = try Firestore.emulator(host: host, projectID: ListenSupport.projectID("latency"))
        let listen = try blocking {
            try await measure(db.collection("listen"), source: .listen, interval: .seconds(1), writes: listenWrites)
        }
        let keys = try blocking {
            try await measure(
                db.collection("keys"), source: .poll(.keys), interval: .milliseconds(250), writes: pollWrites,
                randomPhase: true)
        }
        let p = ListenSupport.percentile
        let ms = ListenSupport.ms
        let median = p(listen.latencies, 0.5)
        let p90 = p(listen.latencies, 0.9)
        let p99 = p(listen.latencies, 0.99)
        let writeMedian = p(listen.writes + keys.writes, 0.5)
        let goal = "listen-latency: start of a write to the snapshot at the consumer"
        let medianVerdict = ListenSupport.verdict(
            median <= 0.005, goal: goal + ", median", figure: ms(median), target: "<= 5 ms")
        let p99Verdict = ListenSupport.verdict(p99 <= 0.025, goal: goal + ", p99", figure: ms(p99), target: "<= 25 ms")
        print(
            "listen-latency n=\(listenWrites)  listen median \(ms(median))  p90 \(ms(p90))  p99 \(ms(p99))"
                + "  (target median <= 5 ms: \(medianVerdict), p99 <= 25 ms: \(p99Verdict))")
        print(
            "listen-latency n=\(pollWrites)  keys polling 0.25 s median \(ms(p(keys.latencies, 0.5)))"
                + "  p90 \(ms(p(keys.latencies, 0.9)))  p99 \(ms(p(keys.latencies, 0.99)))")
        print(
            "listen-latency n=\(listenWrites + pollWrites)  write round trip alone (setData call to return) median "
                + "\(ms(writeMedian))  p90 \(ms(p(listen.writes + keys.writes, 0.9)))  (included in the figures above; "
                + "\(listen.beforeReturn) of \(listenWrites) listen events arrived before setData returned)")
        print(
            "listen-latency n=\(listenWrites)  commit (updateTime) to event: listen median \(ms(p(listen.fromCommit, 0.5)))"
                + "  p90 \(ms(p(listen.fromCommit, 0.9)))  p99 \(ms(p(listen.fromCommit, 0.99)))  keys polling median "
                + "\(ms(p(keys.fromCommit, 0.5)))  p99 \(ms(p(keys.fromCommit, 0.99)))")
        print(
            #"{"workload":"listen-latency","n":\#(listenWrites),"median_s":\#(median),"p90_s":\#(p90),"p99_s":\#(p99),"#
                + #""keys_n":\#(pollWrites),"keys_median_s":\#(p(keys.latencies, 0.5)),"#
                + #""keys_p90_s":\#(p(keys.latencies, 0.9)),"keys_p99_s":\#(p(keys.latencies, 0.99)),"#
                + #""write_rtt_median_s":\#(writeMedian),"listen_before_return":\#(listen.beforeReturn),"#
                + #""commit_median_s":\#(p(listen.fromCommit, 0.5)),"commit_p99_s":\#(p(listen.fromCommit, 0.99)),"#
                + #""keys_commit_median_s":\#(p(keys.fromCommit, 0.5)),"#
                + #""target_median_s":0.005,"target_p99_s":0.025}"#)
        return []
    }

    /// `writes` sequential writes of one document of `collection`, each timed to the snapshot that carries it.
    /// `randomPhase` waits a random part of `interval` (Task.sleep, no thread blocked) before each write, so writes
    /// are not in step with the poller, which starts its pause when it publishes the previous write's snapshot.
    static func measure(
        _ collection: CollectionReference, source: FeedSource, interval: Duration, writes: Int,
        randomPhase: Bool = false
    ) async throws -> Samples {
        let probe = collection.document("probe")
        try await probe.setData(["seq": .integer(-1)])
        let clock = ContinuousClock()
        let (arrivals, arrived) = AsyncStream<(ContinuousClock.Instant, Date, QuerySnapshot)>.makeStream()
        let feed = collection.snapshots(source: source, interval: interval)
        let consumer = Task {
            do {
                for try await snapshot in feed { arrived.yield((clock.now, Date(), snapshot)) }
            } catch {
                print("listen-latency: the \(source) feed ended with \(error)")
            }
            arrived.finish()
        }
        defer { consumer.cancel() }
        var iterator = arrivals.makeAsyncIterator()
        guard await iterator.next() != nil else {
            throw BenchmarkError(message: "listen-latency: the \(source) feed ended before its first snapshot")
        }
        var samples = Samples()
        for seq in 0..<writes {
            let value = FirestoreValue.integer(Int64(seq))
            if randomPhase { try await Task.sleep(for: interval * Double.random(in: 0..<1)) }
            let start = clock.now
            try await probe.setData(["seq": .integer(Int64(seq))])
            let written = clock.now
            samples.writes.append(ListenSupport.seconds(written - start))
            while true {
                guard let (at, wall, snapshot) = await iterator.next() else {
                    throw BenchmarkError(message: "listen-latency: the \(source) feed ended at write \(seq)")
                }
                if let change = snapshot.documentChanges.first(where: { $0.document.get("seq") == value }) {
                    samples.latencies.append(ListenSupport.seconds(at - start))
                    if let committed = change.document.updateTime?.dateValue {
                        samples.fromCommit.append(wall.timeIntervalSince(committed))
                    }
                    if at < written { samples.beforeReturn += 1 }
                    break
                }
            }
        }
        return samples
    }
}
