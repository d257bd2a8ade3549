import FirestoreFeed
import FirestoreREST
import Foundation
import Synchronization

/// `listen-cost` (issue 15): documents delivered, which is what Firestore bills a listener for (the initial result,
/// then each document added, changed or removed), for a query of N documents over a period with one document
/// changed per second. Beside it, in the same period, a keys-mode feed polling every second on its own client
/// runs concurrently; its billed reads are counted as the runQuery polls it actually made times the result size
/// (every poll reads every document the query returns). Target (Listen): at most N + one per change.
enum ListenCostWorkload {
    /// Counts the requests a client makes, by kind.
    final class CountingTransport: HTTPTransport {
        let base: any HTTPTransport
        let counts = Mutex<(runQuery: Int, batchGet: Int)>((0, 0))

        init(base: any HTTPTransport) { self.base = base }

        func send(_ request: HTTPRequest) async throws(FirestoreError) -> HTTPResponse {
            counts.withLock { counts in
                if request.url.hasSuffix(":runQuery") { counts.runQuery += 1 }
                if request.url.hasSuffix(":batchGet") { counts.batchGet += 1 }
            }
            return try await base.send(request)
        }
    }

    /// Documents delivered to the Listen feed so far, and its snapshots.
    final class Delivered: Sendable {
        let counts = Mutex<(documents: Int, snapshots: Int)>((0, 0))
        func note(_ snapshot: QuerySnapshot) {
            counts.withLock { counts in
                // The first snapshot lists every document as added, so this is the initial result plus each change.
                counts.documents += counts.snapshots == 0 ? snapshot.documents.count : snapshot.documentChanges.count
                counts.snapshots += 1
            }
        }
    }

    static func run(documents: Int, seconds: Int) throws -> [Measurement] {
        guard let host = ListenSupport.emulatorHost(workload: "listen-cost") else { return [] }
        let project = ListenSupport.projectID("cost")
        let db = try Firestore.emulator(host: host, projectID: project)
        let counting = CountingTransport(base: CurlTransport())
        let pollingDB = try Firestore.emulator(host: host, projectID: project, transport: counting)
        let clock = ContinuousClock()
        let seeded = try blocking { try await ListenSupport.seed(db, collection: "cost", documents: documents) }
        print(
            "listen-cost: seeded \(documents) documents in \(String(format: "%.1f", seeded)) s "
                + "(\((documents + 499) / 500) batched commits)")

        let delivered = Delivered()
        let (polled, pollCounts) = try blocking { () async throws -> (Int, (runQuery: Int, batchGet: Int)) in
            let listenFeed = db.collection("cost").snapshots(source: .listen)
            let keysFeed = pollingDB.collection("cost").snapshots(source: .poll(.keys), interval: .seconds(1))
            let (firsts, first) = AsyncStream<Void>.makeStream()
            let start = clock.now
            let listening = Task {
                do {
                    for try await snapshot in listenFeed {
                        delivered.note(snapshot)
                        if delivered.counts.withLock({ $0.snapshots }) == 1 { first.yield() }
                    }
                } catch {
                    print("listen-cost: the listen feed ended with \(error)")
                }
            }
            let polling = Task {
                var seen = 0
                do {
                    for try await _ in keysFeed {
                        seen += 1
                        if seen == 1 { first.yield() }
                    }
                } catch {
                    print("listen-cost: the keys feed ended with \(error)")
                }
            }
            defer {
                listening.cancel()
                polling.cancel()
            }
            var iterator = firsts.makeAsyncIterator()
            _ = await iterator.next()
            _ = await iterator.next()
            let ready = clock.now
            print(
                "listen-cost: both feeds had their first snapshot after "
                    + "\(String(format: "%.2f", ListenSupport.seconds(ready - start))) s")
            // One change per second, for `seconds` seconds from the moment both feeds have their initial result.
            for change in 0..<seconds {
                try await clock.sleep(until: ready + .seconds(change) + .milliseconds(500))
                try await db.document("cost/d\(change % documents)").setData(
                    ["n": .integer(Int64(-1 - change)), "name": .string("changed \(change)")])
            }
            try await clock.sleep(until: ready + .seconds(seconds))
            let counts = counting.counts.withLock { $0 }
            // Let the Listen feed deliver the last change (milliseconds when idle) before reading its count; 60 s is
            // a hang guard, not a latency claim (the smoke test runs this inside the loaded suite).
            let deadline = clock.now + .seconds(60)
            while delivered.counts.withLock({ $0.documents }) < documents + seconds, clock.now < deadline {
                try await clock.sleep(for: .milliseconds(20))
            }
            return (counts.runQuery, counts)
        }
        let listenDocuments = delivered.counts.withLock { $0.documents }
        let listenSnapshots = delivered.counts.withLock { $0.snapshots }
        let pollingReads = polled * documents
        let target = documents + seconds
        let verdict = ListenSupport.verdict(
            listenDocuments <= target,
            goal: "listen-cost: documents a Listen feed delivers (\(documents), \(seconds) changes)",
            figure: "\(listenDocuments)", target: "<= \(target)")
        print(
            "listen-cost   n=\(documents)  \(seconds) s, \(seconds) changes: listen delivered \(listenDocuments) documents "
                + "in \(listenSnapshots) snapshots  keys polling 1 s: \(polled) polls x \(documents) = \(pollingReads) "
                + "billed reads (+ \(pollCounts.batchGet) batchGet requests for changed documents)  ratio "
                + String(format: "%.4f", Double(listenDocuments) / Double(max(pollingReads, 1)))
                + "  (target listen <= \(target): \(verdict))")
        print(
            #"{"workload":"listen-cost","n":\#(documents),"seconds":\#(seconds),"changes":\#(seconds),"#
                + #""listen_documents":\#(listenDocuments),"listen_snapshots":\#(listenSnapshots),"#
                + #""polls":\#(polled),"polling_reads":\#(pollingReads),"batch_gets":\#(pollCounts.batchGet),"#
                + #""ratio":\#(Double(listenDocuments) / Double(max(pollingReads, 1))),"target_documents":\#(target)}"#)
        if listenDocuments < documents + seconds {
            print("CHECK FAILED: listen-cost: the Listen feed delivered \(listenDocuments) < \(documents + seconds)")
        }
        return []
    }
}
