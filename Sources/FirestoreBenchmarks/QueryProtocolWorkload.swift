import FirestoreREST
import Foundation

/// `query` (issues 29 and 37): one query of `documents` small documents (about 690 bytes of emulator JSON, 223 bytes
/// of protobuf each) on the emulator, read whole by the client over each protocol, each beside a bare client receiving
/// the same response in the same run, candidate and baseline alternately:
/// - `query-rest`, `query-grpc` (in process): the client's `runQuery()` in this process (every document decoded),
///   timed around the call, against the bare client's transfer timed by the bare client itself, without its
///   start-up: `curl`'s `%{time_total}` (one `curl` process per run, body to /dev/null) for REST, and for gRPC a raw
///   grpcio `RunQuery` call (every message received, none decoded) timed by the long-lived Python process
///   (`Scripts/bench-grpc-client`) that makes it.
/// - `query-rest-process`, `query-grpc-process` (whole process): launch to exit, start-up included on both sides,
///   timed by this process: a child process of this executable (``childFlag``) that makes the one query and decodes
///   every document, against a `curl` process for REST and a Python process making the one raw grpcio call
///   (`Scripts/bench-grpc-client --once`: interpreter start-up and grpcio's import included) for gRPC.
/// - `query-grpc-vs-python`: the client over gRPC against Google's Python client (`google-cloud-firestore`'s
///   `get()`, in the long-lived Python process), no target.
/// - `query-cpu`: the client's CPU time per in-process query (`getrusage`) over gRPC against REST.
///
/// Targets: each of the four bare-client comparisons at most 1.15x; gRPC CPU at most 0.5x REST's.
enum QueryProtocolWorkload {
    /// This executable's flag for a whole-process child: `--query-child rest|grpc HOST PROJECT N`.
    static let childFlag = "--query-child"

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
        let curl = executable("curl")
        let this = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
        let child = { (wire: String) in
            try processSeconds(this, [childFlag, wire, host, project, String(documents)], label: "child \(wire)")
        }

        var measurements: [Measurement] = []
        measurements.append(
            try Harness.compareTimed(
                workload: "query-rest", n: documents, baseline: "curl transfer (time_total)", target: 1.15,
                candidate: {
                    try Harness.seconds { try readOnce(rest, cpu: &restCPU, bytes: &restBytes, documents: documents) }
                },
                baselineBody: { try curlProcess(curl, url: url, bodyFile: bodyFile).inside }))
        measurements.append(
            try Harness.compareTimed(
                workload: "query-rest-process", n: documents, baseline: "curl process", target: 1.15,
                candidate: { try child("rest") },
                baselineBody: { try curlProcess(curl, url: url, bodyFile: bodyFile).process }))
        let request = try runQueryRequest(rest)
        if let python = try BenchPythonClient.start(host: host, workload: "query") {
            let command = "grpc \(project) \(FirestoreGRPCMethod.runQuery) \(request)"
            measurements.append(
                try Harness.compareTimed(
                    workload: "query-grpc", n: documents, baseline: "grpcio raw call", target: 1.15,
                    candidate: {
                        try Harness.seconds {
                            try readOnce(grpc, cpu: &grpcCPU, bytes: &grpcBytes, documents: documents)
                        }
                    },
                    baselineBody: { try callSeconds(python.run(command), documents: documents) }))
            let once = [
                "Scripts/bench-grpc-client", "--once", host, project, FirestoreGRPCMethod.runQuery, request,
            ]
            measurements.append(
                try Harness.compareTimed(
                    workload: "query-grpc-process", n: documents, baseline: "grpcio raw call, Python process",
                    target: 1.15, candidate: { try child("grpc") },
                    baselineBody: { try processSeconds(python.executable, once, label: "bench-grpc-client --once") }))
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

    /// Reads the whole query once through `client` (`runQuery()`: every document decoded), adding the CPU time it
    /// took and noting the response's bytes.
    private static func readOnce(_ client: Firestore, cpu: inout [Double], bytes: inout Int, documents: Int) throws {
        let before = ListenSupport.cpuSeconds()
        let response = try blocking { try await client.collection("items").runQuery() }
        cpu.append(ListenSupport.cpuSeconds() - before)
        bytes = response.responseBytes
        guard response.documents.count == documents else {
            throw BenchmarkError(message: "query: \(response.documents.count) documents, not \(documents)")
        }
    }

    /// The child (``childFlag``): one query of the `items` collection of `project` over `wire` (`rest` or `grpc`),
    /// every document decoded; prints `ok DOCUMENTS`. Throws unless it finds `count` documents.
    static func runChild(wire wireProtocol: FirestoreProtocol, host: String, project: String, count: Int) throws {
        let db = try Firestore.emulator(host: host, projectID: project).using(protocol: wireProtocol)
        let response = try blocking { try await db.collection("items").runQuery() }
        guard response.documents.count == count else {
            throw BenchmarkError(message: "query child: \(response.documents.count) documents, not \(count)")
        }
        print("ok \(response.documents.count)")
    }

    /// Runs `executable` with `arguments` to its exit; its seconds from launch to exit.
    /// - Throws: ``BenchmarkError`` when it exits with a failure or prints no `ok` line.
    private static func processSeconds(_ executable: String, _ arguments: [String], label: String) throws -> Double {
        let result = try MirrorSupport.command(executable, arguments)
        guard result.status == 0, result.output.hasPrefix("ok") else {
            throw BenchmarkError(
                message: "query: \(label) exited \(result.status): \(result.output.suffix(300)) "
                    + "\(result.errors.suffix(1000))")
        }
        return result.seconds
    }

    /// One `curl` process posting the query, the body to /dev/null: (its own `time_total`, launch to exit).
    private static func curlProcess(_ curl: String, url: String, bodyFile: URL) throws -> (
        inside: Double, process: Double
    ) {
        let result = try MirrorSupport.command(
            curl,
            [
                "-s", "-o", "/dev/null", "-w", "%{time_total}", "-H", "Content-Type: application/json",
                "-H", "Authorization: Bearer owner", "--data-binary", "@\(bodyFile.path)", url,
            ])
        guard result.status == 0, let inside = Double(result.output.trimmingCharacters(in: .whitespacesAndNewlines))
        else {
            throw BenchmarkError(message: "query: curl exited \(result.status): \(result.errors.suffix(500))")
        }
        return (inside, result.seconds)
    }

    /// The seconds of a raw call from `bench-grpc-client`'s answer `ok MESSAGES BYTES SECONDS`.
    private static func callSeconds(_ line: String, documents: Int) throws -> Double {
        let parts = line.split(separator: " ")
        guard parts.count == 4, let messages = Int(parts[1]), messages >= documents, let seconds = Double(parts[3])
        else {
            throw BenchmarkError(message: "query: bench-grpc-client answered \(line)")
        }
        return seconds
    }

    /// `name`'s path on `PATH` (so no `/usr/bin/env` runs before it), else `name` itself.
    private static func executable(_ name: String) -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for folder in path.split(separator: ":") where FileManager.default.isExecutableFile(atPath: "\(folder)/\(name)")
        {
            return "\(folder)/\(name)"
        }
        return name
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
        try seed(db, indexes: 0..<documents)
    }

    /// Writes the small documents `items/item<index>` of `indexes` (the shape of ``seed(_:documents:)``), 500 per
    /// commit.
    static func seed(_ db: Firestore, indexes: Range<Int>) throws {
        try blocking {
            for start in stride(from: indexes.lowerBound, to: indexes.upperBound, by: 500) {
                let writes = try (start..<min(indexes.upperBound, start + 500)).map { index in
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
