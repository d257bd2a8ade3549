import FirestoreFeed
import FirestoreREST
import Foundation

/// `listen-first-snapshot` (issue 37): the first snapshot of a Listen feed of N documents, against the same documents
/// read through the query path (`getDocuments()` over gRPC), both in process: a synthetic server
/// (``SyntheticServerTransport``) answers the Listen call with a target `ADD`, N `DocumentChange`s, a `CURRENT` and a
/// `NO_CHANGE` with a read time (each message decoded from protobuf bytes as a gRPC call decodes them), and the
/// runQuery call with N `RunQueryResponse` messages. No emulator, so N goes to 1,000,000.
///
/// Each measurement runs in a child process of its own (this executable with `--listen-first-snapshot-child`), so
/// one's heap does not hide another's: CPU time (user + system, `getrusage`) from the feed's start to its first
/// snapshot, and memory from `/proc/self/status` while the snapshot is held (the Listen feed still listening, its
/// target's state alive): `VmRSS` after `malloc_trim` (held) and `VmHWM` (peak), less the process's own before.
///
/// Goals: Listen CPU per document at 100k at most 1.2x its value at 10k; Listen memory held per document at most 1.5x
/// the query path's (at every N); at 1M, Listen memory per document no higher than at 100k (10 % allowed for noise).
enum ListenFirstSnapshotWorkload {
    static let childFlag = "--listen-first-snapshot-child"

    /// One child's figures.
    struct Sample {
        var cpu: Double
        var wall: Double
        var held: Double
        var peak: Double

        static func median(_ samples: [Sample]) -> Sample {
            Sample(
                cpu: Harness.median(samples.map(\.cpu)), wall: Harness.median(samples.map(\.wall)),
                held: Harness.median(samples.map(\.held)), peak: Harness.median(samples.map(\.peak)))
        }
    }

