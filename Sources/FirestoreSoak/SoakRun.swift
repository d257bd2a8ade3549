import FirestoreFeed
import FirestoreREST
import FirestoreTesting
import Foundation
import Synchronization

/// One soak run: a keys-mode feed on `items` (ordered by `n`) polls through the fault proxy while a writer
/// task creates, deletes and moves documents directly on the emulator; then the feed's list is compared
/// with a direct query.
///
/// The writer keeps `documents` documents alive: each step creates a new ID with a random `n`, deletes the
/// oldest one (recording it first, so the checker knows the removal is real) and every third step gives a
/// live document a new `n` (a modification that moves it). IDs are never reused. When the feed has made
/// `polls` polls the writer adds `marker` (the largest `n`) and stops; the run ends when the feed lists it.
enum SoakRun {
    static func run(_ options: SoakOptions) async throws -> SoakFigures {
        // Writes and the final query over REST, as the feed's requests through the HTTP fault proxy: the soak measures
        // the REST path under faults.
        let direct = try Firestore.emulator(host: options.emulator, projectID: options.project).using(protocol: .rest)
        // A 2 s request timeout: the proxy's `timeout` fault stalls for 3 s.
        let counting = PollCountingTransport(CurlTransport(configuration: .init(connectTimeout: 2, requestTimeout: 2)))
        let viaProxy = try Firestore.emulator(host: options.proxy, projectID: options.project, transport: counting)
        let items = direct.collection("items")
        var random = SplitMix64(seed: 20_261_129)
        for number in 0..<options.documents {
            try await items.document("d\(number)").setData(["n": .integer(random.nextN())])
        }

        let shared = SharedState()
        let policy = PollingPolicy(
            interval: .milliseconds(options.intervalMilliseconds),
            errorBackoff: .init(initial: .milliseconds(10), multiplier: 2, maximum: .milliseconds(80)), jitter: 0)
        let stream = viaProxy.collection("items").order(by: "n").snapshots(source: .poll(.keys), policy: policy) {
            event in
            if case .pollFailed(let error, _) = event {
                shared.failures.withLock { $0[error.code.name, default: 0] += 1 }
            }
        }

        let baseline = options.memoryBaselinePolls
        let monitor = Task {
            var next = baseline
            while !Task.isCancelled {
                if counting.polls >= next {
                    if let bytes = ResidentMemory.bytes() { shared.memory.withLock { $0[next] = bytes } }
                    next = next < 100 ? 100 : next + 100
                }
                try? await Task.sleep(for: .milliseconds(5))
            }
        }
        let writer = Task { [random] () -> (steps: Int, error: String?) in
            var random = random
            var step = 0
            var failure: String?
            do {
                while counting.polls < options.polls {
                    let created = options.documents + step
                    try await items.document("d\(created)").setData(["n": .integer(random.nextN())])
                    _ = shared.deleted.withLock { $0.insert("d\(step)") }
                    try await items.document("d\(step)").delete()
                    if step % 3 == 0 {
                        let live = step + 1 + Int(random.next() % UInt64(options.documents))
                        try await items.document("d\(live)").updateData(["n": .integer(random.nextN())])
                    }
                    step += 1
                    try await Task.sleep(for: .milliseconds(options.writeMilliseconds))
                }
            } catch {
                failure = "\(error)"
            }
            _ = try? await items.document("marker").setData(["n": .integer(Int64.max)])
            return (step, failure)
        }

        let started = ContinuousClock.now
        let consumer = Task { () throws -> ChangeListCheck in
            var check = ChangeListCheck()
            for try await snapshot in stream {
                check.apply(snapshot) { id in shared.deleted.withLock { $0.contains(id) } }
                if check.list.last == "marker" { break }
            }
            return check
        }
        // A feed that stops making progress must not hang the run.
        let deadline = Duration.seconds(max(300, options.polls))
        let watchdog = Task {
            try await Task.sleep(for: deadline)
            consumer.cancel()
        }
        let outcome = await consumer.result
        watchdog.cancel()
        let (steps, writerError) = await writer.value
        monitor.cancel()
        let endMemory = ResidentMemory.bytes() ?? 0
        let elapsed = ContinuousClock.now - started

        var figures = SoakFigures()
        figures.polls = counting.polls
        figures.writerSteps = steps
        figures.writerError = writerError
        figures.failedPolls = shared.failures.withLock { $0 }
        figures.memoryBaselinePolls = baseline
        figures.memoryAtBaseline = shared.memory.withLock { $0[baseline] }
        figures.memorySeries = shared.memory.withLock { $0 }.sorted { $0.key < $1.key }.map(\.value)
        figures.memoryAtEnd = endMemory
        figures.memoryTolerancePercent = options.memoryTolerancePercent
        figures.seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        switch outcome {
        case .success(let check):
            figures.snapshots = check.snapshots
            figures.changes = check.counts
            figures.spurious = check.problems
            figures.feedList = check.list
        case .failure(let error):
            figures.feedError = "\(error)"
        }
        if !figures.feedList.contains("marker"), figures.feedError == nil {
            figures.feedError = "the feed did not list the marker within \(deadline)"
        }
        figures.directList = try await direct.collection("items").order(by: "n").getDocuments().documents
            .map(\.documentID)
        if let path = options.proxyLog { figures.proxyRequests = ProxyLog.counts(path: path) }
        return figures
    }
}

/// What the run's tasks share.
final class SharedState: Sendable {
    /// Failed polls by error code.
    let failures = Mutex<[String: Int]>([:])
    /// Documents the writer deleted (or is deleting).
    let deleted = Mutex<Set<String>>([])
    /// Resident memory in bytes by poll count (at the baseline and every 100 polls).
    let memory = Mutex<[Int: Int]>([:])
}

/// The seeded generator (SplitMix64), so a run writes the same `n` values every time.
extension SplitMix64 {
    /// A value for the `n` field: 0 ..< 1,000,000,000.
    mutating func nextN() -> Int64 { Int64(next() % 1_000_000_000) }
}

/// Counts of the fault proxy's `fault=<kind> METHOD PATH` lines by kind (`none` for a request passed on).
enum ProxyLog {
    static func counts(path: String) -> [String: Int] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [:] }
        var counts: [String: Int] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("fault=") {
            let kind = line.dropFirst("fault=".count).prefix { $0 != " " }
            counts[String(kind), default: 0] += 1
        }
        return counts
    }
}
