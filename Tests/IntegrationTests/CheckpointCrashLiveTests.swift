import FirestoreFeed
import FirestoreREST
import FirestoreTestSupport
import FirestoreTesting
import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Crash safety of durable checkpoints (issue 18): `firestore-feed watch --checkpoint FILE` under concurrent writes
/// on the emulator, killed with SIGKILL at random moments 20 times (the Listen stream, keys and delta polling in
/// turn) and restarted once a write committed after the kill. Each time the store opens and the first snapshot
/// after a restart carries exactly the documents that changed while the watch was down: applied to the checkpoint
/// read from the file just before the restart, its changes give the query's result at the snapshot's `readTime` (a
/// direct read at that time), and every change is a real difference. Meanwhile the test reads the checkpoint again
/// and again, as a monitoring process would: every read is one whole commit. In the end the checkpoint equals a
/// direct query. About 15 s alone; the limit is for the whole suite on two loaded cores.
@Suite(.timeLimit(.minutes(5))) struct CheckpointCrashLiveTests {
    /// Documents by ID: the `v` each holds (every write sets a new, unique `v`).
    typealias Versions = [String: Int64]

    /// Writes at random into `items` until cancelled: sets a fresh `v` on one of 16 IDs (creating or modifying it)
    /// or deletes one; every write stamps `updatedAt` (delta polling's tracking field).
    final class Writer: Sendable {
        let writes = Mutex(0)
        /// The commit time of every write made, in order.
        let commits = Mutex<[Timestamp]>([])
        private let task = Mutex<Task<Void, Never>?>(nil)

        func start(_ db: Firestore, seed: UInt64) {
            task.withLock { task in
                task = Task { [self] in
                    var random = SplitMix64(seed: seed)
                    var version: Int64 = 1_000
                    while !Task.isCancelled {
                        let id = "d\(random.below(16))"
                        version += 1
                        do {
                            let result =
                                if random.below(5) == 0 {
                                    try await db.document("items/\(id)").delete()
                                } else {
                                    try await db.document("items/\(id)").setData(["v": .integer(version)])
                                }
                            writes.withLock { $0 += 1 }
                            commits.withLock { $0.append(result.writeTime) }
                        } catch {
                            // A write the emulator refused under load is simply not made.
                        }
                        try? await Task.sleep(for: .milliseconds(Int64(5 + random.below(25))))
                    }
                }
            }
        }

        func stop() async {
            let running = task.withLock { $0 }
            running?.cancel()
            await running?.value
        }
    }

    /// Reads the checkpoint of `key` again and again while a watch writes it (as a monitoring process would), until
    /// stopped: every read must be one commit's (before the fix, a read between two statements took the feed row
    /// of one commit and the document rows of the next, "12 document rows, the feed row says 13").
    final class StoreReader: Sendable {
        private let state = Mutex<(reads: Int, failures: Int, first: String?)>((0, 0, nil))
        private let task = Mutex<Task<Void, Never>?>(nil)

        init(_ store: FeedCheckpointStore, key: String) {
            task.withLock { task in task = Task { [self] in await read(store, key: key) } }
        }

        private func read(_ store: FeedCheckpointStore, key: String) async {
            while !Task.isCancelled {
                do {
                    _ = try await store.checkpoint(key: key)
                    state.withLock { $0.reads += 1 }
                } catch {
                    state.withLock { state in
                        state.failures += 1
                        if state.first == nil { state.first = "\(error)" }
                    }
                }
                try? await Task.sleep(for: .milliseconds(2))
            }
        }

        /// Stops reading; what went wrong, if anything.
        func stop() async -> String? {
            let running = task.withLock { $0 }
            running?.cancel()
            await running?.value
            let (reads, failures, first) = state.withLock { $0 }
            guard let first else { return nil }
            return "\(failures) of \(reads + failures) checkpoint reads while the watch ran failed, the first: \(first)"
        }
    }

    /// The versions of a stored checkpoint.
    static func versions(_ checkpoint: FeedCheckpoint?) -> Versions {
        var result: Versions = [:]
        for document in checkpoint?.documents ?? [] {
            if case .integer(let v)? = document.fields["v"] { result[document.id] = v }
        }
        return result
    }

    /// The versions of a query result.
    static func versions(_ snapshot: QuerySnapshot) -> Versions {
        var result: Versions = [:]
        for document in snapshot.documents {
            if case .integer(let v)? = document.data()?["v"] { result[document.documentID] = v }
        }
        return result
    }

    /// Checks one jsonl line of the watch against the checkpoint it resumed from (`stored`) and a direct read at
    /// the line's `readTime`; returns what went wrong, if anything. `acknowledged` is the time of the last write
    /// whose answer the writer had before the watch started.
    static func check(
        line: String, stored: FeedCheckpoint?, query: Query, iteration: Int, listen: Bool, commits: [Timestamp],
        acknowledged: Timestamp?
    ) async throws -> [String] {
        let json = try JSONValue.parse(line)
        guard case .string(let time)? = json["readTime"], let changes = json["changes"]?.arrayValue else {
            return ["\(iteration): no readTime or changes in \(line.prefix(200))"]
        }
        let readTime = try Timestamp(rfc3339: time)
        var problems: [String] = []
        let resumed = json["resumed"] == true
        if resumed != (stored != nil) {
            problems.append(
                "\(iteration): resumed is \(resumed), a checkpoint was \(stored == nil ? "not " : "")stored")
        }
        let before = versions(stored)
        var after = before
        var changed: Set<String> = []
        for change in changes {
            guard case .string(let type)? = change["type"], case .string(let id)? = change["id"] else {
                problems.append("\(iteration): a change without type or id")
                continue
            }
            changed.insert(id)
            switch type {
            case "removed":
                if after.removeValue(forKey: id) == nil { problems.append("\(iteration): removed \(id), not stored") }
            case "added", "modified":
                guard case .integer(let v)? = change["data"]?["v"] else {
                    problems.append("\(iteration): \(type) \(id) without v")
                    continue
                }
                if (type == "added") != (after[id] == nil) {
                    problems.append("\(iteration): \(type) \(id), stored: \(after[id].map(String.init) ?? "none")")
                }
                after[id] = v
            default:
                problems.append("\(iteration): change type \(type)")
            }
        }
        let result = try await query.getDocuments(readTime: readTime)
        var truth = versions(result)
        // The emulator's other quirk, on a resumed Listen stream reset under writes: a snapshot point can lack
        // documents of the result that did not change (it sends them after another RESET): reported removed, they
        // come back in a later snapshot. The snapshot matches `state` when it equals `state` less such documents.
        func matches(_ state: Versions) -> Bool {
            guard listen else { return after == state }
            let dropped = state.filter { after[$0.key] == nil && before[$0.key] == $0.value }
            return after == state.filter { dropped[$0.key] == nil }
        }
        if matches(truth), after != truth {
            let lacked = truth.keys.filter { after[$0] == nil }.sorted()
            print("checkpoint crash \(iteration): the emulator's snapshot lacked unchanged documents \(lacked)")
            truth = after
        }
        if after != truth {
            // The emulator's quirk: the read time it gives can follow a commit its answer does not include yet. A
            // Listen snapshot point does (it sends a RESET and the missing document right after), and so does a
            // runQuery sent without a readTime, which a poll's first request is: under 6 concurrent writers, 6 of
            // 521 such answers differed from a read at their own readTime (emulator 1.19.9; production reads are
            // consistent at their read time). Such a snapshot is the result just before one of the commits that were
            // under way when the watch asked: look for it there. The commits are the writer's and the update times
            // of the result (a write whose answer had not arrived when the watch was killed). Only a commit the
            // writer had no answer for when the watch started can be missing: the others were made before the watch
            // asked anything. (A window of time before the read time, 5 s until issue 33, was a bound on how long a
            // commit stays under way in the emulator, which a loaded machine can exceed; and it took in the commits
            // made while the watch was down, before its first request, so a first snapshot lacking them passed.)
            // A first snapshot without a checkpoint resumes nothing, so no write made while the watch was down can be
            // missing from it: there the quirk may lag behind any earlier commit (seen once in a fresh-clone run: the
            // first Listen of a new project answered empty at a read time after the seed's 10 commits).
            let times = Set(commits + result.documents.compactMap(\.updateTime)).sorted(by: >)
            let since = stored == nil ? nil : acknowledged
            for commit in times where commit <= readTime && since.map({ commit > $0 }) ?? true {
                let earlier = versions(
                    try await query.getDocuments(readTime: commit.subtracting(.nanoseconds(1_000))))
                if matches(earlier) {
                    truth = after
                    break
                }
            }
        }
        if after != truth {
            problems.append(
                "\(iteration): checkpoint + changes = \(after.sorted { $0.key < $1.key }), at \(time) the query holds \(truth.sorted { $0.key < $1.key })"
            )
        }
        let differing = Set(before.keys).union(truth.keys).filter { before[$0] != truth[$0] }
        if changed != differing {
            problems.append(
                "\(iteration): changes name \(changed.sorted()), the documents that changed are \(differing.sorted())")
        }
        if !problems.isEmpty {
            let storedAt = stored?.readTime?.rfc3339 ?? "-"
            problems.append(
                "\(iteration): the checkpoint (\(stored?.source ?? "none") at \(storedAt)) held "
                    + "\(before.sorted { $0.key < $1.key }); the line was \(line.prefix(3000))")
        }
        return problems
    }

    /// The checkpoint of `key` in `store`, read as the test does before each round; a store that fails to load is
    /// reported with the round and the source it follows, and the files are copied to a path the test does not
    /// delete (printed), so the rows can be read afterwards.
    static func load(
        _ store: FeedCheckpointStore, key: String, path: String, round: String
    ) async throws -> FeedCheckpoint? {
        do {
            return try await store.checkpoint(key: key)
        } catch {
            let copy = NSTemporaryDirectory() + "checkpoint-crash-kept-\(UUID().uuidString).sqlite"
            for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: path + suffix) {
                try? FileManager.default.copyItem(atPath: path + suffix, toPath: copy + suffix)
            }
            // Loaded again from the copy, with no other connection: whether the file itself is damaged.
            let again: String
            do {
                let kept = try await FeedCheckpointStore(path: copy)
                let checkpoint = try await kept.checkpoint(key: key)
                let count = checkpoint?.documents.count ?? 0
                again = "loads: \(count) documents, generation \(checkpoint?.generation ?? 0)"
            } catch {
                again = "fails too: \(error)"
            }
            print("CheckpointCrashLiveTests: \(round): the store failed to load (\(error)); copy kept at \(copy)")
            throw FirestoreError(
                code: .dataLoss,
                message: "round \(round): \(error); the files are copied to \(copy) (the copy \(again))")
        }
    }

    @Test func aWatchKilledTwentyTimesResumesWithEveryChangeAndEndsEqualToTheQuery() async throws {
        let host = try EmulatorEnvironment.requireHost()
        let project = EmulatorEnvironment.uniqueProjectID("checkpoint-crash")
        let db = try Firestore.emulator(host: host, projectID: project).settingServerTimestamp(on: "updatedAt")
        let query = db.collection("items").query
        for index in 0..<10 { try await db.document("items/d\(index)").setData(["v": .integer(Int64(index))]) }
        let path = NSTemporaryDirectory() + "checkpoint-crash-\(UUID().uuidString).sqlite"
        defer {
            let folder = (path as NSString).deletingLastPathComponent
            let base = (path as NSString).lastPathComponent
            for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] where name.hasPrefix(base)
            {
                try? FileManager.default.removeItem(atPath: folder + "/" + name)
            }
        }
        let modes = [["--mode", "listen"], ["--mode", "keys"], ["--mode", "delta", "--delta-field", "updatedAt"]]
        func watch(_ mode: [String]) throws -> CLIProcess {
            try CLIProcess(
                [
                    "watch", "items", "--emulator", host, "--project", project, "--interval", "0.05", "--format",
                    "jsonl",
                    "--checkpoint", path, "--checkpoint-key", "crash",
                ] + mode)
        }
        let writer = Writer()
        writer.start(db, seed: 18)
        var random = SplitMix64(seed: 2026)
        var problems: [String] = []
        var resumedChecks = 0
        var resumedOddRounds = 0
        var killedAfterFirstLine = 0
        for iteration in 0..<20 {
            let store = try await FeedCheckpointStore(path: path)
            let after = iteration == 0 ? "none" : modes[(iteration - 1) % modes.count][1]
            let stored = try await Self.load(
                store, key: "crash", path: path, round: "\(iteration) (after round \(iteration - 1), \(after))")
            let acknowledged = writer.commits.withLock { $0.last }
            let child = try watch(modes[iteration % modes.count])
            let reader = StoreReader(store, key: "crash")
            // Half the kills come at a random moment after the start (the first snapshot may not be out yet), half
            // at a random moment after the first snapshot was printed.
            let first: String?
            if iteration.isMultiple(of: 2) {
                try await Task.sleep(for: .milliseconds(Int64(random.below(700))))
                first = child.stdout.lines.first
            } else {
                first = await child.stdout.lines(atLeast: 1, timeout: 60).first
                if iteration == 1, first != nil {
                    // Round 1 is killed only once a checkpoint is stored, so every round after it resumes from one
                    // (whether a faster kill came before the first acknowledgement would depend on speed).
                    let deadline = ContinuousClock.now + .seconds(60)
                    while try await store.checkpoint(key: "crash") == nil {
                        guard ContinuousClock.now < deadline else {
                            problems.append("1: no checkpoint stored 60 s after the first snapshot")
                            break
                        }
                        try await Task.sleep(for: .milliseconds(10))
                    }
                }
                try await Task.sleep(for: .milliseconds(Int64(random.below(800))))
            }
            kill(child.process.processIdentifier, SIGKILL)
            let writesAtKill = writer.writes.withLock { $0 }
            let result = await child.finish(timeout: 30)
            if let failed = await reader.stop() { problems.append("\(iteration): \(failed)") }
            if result.status != SIGKILL || child.process.terminationReason != .uncaughtSignal {
                problems.append("\(iteration): exit status \(result.status), stderr: \(result.stderr.prefix(3000))")
            }
            if let first {
                let found = try await Self.check(
                    line: first, stored: stored, query: query, iteration: iteration,
                    listen: iteration % modes.count == 0, commits: writer.commits.withLock { $0 },
                    acknowledged: acknowledged)
                problems += found
                resumedChecks += stored == nil ? 0 : 1
                resumedOddRounds += stored != nil && iteration >= 3 && !iteration.isMultiple(of: 2) ? 1 : 0
                killedAfterFirstLine += 1
            } else if iteration % 2 == 1 {
                problems.append("\(iteration): no first snapshot in 60 s; stderr: \(result.stderr.prefix(3000))")
            }
            // Two more writes answered, so at least one committed after the kill (the second began once the first
            // was answered, after the kill): the next round resumes past a change, whatever the machine's speed.
            let deadline = ContinuousClock.now + .seconds(60)
            while writer.writes.withLock({ $0 }) < writesAtKill + 2 {
                guard ContinuousClock.now < deadline else {
                    problems.append("\(iteration): the writer made no 2 writes in the 60 s after the kill")
                    break
                }
                try await Task.sleep(for: .milliseconds(5))
            }
        }
        await writer.stop()

        // Once more, with the writes stopped: the resumed snapshot is checked as before, then the watch catches up
        // and the checkpoint ends equal to a direct query.
        let store = try await FeedCheckpointStore(path: path)
        let stored = try await Self.load(store, key: "crash", path: path, round: "20 (after round 19, keys)")
        let commits = writer.commits.withLock { $0 }
        let last = try watch(modes[1])
        let line = await last.stdout.lines(atLeast: 1, timeout: 60).first
        if let line {
            problems += try await Self.check(
                line: line, stored: stored, query: query, iteration: 20, listen: false, commits: commits,
                acknowledged: commits.last)
        } else {
            problems.append("20: no first snapshot")
        }
        let truth = Self.versions(try await query.getDocuments())
        var final: Versions = [:]
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            final = Self.versions(
                try await Self.load(store, key: "crash", path: path, round: "20 (keys, running: catching up)"))
            if final == truth { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        last.process.end(grace: 5)
        _ = await last.finish(timeout: 30)
        print(
            "checkpoint crash: \(commits.count) writes, \(killedAfterFirstLine) of 20 rounds printed a first "
                + "snapshot, \(resumedChecks) resumed first snapshots checked")
        #expect(problems == [])
        #expect(final == truth, "the checkpoint did not catch up with the query in 60 s")
        // Every odd round waits for its first snapshot, and every round after round 1 has a checkpoint to resume
        // from: rounds 3, 5, ..., 19.
        #expect(resumedOddRounds == 9, "\(killedAfterFirstLine) rounds printed a first snapshot")
    }
}
