import FirestoreFeed
import FirestoreREST
import FirestoreTestSupport
import Foundation
import Synchronization
import Testing

/// A Listen feed through `Scripts/tcp-fault-proxy`, which cuts or black-holes every open connection about every 5 s at
/// random, while a writer changes 30 documents about 10 times a second straight at the emulator. Every snapshot's
/// changes rebuild its list, every snapshot equals the emulator's state at its read time (a read at that time), read
/// times never go backwards, and the feed ends equal to a direct query. `FIRESTORE_FEED_CHAOS_SECONDS` sets how long
/// the writer runs (default 60; the closing note's run used 600).
@Suite(.timeLimit(.minutes(15))) struct ListenChaosLiveTests {
    /// What the consumer saw.
    struct Seen: Sendable {
        var snapshots = 0
        var checkedAtReadTime = 0
        /// Snapshots equal to the emulator's result just before a commit that preceded their read time (the
        /// emulator's quirk; the commit comes in the next snapshot).
        var pointsBeforeACommit = 0
        /// `id@updateTime` of the last snapshot's documents.
        var current: [String] = []
        var problems: [String] = []
        /// Read times at which the emulator could not be read (3 tries), with the error.
        var unreadable: [String] = []
        /// How the consumer ended, if it did.
        var ended: String?
    }

    static var seconds: Double {
        ProcessInfo.processInfo.environment["FIRESTORE_FEED_CHAOS_SECONDS"].flatMap(Double.init) ?? 60
    }

    /// `id@updateTime` of each document, in order.
    static func versions(_ documents: [DocumentSnapshot]) -> [String] {
        documents.map { "\($0.documentID)@\($0.updateTime?.rfc3339 ?? "-")" }
    }

    /// Applies `snapshot`'s changes to `list` (`id@updateTime`) as the SDKs define them.
    static func apply(_ snapshot: QuerySnapshot, to list: inout [String]) {
        for change in snapshot.documentChanges {
            if let old = change.oldIndex, old < list.count { list.remove(at: old) }
            if let new = change.newIndex, new <= list.count { list.insert(versions([change.document])[0], at: new) }
        }
    }

    /// For each kind of fault, the times from a fault to the feed's `listenFailed` and to its `listenRecovered`
    /// (median and largest): each event is matched to the last fault before it.
    static func recoveryTimes(
        _ timed: [(at: ContinuousClock.Instant, event: FeedEvent)], faults: [JSONValue]
    ) -> String {
        // CLOCK_MONOTONIC is shared by every process: the proxy logs it, mapped here onto ContinuousClock.
        var raw = timespec()
        clock_gettime(CLOCK_MONOTONIC, &raw)
        let now = ContinuousClock.now
        let monotonicNow = Double(raw.tv_sec) + Double(raw.tv_nsec) / 1e9
        let injected: [(at: ContinuousClock.Instant, kind: String)] = faults.compactMap { fault in
            guard case .double(let seconds)? = fault["monotonic"], case .string(let kind)? = fault["kind"],
                case .integer(let connections)? = fault["connections"], connections > 0
            else { return nil }
            return (now - .seconds(monotonicNow - seconds), kind)
        }
        var noticed: [String: [Duration]] = [:]
        var recovered: [String: [Duration]] = [:]
        var pending: (at: ContinuousClock.Instant, kind: String)?
        var index = 0
        for (at, event) in timed {
            while index < injected.count, injected[index].at <= at {
                pending = injected[index]
                index += 1
            }
            guard let fault = pending else { continue }
            switch event {
            case .listenFailed: noticed[fault.kind, default: []].append(at - fault.at)
            case .listenRecovered:
                recovered[fault.kind, default: []].append(at - fault.at)
                pending = nil
            default: break
            }
        }
        func summary(_ values: [Duration]) -> String {
            let sorted = values.sorted()
            guard let largest = sorted.last else { return "none" }
            let median = sorted[sorted.count / 2]
            return "median \(median.formatted(.units(allowed: [.seconds], fractionalPart: .show(length: 2)))), "
                + "largest \(largest.formatted(.units(allowed: [.seconds], fractionalPart: .show(length: 2))))"
        }
        return ["cut", "blackhole"].map { kind in
            "\(kind): noticed \(summary(noticed[kind] ?? [])), recovered \(summary(recovered[kind] ?? []))"
        }.joined(separator: "; ")
    }

    /// `body`'s result, tried up to 10 times 200 ms apart: after minutes of broken Listen calls the emulator fails some
    /// REST requests with `cancelled (HTTP 499)` ("Server sendMessage() failed", "call already cancelled", its own gRPC
    /// server's exceptions) or `unknown (HTTP 500)`.
    static func retrying<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        for _ in 0..<9 {
            if let result = try? await body() { return result }
            try await Task.sleep(for: .milliseconds(200))
        }
        return try await body()
    }

    /// Takes every snapshot of `feed`: checks its changes, its read time and its documents against a read at that time,
    /// and notes what it saw in `seen`. `commits` holds the commit time of every write the writer made (a deletion's
    /// too, which no document's `updateTime` shows).
    static func consume(
        _ feed: AsyncThrowingStream<QuerySnapshot, any Error>, direct: Firestore, into seen: borrowing Mutex<Seen>,
        commits: borrowing Mutex<[Timestamp]>
    ) async throws {
        var list: [String] = []
        var lastReadTime: Timestamp?
        for try await snapshot in feed {
            apply(snapshot, to: &list)
            let documents = versions(snapshot.documents)
            var problems: [String] = []
            if list != documents {
                problems.append("changes did not rebuild the list at \(snapshot.readTime?.rfc3339 ?? "-")")
            }
            list = documents
            var unreadable: String?
            if let readTime = snapshot.readTime {
                if let lastReadTime, readTime < lastReadTime {
                    problems.append("read time went back to \(readTime.rfc3339)")
                }
                lastReadTime = readTime
                do {
                    let atReadTime = try await retrying {
                        try await direct.collection("chaos").getDocuments(readTime: readTime)
                    }
                    if versions(atReadTime.documents) != documents {
                        // The emulator's quirk (as in CheckpointCrashLiveTests): a snapshot point's read_time can
                        // follow a commit the stream sends only after it, so the snapshot is the result just before
                        // one of the last commits; the next snapshot brings the commit. The commits tried are the
                        // writer's (a deletion's commit is in no document) and the documents' update times, the 20
                        // latest at or before the read time: how far before it that commit lies grows with the
                        // emulator's load, so no span of time bounds it.
                        let written = commits.withLock { $0 }
                        let candidates = Set(written + atReadTime.documents.compactMap(\.updateTime))
                            .filter { $0 <= readTime }.sorted(by: >).prefix(20)
                        var earlier = false
                        for commit in candidates {
                            let before = try await retrying {
                                try await direct.collection("chaos").getDocuments(
                                    readTime: commit.subtracting(.nanoseconds(1_000)))
                            }
                            if versions(before.documents) == documents {
                                earlier = true
                                break
                            }
                        }
                        if earlier {
                            seen.withLock { $0.pointsBeforeACommit += 1 }
                        } else {
                            problems.append(
                                "at \(readTime.rfc3339) the feed held \(documents), the emulator "
                                    + "\(versions(atReadTime.documents))")
                        }
                    }
                } catch {
                    unreadable = "\(readTime.rfc3339): \(error)"
                }
            }
            seen.withLock { seen in
                seen.snapshots += 1
                if snapshot.readTime != nil, unreadable == nil { seen.checkedAtReadTime += 1 }
                if let unreadable { seen.unreadable.append(unreadable) }
                seen.current = documents
                seen.problems += problems
            }
        }
    }

    @Test func aWatchThroughCutsAndBlackHolesStaysTrue() async throws {
        let emulator = try EmulatorEnvironment.requireHost()
        let proxy = try await LoopbackPythonServer.start(
            "tcp-fault-proxy", arguments: ["--target", emulator, "--seed", "23", "--interval", "5"])
        defer { proxy.stop() }
        let project = EmulatorEnvironment.uniqueProjectID("chaos")
        let direct = try Firestore.emulator(host: emulator, projectID: project)
        let through = try Firestore.emulator(host: proxy.host, projectID: project)
        for index in 0..<20 { try await direct.collection("chaos").document("d\(index)").setData(["n": .integer(0)]) }

        let events = RecordedEvents()
        let policy = PollingPolicy(
            interval: .milliseconds(200), errorBackoff: .init(initial: .milliseconds(100), maximum: .seconds(1)),
            listenLivenessTimeout: .seconds(6))
        let feed = through.collection("chaos").snapshots(source: .listen, policy: policy) { events.note($0) }
        let seen = Mutex(Seen())
        let commits = Mutex<[Timestamp]>([])
        let consumer = Task {
            do {
                try await Self.consume(feed, direct: direct, into: seen, commits: commits)
                seen.withLock { $0.ended = "the feed ended" }
            } catch {
                seen.withLock { $0.ended = "the feed threw \(error)" }
            }
        }
        defer { consumer.cancel() }

        let started = ContinuousClock.now
        var writes = 0
        var failedWrites: [String] = []
        var random = SystemRandomNumberGenerator()
        while ContinuousClock.now - started < .seconds(Self.seconds) {
            let document = direct.collection("chaos").document("d\(Int.random(in: 0..<30, using: &random))")
            do {
                let result =
                    if Int.random(in: 0..<5, using: &random) == 0 {
                        try await document.delete()
                    } else {
                        try await document.setData(["n": .integer(Int64.random(in: 0..<1000, using: &random))])
                    }
                commits.withLock { $0.append(result.writeTime) }
            } catch {
                // The emulator, whose Listen calls the proxy keeps breaking, has answered a write with "cancelled
                // (HTTP 499): call already cancelled" (its own gRPC server's exception): applied or not, the final
                // comparison reads the state the emulator has.
                failedWrites.append("\(error)")
            }
            writes += 1
            try await Task.sleep(for: .milliseconds(100))
        }
        let final = Self.versions(
            try await Self.retrying { try await direct.collection("chaos").getDocuments() }.documents)
        let caughtUp = ContinuousClock.now
        var equal = false
        while ContinuousClock.now - caughtUp < .seconds(60) {
            if seen.withLock({ $0.current }) == final {
                equal = true
                break
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        let result = seen.withLock { $0 }
        let lines = events.lines
        let faults = proxy.events("fault")
        print(
            "chaos: \(Self.seconds) s, \(writes) writes (\(failedWrites.count) failed: \(Set(failedWrites).sorted())), \(faults.count) faults (\(faults.count { $0["kind"] == "cut" }) "
                + "cuts, \(faults.count { $0["kind"] == "blackhole" }) black holes), \(proxy.events("connection").count) "
                + "connections, \(lines.count { $0.hasPrefix("listenFailed") }) listenFailed, "
                + "\(lines.count { $0 == "listenRecovered" }) listenRecovered, \(lines.count { $0.hasPrefix("listenProbed") }) "
                + "probes, \(result.snapshots) snapshots (\(result.checkedAtReadTime) checked at their read time, \(result.pointsBeforeACommit) of them "
                + "just before a commit), caught "
                + "up in \(ContinuousClock.now - caughtUp)")
        print("chaos: " + Self.recoveryTimes(events.timed, faults: faults))
        print(
            "chaos: consumer \(result.ended ?? "running"), \(result.unreadable.count) snapshots unreadable at their read time"
        )
        #expect(equal, "the feed holds \(result.current), the query \(final); consumer \(result.ended ?? "running")")
        #expect(result.problems == [])
        // How many snapshots met the emulator's quirk (0 in most runs, 1 of 327 snapshots in one) depends on how its
        // commits and the stream's messages interleave, which is the machine's timing: printed above, not bounded.
        // Each was checked to be the emulator's whole result just before a recent commit.
        //
        // The run proves something only if the proxy broke the feed's connection. Its seeded schedule breaks every
        // connection open 2.5 to 7.5 s after the last fault (or the proxy's start), so a run of the default 60 s has
        // several; how many fit in the run is the machine's speed (printed above), so only one that found the feed's
        // connection open is required (and none of a run shorter than 30 s, a quick try).
        let brokeAConnection = faults.contains { fault in
            guard case .integer(let connections)? = fault["connections"] else { return false }
            return connections > 0
        }
        #expect(brokeAConnection || Self.seconds < 30, "faults: \(faults)")
        // A resumed target whose documents were deleted meanwhile may be reset by the server's existence filter
        // (`listenTargetReset`): the protocol's way back to the truth, checked above like every snapshot. The
        // consumer reads the emulator at every snapshot's read time, so on a loaded machine it can fall behind the
        // feed, which then folds the snapshots it missed into one (`snapshotsCoalesced`, the slow-consumer rule),
        // checked at its read time like the others.
        let unexpected = lines.filter {
            !($0.hasPrefix("listenFailed") || $0 == "listenRecovered" || $0.hasPrefix("listenProbed")
                || $0.hasPrefix("listenTargetReset") || $0.hasPrefix("snapshotsCoalesced"))
        }
        #expect(unexpected == [])
        #expect(!lines.contains { $0.hasPrefix("fellBackToPolling") })
    }
}
