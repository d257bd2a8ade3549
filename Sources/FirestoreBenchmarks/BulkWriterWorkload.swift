import FirestoreREST
import Foundation

/// `bulk-writer` (issue 16): `documents` document writes (`{n, name}`) to the real emulator through a ``BulkWriter``
/// (batchWrite, 20 writes per request, several requests at once over the client's 8 connections; throttling off,
/// so the figure is the writer's own speed), against sequential `WriteBatch` commits of 500, in the same run,
/// interleaved (`runs` times each, after one warm-up of a tenth); `bulk-writer-20` compares the same BulkWriter
/// runs with sequential commits of 20, the BulkWriter's request size, which shows what sending several requests at
/// once buys on their own; then once with the default 500/50/5 throttle,
/// which holds 10,000 writes to at least 19 s ((10,000 − 500) / 500 a second). Every run writes a fresh collection,
/// and its document count is checked.
enum BulkWriterWorkload {
    static func run(documents: Int, runs: Int) throws -> [Measurement] {
        guard let host = ListenSupport.emulatorHost(workload: "bulk-writer") else { return [] }
        let db = try Firestore.emulator(host: host, projectID: ListenSupport.projectID("bulk-writer"))
        var collections = 0
        func fresh() -> CollectionReference {
            collections += 1
            return db.collection("run\(collections)")
        }
        _ = try bulk(fresh(), count: max(documents / 10, 1), throttling: .disabled)
        _ = try batches(fresh(), count: max(documents / 10, 1), size: 500)
        _ = try batches(fresh(), count: max(documents / 10, 1), size: 20)
        var bulkTimes: [Double] = []
        var batchTimes: [Double] = []
        var smallBatchTimes: [Double] = []
        for _ in 0..<max(runs, 1) {
            bulkTimes.append(try bulk(fresh(), count: documents, throttling: .disabled))
            batchTimes.append(try batches(fresh(), count: documents, size: 500))
            smallBatchTimes.append(try batches(fresh(), count: documents, size: 20))
        }
        let throttled = try bulk(fresh(), count: documents, throttling: .rampUp())
        let floor = Double(max(documents - 500, 0)) / 500
        let verdict = Harness.goal(
            "bulk-writer-throttled: \(documents) writes at the default 500/50/5 ramp-up",
            figure: String(format: "%.2f s", throttled),
            target: String(format: ">= %.0f s (the throttle's floor)", floor), met: throttled >= floor)
        print(
            "bulk-writer-throttled n=\(documents)  default 500/50/5 throttle: "
                + String(format: "%.2f s (floor %.0f s: %@)", throttled, floor, verdict))
        print(#"{"workload":"bulk-writer-throttled","n":\#(documents),"seconds":\#(throttled),"floor_s":\#(floor)}"#)
        if throttled < floor { print("CHECK FAILED: bulk-writer-throttled ran faster than the throttle allows") }
        return [
            Measurement(
                workload: "bulk-writer", n: documents, medianSeconds: Harness.median(bulkTimes),
                baseline: "WriteBatch of 500, sequential", baselineMedianSeconds: Harness.median(batchTimes)),
            Measurement(
                workload: "bulk-writer-20", n: documents, medianSeconds: Harness.median(bulkTimes),
                baseline: "WriteBatch of 20, sequential", baselineMedianSeconds: Harness.median(smallBatchTimes)),
        ]
    }

    static func data(_ index: Int) -> [String: FieldValue] {
        ["n": .value(.integer(Int64(index))), "name": .value(.string("doc-\(index)"))]
    }

    /// Seconds to write `count` documents into `collection` with a BulkWriter, closed at the end.
    static func bulk(_ collection: CollectionReference, count: Int, throttling: BulkWriter.Throttling) throws -> Double
    {
        try blocking {
            let writer = try collection.firestore.bulkWriter(options: BulkWriter.Options(throttling: throttling))
            let start = ContinuousClock.now
            var operations: [BulkWriter.Operation] = []
            operations.reserveCapacity(count)
            for index in 0..<count {
                operations.append(try await writer.setData(data(index), forDocument: collection.document("d\(index)")))
            }
            try await writer.close()
            let seconds = ListenSupport.seconds(ContinuousClock.now - start)
            let failed = operations.filter { if case .failure? = $0.outcome { true } else { false } }.count
            try await check(collection, count: count, failed: failed)
            return seconds
        }
    }

    /// Seconds to write `count` documents into `collection` in sequential `WriteBatch` commits of `size`.
    static func batches(_ collection: CollectionReference, count: Int, size: Int) throws -> Double {
        try blocking {
            let start = ContinuousClock.now
            var index = 0
            while index < count {
                let batch = collection.firestore.batch()
                for item in index..<min(index + size, count) {
                    try batch.setData(data(item), forDocument: collection.document("d\(item)"))
                }
                try await batch.commit()
                index += size
            }
            let seconds = ListenSupport.seconds(ContinuousClock.now - start)
            try await check(collection, count: count, failed: 0)
            return seconds
        }
    }

    static func check(_ collection: CollectionReference, count: Int, failed: Int) async throws {
        let stored = try await collection.count.getAggregation().count ?? -1
        if stored != Int64(count) || failed > 0 {
            print(
                "CHECK FAILED: bulk-writer: \(collection.path) holds \(stored) of \(count) documents, \(failed) failed")
        }
    }
}