    /// Runs the children for each size, Listen and query alternately, `repeats` times each (once at 1,000,000 and
    /// above), and prints per size one line per path, the ratios and the goals.
    static func run(sizes: [Int], repeats: Int) throws -> [Measurement] {
        var listenBySize: [Int: Sample] = [:]
        var queryBySize: [Int: Sample] = [:]
        for n in sizes {
            var listen: [Sample] = []
            var query: [Sample] = []
            for _ in 0..<(n >= 1_000_000 ? 1 : max(repeats, 1)) {
                listen.append(try child(path: "listen", count: n))
                query.append(try child(path: "query", count: n))
            }
            let (l, q) = (Sample.median(listen), Sample.median(query))
            listenBySize[n] = l
            queryBySize[n] = q
            func perDocument(_ value: Double, _ scale: Double) -> String {
                String(format: "%.1f", value * scale / Double(n))
            }
            for (name, sample) in [("listen", l), ("query", q)] {
                print(
                    "listen-first-snapshot n=\(n) \(name.padding(toLength: 6, withPad: " ", startingAt: 0)) "
                        + "CPU \(perDocument(sample.cpu, 1e6)) µs/doc (\(ListenSupport.ms(sample.cpu)), wall "
                        + "\(ListenSupport.ms(sample.wall)))  held \(perDocument(sample.held, 1)) B/doc  peak "
                        + "\(perDocument(sample.peak, 1)) B/doc  (median of \(listen.count))")
            }
            let heldVerdict = ListenSupport.verdict(
                l.held <= 1.5 * q.held, goal: "listen-first-snapshot at \(n): memory held per document, Listen / query",
                figure: String(format: "%.2fx", l.held / q.held), target: "<= 1.5x")
            print(
                "listen-first-snapshot n=\(n) listen/query: CPU \(String(format: "%.2f", l.cpu / q.cpu))x, held "
                    + "\(String(format: "%.2f", l.held / q.held))x (target <= 1.5x: "
                    + "\(heldVerdict)), peak \(String(format: "%.2f", l.peak / q.peak))x"
            )
            print(
                #"{"workload":"listen-first-snapshot","n":\#(n),"listen_cpu_s":\#(l.cpu),"listen_wall_s":\#(l.wall),"#
                    + #""listen_held_bytes":\#(Int(l.held)),"listen_peak_bytes":\#(Int(l.peak)),"#
                    + #""query_cpu_s":\#(q.cpu),"query_wall_s":\#(q.wall),"query_held_bytes":\#(Int(q.held)),"#
                    + #""query_peak_bytes":\#(Int(q.peak)),"held_ratio":\#(l.held / q.held)}"#)
        }
        func cpuPerDocument(_ n: Int) -> Double? { listenBySize[n].map { $0.cpu / Double(n) } }
        func heldPerDocument(_ n: Int) -> Double? { listenBySize[n].map { $0.held / Double(n) } }
        if let small = cpuPerDocument(10_000), let large = cpuPerDocument(100_000) {
            let verdict = ListenSupport.verdict(
                large <= 1.2 * small, goal: "listen-first-snapshot: Listen CPU per document at 100k / at 10k",
                figure: String(format: "%.2fx", large / small), target: "<= 1.2x")
            print(
                "listen-first-snapshot: CPU per document at 100k / at 10k \(String(format: "%.2f", large / small))x "
                    + "(target <= 1.2x: \(verdict))")
        }
        if let large = heldPerDocument(100_000), let huge = heldPerDocument(1_000_000) {
            let verdict = ListenSupport.verdict(
                huge <= 1.1 * large, goal: "listen-first-snapshot: Listen memory per document at 1M / at 100k",
                figure: String(format: "%.2fx", huge / large), target: "<= 1x (1.1x for noise)")
            print(
                "listen-first-snapshot: memory per document at 1M / at 100k \(String(format: "%.2f", huge / large))x "
                    + "(target <= 1x, 1.1x for noise: \(verdict))")
        }
        return []
    }

    /// Runs one measurement in a child process and reads its JSON line.
    static func child(path: String, count: Int) throws -> Sample {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = [childFlag, path, String(count)]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()  // the benchmark's main thread (synchronous workload code), never the pool's
        let text = String(decoding: data, as: UTF8.self)
        guard process.terminationStatus == 0, let line = text.split(separator: "\n").last,
            let json = try? JSONValue.parse(String(line)), let cpu = number(json["cpu_s"]),
            let wall = number(json["wall_s"]), let held = number(json["held_bytes"]),
            let peak = number(json["peak_bytes"])
        else {
            throw BenchmarkError(
                message: "listen-first-snapshot: child \(path) \(count) exited \(process.terminationStatus): \(text)")
        }
        return Sample(cpu: cpu, wall: wall, held: held, peak: peak)
    }

    /// A JSON number as a `Double`.
    static func number(_ value: JSONValue?) -> Double? {
        switch value {
        case .integer(let integer)?: return Double(integer)
        case .double(let double)?: return double
        default: return nil
        }
    }

    /// The child: one path, `count` documents; prints `{"cpu_s":..,"wall_s":..,"held_bytes":..,"peak_bytes":..}`.
    static func runChild(path: String, count: Int) throws {
        let server = SyntheticServerTransport(count: count)
        let db = try Firestore.emulator(
            host: "127.0.0.1:9", projectID: SyntheticServerTransport.project, transport: server
        )
        .using(protocol: .grpc)
        let collection = db.collection(SyntheticServerTransport.collection)
        MemoryWorkload.trimHeap()
        try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
        let before = MemoryWorkload.kilobytes("VmRSS")
        let cpuBefore = ListenSupport.cpuSeconds()
        let clock = ContinuousClock()
        let start = clock.now
        let received = ResultBox<QuerySnapshot>()
        let got = DispatchSemaphore(value: 0)
        let (release, releaseContinuation) = AsyncStream<Void>.makeStream()
        let task = Task {
            do {
                if path == "listen" {
                    for try await snapshot in collection.snapshots(source: .listen) {
                        received.set(.success(snapshot))
                        got.signal()
                        // Keep listening (the target's state alive) until the measurement is taken.
                        for await _ in release {}
                        break
                    }
                } else {
                    let snapshot = try await collection.getDocuments()
                    received.set(.success(snapshot))
                    got.signal()
                    for await _ in release {}
                    withExtendedLifetime(snapshot) {}
                }
            } catch {
                received.set(.failure(error))
                got.signal()
            }
        }
        got.wait()  // the benchmark's main thread, never a thread of the cooperative pool
        let cpu = ListenSupport.cpuSeconds() - cpuBefore
        let wall = ListenSupport.seconds(clock.now - start)
        let snapshot = try received.get()
        guard snapshot.count == count else {
            throw BenchmarkError(message: "listen-first-snapshot: \(path) snapshot of \(snapshot.count), not \(count)")
        }
        MemoryWorkload.trimHeap()
        let held = (MemoryWorkload.kilobytes("VmRSS") - before) * 1024
        let peak = (MemoryWorkload.kilobytes("VmHWM") - before) * 1024
        releaseContinuation.finish()
        _ = task
        print(#"{"cpu_s":\#(cpu),"wall_s":\#(wall),"held_bytes":\#(held),"peak_bytes":\#(peak)}"#)
        withExtendedLifetime(snapshot) {}
    }
}
