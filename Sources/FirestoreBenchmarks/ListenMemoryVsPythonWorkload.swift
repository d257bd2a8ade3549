import FirestoreFeed
import FirestoreREST
import Foundation
import Synchronization

/// `listen-memory-vs-python` (issue 37): the first snapshot of a Listen feed of N documents on the emulator, this
/// package's client against Google's Python client (`google-cloud-firestore`) in the same run, on the same documents.
///
/// One project's `items` collection is seeded with `QueryProtocolWorkload`'s small documents (batched commits of 500
/// over gRPC), grown to each N in turn (smallest first), and for each N both sides run alternately, `repeats` times
/// each, each in a process of its own, both whole processes (runtime or interpreter, libraries and imports included):
/// - ours: a child process of this executable (``childFlag``) that opens `collection("items").snapshots()` (the public
///   Listen API as a user calls it: the default source, `.listen`, over gRPC) and waits for the first snapshot of N
///   documents;
/// - Python: `Scripts/bench-python-listen` on the tests' Python (`FIRESTORE_FEED_TEST_PYTHON`, else
///   `.build/test-venv`): `collection("items").on_snapshot(callback)` until the callback has a snapshot of N
///   documents.
/// Each reports, at that snapshot, its peak resident memory (`VmHWM`), its CPU time (user + system, since the process
/// started) and the seconds from opening the feed to the snapshot; this process times each from launch to exit.
///
/// Goal, at each N: our peak memory at most Google's Python client's (1x). A missing emulator or Python is a skipped
/// part (`Scripts/bench-report` refuses the run), never a pass.
enum ListenMemoryVsPythonWorkload {
    static let name = "listen-memory-vs-python"
    /// This executable's flag for our side's child: `--listen-memory-child HOST PROJECT N`.
    static let childFlag = "--listen-memory-child"
    static let collection = "items"

    /// One process's figures at its first snapshot of N documents.
    struct Sample {
        /// Peak resident memory (`VmHWM`), bytes.
        var peak: Double
        /// CPU seconds (user + system) since the process started.
        var cpu: Double
        /// Seconds from opening the feed to the snapshot.
        var wall: Double
        /// Seconds from launch to exit, by this process's clock.
        var process: Double

        static func median(_ samples: [Sample]) -> Sample {
            Sample(
                peak: Harness.median(samples.map(\.peak)), cpu: Harness.median(samples.map(\.cpu)),
                wall: Harness.median(samples.map(\.wall)), process: Harness.median(samples.map(\.process)))
        }
    }

    static func run(sizes: [Int], repeats: Int) throws -> [Measurement] {
        guard let host = ListenSupport.emulatorHost(workload: name) else { return [] }
        guard let python = BenchPythonClient.python() else {
            print("\(name): skipped (no FIRESTORE_FEED_TEST_PYTHON or .build/test-venv: Scripts/test-python)")
            return []
        }
        let script = FileManager.default.currentDirectoryPath + "/Scripts/bench-python-listen"
        guard FileManager.default.isReadableFile(atPath: script) else {
            throw BenchmarkError(message: "\(name): no \(script) (run from the package's folder)")
        }
        let project = ListenSupport.projectID("listen-memory")
        let db = try Firestore.emulator(host: host, projectID: project).using(protocol: .grpc)
        let this = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
        let ours = { (n: Int) in
            try child(this, [childFlag, host, project, String(n)], count: n, label: "our child")
        }
        let theirs = { (n: Int) in
            try child(python, [script, host, project, collection, String(n)], count: n, label: "bench-python-listen")
        }
        var seeded = 0
        for n in Set(sizes).sorted() {
            let seconds = try Harness.seconds { try QueryProtocolWorkload.seed(db, indexes: seeded..<n) }
            print("\(name): seeded \(n - seeded) documents (to \(n)) over gRPC in \(ListenSupport.ms(seconds))")
            if seeded == 0 && !quick {
                // One unmeasured run of each, so neither meets the emulator cold.
                _ = try ours(n)
                _ = try theirs(n)
            }
            seeded = n
            var ourSamples: [Sample] = []
            var theirSamples: [Sample] = []
            for _ in 0..<max(repeats, 1) {
                ourSamples.append(try ours(n))
                theirSamples.append(try theirs(n))
            }
            report(n: n, ours: ourSamples, theirs: theirSamples)
        }
        return []
    }

