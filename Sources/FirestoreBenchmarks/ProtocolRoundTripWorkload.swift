import FirestoreREST
import Foundation

/// `protocol-rtt` (issue 29): round trips of the client over gRPC against the same over REST, in the same run on
/// the emulator: `emulator-rtt-grpc`, `requests` sequential queries of a `documents`-document collection (the
/// `emulator-rtt` shape; target at most 1.0x REST), and `write-latency-grpc`, `requests` sequential `setData`
/// round trips (no target).
enum ProtocolRoundTripWorkload {
    static func run(requests: Int, documents: Int) throws -> [Measurement] {
        guard let host = ListenSupport.emulatorHost(workload: "protocol-rtt") else { return [] }
        let rest = try Firestore.emulator(host: host, projectID: ListenSupport.projectID("rtt")).using(protocol: .rest)
        let grpc = rest.using(protocol: .grpc)
        try blocking {
            for index in 0..<documents {
                try await rest.document("items/item\(index)").setData(
                    .init(BenchmarkDocuments.document(index).fields))
            }
        }
        func queries(_ db: Firestore) throws {
            try blocking {
                for _ in 0..<requests { _ = try await db.collection("items").limit(to: documents).runQuery() }
            }
        }
        func writes(_ db: Firestore) throws {
            try blocking {
                for index in 0..<requests {
                    try await db.document("writes/w\(index % 10)").setData(["n": .value(.integer(Int64(index)))])
                }
            }
        }
        let reads = try Harness.compare(
            workload: "emulator-rtt-grpc", n: requests, baseline: "the same over REST", target: 1.0,
            candidate: { try queries(grpc) }, baselineBody: { try queries(rest) })
        let written = try Harness.compare(
            workload: "write-latency-grpc", n: requests, baseline: "the same over REST",
            candidate: { try writes(grpc) }, baselineBody: { try writes(rest) })
        print(
            "protocol-rtt: per query \(ListenSupport.ms(reads.medianSeconds / Double(requests))) over gRPC, "
                + "\(ListenSupport.ms(reads.baselineMedianSeconds / Double(requests))) over REST; per setData "
                + "\(ListenSupport.ms(written.medianSeconds / Double(requests))) over gRPC, "
                + "\(ListenSupport.ms(written.baselineMedianSeconds / Double(requests))) over REST")
        return [reads, written]
    }
}
