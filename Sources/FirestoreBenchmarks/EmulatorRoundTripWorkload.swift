import FirestoreREST
import Foundation

/// `emulator-rtt` (issue 9): 100 sequential runQuery calls of a 100-document query against the real emulator
/// over one `CurlTransport`, against the same 100 requests made by one `curl` process reusing its
/// connection. Targets: at most 1.2x, and exactly one TCP connection opened. Skipped with a message when
/// `FIRESTORE_EMULATOR_HOST` is not set (`Scripts/bench` starts an emulator).
enum EmulatorRoundTripWorkload {
    static func run(requests: Int, documents: Int) throws -> [Measurement] {
        guard let host = ProcessInfo.processInfo.environment["FIRESTORE_EMULATOR_HOST"], !host.isEmpty else {
            print("emulator-rtt: skipped (FIRESTORE_EMULATOR_HOST is not set; Scripts/bench starts an emulator)")
            return []
        }
        let project = "bench-rtt"
        let seeding = try Firestore.emulator(host: host, projectID: project)
        try blocking {
            for index in 0..<documents {
                try await seeding.document("items/item\(index)").setData(
                    .init(BenchmarkDocuments.document(index).fields))
            }
        }
        let query = seeding.collection("items").limit(to: documents)
        let (url, bodyFile) = try curlRequest(for: query, host: host, project: project, name: "bench-rtt-body")
        defer { try? FileManager.default.removeItem(at: bodyFile) }

        var connections = 0
        let measurement = try Harness.compare(
            workload: "emulator-rtt", n: requests, baseline: "curl CLI, one process",
            candidate: {
                let transport = CurlTransport()
                let firestore = try Firestore.emulator(host: host, projectID: project, transport: transport)
                    .using(protocol: .rest)
                let query = firestore.collection("items").limit(to: documents)
                try blocking {
                    for _ in 0..<requests { _ = try await query.runQuery() }
                }
                connections = transport.openedConnectionCount
            },
            baselineBody: { try runCurl(url: url, bodyFile: bodyFile, count: requests) })
        let verdict = Harness.goal(
            "emulator-rtt: TCP connections CurlTransport opens for \(requests) requests", figure: "\(connections)",
            target: "exactly 1", met: connections == 1)
        print(
            "emulator-rtt: \(connections) TCP connection(s) opened by CurlTransport for \(requests) requests "
                + "(target exactly 1: \(verdict))")
        let thread = threadStartSeconds(runs: 2000)
        let share = thread / (measurement.medianSeconds / Double(requests))
        print(
            "emulator-rtt: a REST request's own transfer thread costs "
                + "\(String(format: "%.1f", thread * 1e6)) us to start and join (median of 2000), "
                + "\(String(format: "%.2f", share * 100)) % of one REST round trip")
        return [measurement]
    }

    /// The median time from starting a transfer thread (what each REST request runs on) to its body running and
    /// the starter hearing so, in seconds. Blocks: the benchmark's synchronous main thread, never the pool's.
    static func threadStartSeconds(runs: Int) -> Double {
        var times: [Double] = []
        for _ in 0..<runs {
            let done = DispatchSemaphore(value: 0)
            let start = DispatchTime.now().uptimeNanoseconds
            guard TransferThread.start(name: "bench-thread", { done.signal() }) else { continue }
            done.wait()  // the benchmark's main thread (synchronous workload code), never the pool's
            times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
        }
        times.sort()
        return times.isEmpty ? .nan : times[times.count / 2]
    }

    /// The runQuery URL of `query` on the emulator at `host` and a new file holding its body (named `name` plus a
    /// UUID: no one can guess it, and `.withoutOverwriting` is O_EXCL, so a planted link is never followed), for
    /// `curl --data-binary @FILE`. The caller removes the file.
    static func curlRequest(for query: Query, host: String, project: String, name: String) throws -> (String, URL) {
        let url = "http://\(host)/v1/projects/\(project)/databases/(default)/documents:runQuery"
        let bodyFile = FileManager.default.temporaryDirectory.appendingPathComponent(
            "\(name)-\(UUID().uuidString).json")
        try query.runQueryBody().serialized().write(to: bodyFile, options: .withoutOverwriting)
        return (url, bodyFile)
    }

    /// One `curl` process making `count` POSTs to `url` on one connection. Blocks until curl exits: called from
    /// the benchmark's synchronous main thread, never from a task.
    static func runCurl(url: String, bodyFile: URL, count: Int) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments =
            [
                "curl", "-s", "-H", "Content-Type: application/json",
                "-H", "Authorization: Bearer owner", "--data-binary", "@\(bodyFile.path)",
            ]
            + Array(repeating: url, count: count)
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()  // the benchmark's main thread (synchronous workload code), never the pool's
        guard process.terminationStatus == 0 else {
            throw BenchmarkError(message: "emulator-rtt: curl exited \(process.terminationStatus)")
        }
    }
}