    /// Prints one line per side, the ratios with the goal, and the JSON line of size `n`.
    static func report(n: Int, ours ourSamples: [Sample], theirs theirSamples: [Sample]) {
        let (o, p) = (Sample.median(ourSamples), Sample.median(theirSamples))
        func mb(_ bytes: Double) -> String { String(format: "%.1f MB", bytes / 1e6) }
        func seconds(_ value: Double) -> String { String(format: "%.2f s", value) }
        func ratio(_ value: Double) -> String { String(format: "%.2fx", value) }
        for (side, sample, samples) in [("ours", o, ourSamples), ("python", p, theirSamples)] {
            print(
                "\(name) n=\(n) \(side.padding(toLength: 6, withPad: " ", startingAt: 0)) peak \(mb(sample.peak)) "
                    + "(runs: \(samples.map { String(format: "%.1f", $0.peak / 1e6) }.joined(separator: ", "))), "
                    + "CPU \(seconds(sample.cpu)), feed to first snapshot \(seconds(sample.wall)), "
                    + "launch to exit \(seconds(sample.process))  (median of \(samples.count))")
        }
        let peakRatio = o.peak / p.peak
        let verdict = Harness.goal(
            "\(name) at \(n): peak memory, this client's whole process / Google's Python client's",
            figure: ratio(peakRatio), target: "<= 1x", met: peakRatio <= 1)
        print(
            "\(name) n=\(n) ours/python: peak \(ratio(peakRatio)) (target <= 1x: \(verdict)), CPU "
                + "\(ratio(o.cpu / p.cpu)), feed to first snapshot \(ratio(o.wall / p.wall)), launch to exit "
                + "\(ratio(o.process / p.process))")
        print(
            #"{"workload":"\#(name)","n":\#(n),"ours_peak_bytes":\#(Int(o.peak)),"ours_cpu_s":\#(o.cpu),"#
                + #""ours_wall_s":\#(o.wall),"ours_process_s":\#(o.process),"python_peak_bytes":\#(Int(p.peak)),"#
                + #""python_cpu_s":\#(p.cpu),"python_wall_s":\#(p.wall),"python_process_s":\#(p.process),"#
                + #""peak_ratio":\#(peakRatio)}"#)
    }

    /// Runs one side's process to its exit and reads its line `ok DOCUMENTS PEAK_BYTES CPU_SECONDS WALL_SECONDS`.
    /// - Throws: ``BenchmarkError`` when it fails, reports other than `count` documents, or no peak (0: unread).
    static func child(_ executable: String, _ arguments: [String], count: Int, label: String) throws -> Sample {
        let result = try MirrorSupport.command(executable, arguments)
        let parts = result.output.split(separator: "\n").last?.split(separator: " ") ?? []
        guard result.status == 0, parts.count == 5, parts[0] == "ok", Int(parts[1]) == count,
            let peak = Double(parts[2]), peak > 0, let cpu = Double(parts[3]), let wall = Double(parts[4])
        else {
            throw BenchmarkError(
                message: "\(name): \(label) (\(count) documents) exited \(result.status): "
                    + "\(result.output.suffix(500)) \(result.errors.suffix(1500))")
        }
        return Sample(peak: peak, cpu: cpu, wall: wall, process: result.seconds)
    }

    /// Our side's child (``childFlag``): a Listen feed of `project`'s `items` on the emulator at `host` until its
    /// first snapshot of `count` documents; prints `ok DOCUMENTS PEAK_BYTES CPU_SECONDS WALL_SECONDS` taken while the
    /// feed holds that snapshot (as ``ListenFirstSnapshotWorkload`` holds it).
    /// - Throws: when the feed fails, falls back to polling, or has no snapshot of `count` documents within 600 s.
    static func runChild(host: String, project: String, count: Int) throws {
        let db = try Firestore.emulator(host: host, projectID: project)
        let fallback = Mutex<String?>(nil)
        let received = ResultBox<Int>()
        let got = DispatchSemaphore(value: 0)
        let (release, releaseContinuation) = AsyncStream<Void>.makeStream()
        let clock = ContinuousClock()
        let start = clock.now
        let feed = db.collection(collection).snapshots(onEvent: { event in
            if case .fellBackToPolling(let reason) = event { fallback.withLock { $0 = reason } }
        })
        let task = Task {
            do {
                for try await snapshot in feed where snapshot.count == count {
                    received.set(.success(snapshot.count))
                    got.signal()
                    // Keep the snapshot and the Listen target alive until the figures are taken.
                    for await _ in release {}
                    withExtendedLifetime(snapshot) {}
                    return
                }
                received.set(.failure(BenchmarkError(message: "the feed ended without a snapshot of \(count)")))
            } catch {
                received.set(.failure(error))
            }
            got.signal()
        }
        // The benchmark's main thread, never a thread of the cooperative pool.
        guard got.wait(timeout: .now() + 600) == .success else {
            throw BenchmarkError(message: "\(childFlag): no snapshot of \(count) documents within 600 s")
        }
        let cpu = ListenSupport.cpuSeconds()
        let wall = ListenSupport.seconds(clock.now - start)
        let peak = MemoryWorkload.kilobytes("VmHWM") * 1024
        let documents = try received.get()
        if let reason = fallback.withLock({ $0 }) {
            throw BenchmarkError(message: "\(childFlag): the feed fell back to polling (\(reason))")
        }
        print("ok \(documents) \(peak) \(cpu) \(wall)")
        releaseContinuation.finish()
        _ = task
    }
}
