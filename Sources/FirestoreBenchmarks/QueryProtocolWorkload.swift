import FirestoreREST
import Foundation

/// `query` (issue 29): one query of `documents` small documents (about 250 bytes of REST JSON each) on the emulator,
/// read whole by the client over each protocol, each beside a bare client receiving the same response in the same
/// run: `curl` for REST (one process per run), a raw grpcio call for gRPC, and Google's Python client
/// (`google-cloud-firestore`, gRPC) as a third column. Also the client's CPU time per query over each protocol
/// (`getrusage`). Targets: wall at most 1.15x the bare client for both protocols; gRPC CPU at most 0.5x REST's.
enum QueryProtocolWorkload {
    static func run(documents: Int) throws -> [Measurement] {
        guard let host = ListenSupport.emulatorHost(workload: "query") else { return [] }
        let project = ListenSupport.projectID("query")
        let rest = try Firestore.emulator(host: host, projectID: project).using(protocol: .rest)
        let grpc = rest.using(protocol: .grpc)
        try seed(rest, documents: documents)
        let query = rest.collection("items").query
        var restCPU: [Double] = []
        var grpcCPU: [Double] = []
        var restBytes = 0
        var grpcBytes = 0

        let (url, bodyFile) = try EmulatorRoundTripWorkload.curlRequest(
            for: query, host: host, project: project, name: "bench-query-body")
        defer { try? FileManager.default.removeItem(at: bodyFile) }

        var measurements: [Measurement] = []
        measurements.append(
            try Harness.compare(
                workload: "query-rest", n: documents, baseline: "curl CLI", target: 1.15,
                candidate: { try readOnce(rest, cpu: &restCPU, bytes: &restBytes, documents: documents) },
                baselineBody: { try EmulatorRoundTripWorkload.runCurl(url: url, bodyFile: bodyFile, count: 1) }))
        let request = try runQueryRequest(rest)
        if let python = try BenchPythonClient.start(host: host, workload: "query") {
            let command = "grpc \(project) \(FirestoreGRPCMethod.runQuery) \(request)"
            measurements.append(
                try Harness.compare(
                    workload: "query-grpc", n: documents, baseline: "grpcio raw call", target: 1.15,
                    candidate: { try readOnce(grpc, cpu: &grpcCPU, bytes: &grpcBytes, documents: documents) },
                    baselineBody: { try python.run(command) }))
            measurements.append(
                try Harness.compare(
                    workload: "query-grpc-vs-python", n: documents, baseline: "google-cloud-firestore",
                    candidate: { try readOnce(grpc, cpu: &grpcCPU, bytes: &grpcBytes, documents: documents) },
                    baselineBody: { try python.run("sdk \(project) items") }))
        } else {
            for _ in 0..<max(Harness.runs, 1) {
                try readOnce(grpc, cpu: &grpcCPU, bytes: &grpcBytes, documents: documents)
            }
        }
        let cpu = Measurement(
            workload: "query-cpu", n: documents, medianSeconds: Harness.median(grpcCPU), baseline: "REST client CPU",
            baselineMedianSeconds: Harness.median(restCPU), target: 0.5)
        print(
            "query: response \(restBytes) bytes of JSON over REST, \(grpcBytes) bytes of protobuf over gRPC; "
                + "client CPU per query: REST \(ListenSupport.ms(cpu.baselineMedianSeconds)), "
                + "gRPC \(ListenSupport.ms(cpu.medianSeconds))")
        return measurements + [cpu]
    }

    /// Reads the whole query once through `client` (``QueryRepresentable/getDocuments()``: every document decoded
    /// into a snapshot), adding the CPU time it took and noting the response's bytes.
    private static func readOnce(_ client: Firestore, cpu: inout [Double], bytes: inout Int, documents: Int) throws {
        let before = ListenSupport.cpuSeconds()
        let response = try blocking { try await client.collection("items").runQuery() }
        cpu.append(ListenSupport.cpuSeconds() - before)
        bytes = response.responseBytes
        guard response.documents.count == documents else {
            throw BenchmarkError(message: "query: \(response.documents.count) documents, not \(documents)")
        }
    }

    /// The serialized `RunQueryRequest` of the query, hex, for the bare gRPC client.
    private static func runQueryRequest(_ db: Firestore) throws -> String {
        var writer = ProtobufWriter()
        writer.writeStringField(1, db.database.documentsRoot)
        try writer.writeMessageField(2) { (query) throws(FirestoreError) in
            try db.collection("items").query.structured().write(to: &query)
        }
        return writer.bytes.map { String(format: "%02x", $0) }.joined()
    }

    /// Writes `documents` small documents to `items`, 500 per commit.
    static func seed(_ db: Firestore, documents: Int) throws {
        try blocking {
            for start in stride(from: 0, to: documents, by: 500) {
                let writes = try (start..<min(documents, start + 500)).map { index in
                    Write.update(
                        path: try ResourcePath("items/item\(index)"),
                        fields: [
                            "title": .string("Item \(index)"), "count": .integer(Int64(index)),
                            "price": .double(Double(index) * 1.25), "active": .boolean(index % 2 == 0),
                            "tags": .array([.string("alpha"), .string("beta")]),
                        ], mask: nil, precondition: nil)
                }
                try await db.commit(writes)
            }
        }
    }
}
