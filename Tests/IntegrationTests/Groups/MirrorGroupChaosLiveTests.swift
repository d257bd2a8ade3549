import FirestorePostgres
import FirestoreREST
import FirestoreTestSupport
import Foundation
import Synchronization
import Testing

@testable import FirestoreFeed

#if canImport(Glibc)
    import Glibc
#endif

/// Three `firestore-feed mirror --group` processes share one store under a writer, in each store (`--sqlite`: one
/// SQLite file; `--postgres`: one PostgreSQL table); one member is SIGKILLed and started again, and one is SIGSTOPped
/// past its lease while it has a batch in hand, then SIGCONTed. At the end the table equals the query, the audit
/// trigger shows no version applied twice while held and none after a newer one, and every batch the store refused
/// (the stale member's) had a generation below the stored one.
///
/// The stale batch is certain, not a matter of timing: the test takes the lock the holder's next apply needs, sees the
/// holder wait for it inside its transaction, before the fencing read, and SIGSTOPs it there.
/// - PostgreSQL: the test locks the paused shard's resume row, so the holder's next apply of the shard waits inside
///   the fencing read (`SELECT generation ... FOR UPDATE`, seen waiting in `pg_stat_activity`); the test waits until
///   the lease documents show another member at a higher generation, then, in the locking transaction, stores that
///   generation in the shard's resume row, as the new owner's first commit would when it wins the race with the paused
///   member (the new owner's own apply of the shard waits behind the paused one for the lock), and commits. (The lock
///   cannot be released earlier: the paused member's server process would take it at once and hold it.)
/// - SQLite: the test holds the file's write lock (`BEGIN IMMEDIATE`), so the holder's next apply (any shard's: the
///   lock is the file's) waits in `BEGIN IMMEDIATE`, before its fencing read: its `sqlite-mirror` thread is seen
///   sleeping in SQLite's busy handler (`/proc/PID/task/TID/syscall`: `nanosleep`). The test SIGSTOPs it there, waits
///   until every thread of the member is stopped (`/proc/PID/task/TID/stat`: `T`; `kill` returns before the stop
///   reaches them, and a thread let go of the lock before its stop could commit the batch), and only then releases the
///   lock (SQLite's busy timeout counts the handler's sleeps, not the clock, so a stopped member's does not run out); the other members go on, take the paused member's shards at higher generations and commit them:
///   the test waits until no lease is the paused member's and every shard's resume row holds its lease's generation,
///   so the new owners win the race for real, whichever shard the batch in hand is of.
///
/// At SIGCONT the paused member reads the higher generation and its batch is refused (`note: ... refused a batch of
/// shard S at generation G: it holds generation H ...` on its stderr: `mirror` tells every refusal). Times are hang
/// guards only; the pause lasts two lease lengths at least, so that every lease of the paused member has expired.
@Suite(.timeLimit(.minutes(5))) struct MirrorGroupChaosLiveTests {
    static let shards = 3
    static let lease = 3

    /// A running member and its id.
    struct Member: Sendable {
        let id: String
        var process: CLIProcess
        var earlier: [String] = []

        /// Everything it wrote to stderr, in this and its earlier runs.
        var stderr: String {
            (earlier + [String(decoding: process.stderr.data, as: UTF8.self)]).joined(separator: "\n")
        }
    }

    /// A refusal by the store, as the member reported it.
    struct Refusal: CustomStringConvertible {
        let member: String
        let shard: Int
        let generation: Int64
        let stored: Int64
        var description: String { "\(member): shard \(shard) at \(generation), store at \(stored)" }
    }

    /// The lines `note: SINK refused a batch of shard S at generation G: it holds generation H (...)`, one per batch
    /// the store refused (`mirror` tells every refusal).
    static func refusals(_ stderr: String, member: String) -> [Refusal] {
        stderr.split(separator: "\n").compactMap { line in
            guard line.hasPrefix("note: "), let refused = line.range(of: " refused a batch of shard ") else {
                return nil
            }
            // S at generation G: it holds generation H (nothing of the batch was applied)
            let words = line[refused.upperBound...].split(separator: " ")
            guard words.count > 7, let shard = Int(words[0]), words[1] == "at",
                let generation = Int64(words[3].dropLast()),
                words[6] == "generation", let stored = Int64(words[7])
            else { return nil }
            return Refusal(member: member, shard: shard, generation: generation, stored: stored)
        }
    }

    /// A connection to the store kept open across calls (the lock's transaction), used only on `worker`.
    final class Session: @unchecked Sendable {
        private let box: ConnectionBox
        private let worker: BlockingExecutor

        init(_ store: MirrorChaosStore) async throws {
            let worker = BlockingExecutor(name: "group-chaos-session")
            let (kind, location) = (store.kind, store.location)
            let opened = try await worker.run { () throws(FirestoreError) in
                switch kind {
                case .sqlite: ConnectionBox(.sqlite(try SQLiteConnection(path: location, label: "group chaos lock")))
                case .postgres: ConnectionBox(.postgres(try PostgresConnection(url: location)))
                }
            }
            self.worker = worker
            box = opened
        }

        /// The rows of `sql`, each column as text (`NULL` as empty).
        func rows(_ sql: String) async throws -> [[String]] {
            try await worker.run { [box] () throws(FirestoreError) -> [[String]] in
                switch box.connection {
                case .sqlite(let connection): try connection.rows(sql, doing: "a group chaos query")
                case .postgres(let connection):
                    try connection.query(sql, doing: "a group chaos query").all.map { row in row.map { $0 ?? "" } }
                }
            }
        }

        func execute(_ sql: String) async throws {
            try await worker.run { [box] () throws(FirestoreError) in
                switch box.connection {
                case .sqlite(let connection): try connection.execute(sql, doing: "a group chaos statement")
                case .postgres(let connection): try connection.execute(sql, doing: "a group chaos statement")
                }
            }
        }

        private enum Connection {
            case sqlite(SQLiteConnection)
            case postgres(PostgresConnection)
        }

        private final class ConnectionBox: @unchecked Sendable {
            let connection: Connection
            init(_ connection: Connection) { self.connection = connection }
        }
    }

    /// Whether a `sqlite-mirror` thread of process `pid` sleeps (`nanosleep` or `clock_nanosleep`, read in
    /// `/proc/PID/task/TID/syscall`): while the test holds the file's write lock, that is SQLite's busy handler, in
    /// the member's `BEGIN IMMEDIATE` (reads do not wait for the writer in WAL mode).
    static func sleepsInSQLite(pid: Int32) -> Bool {
        #if arch(x86_64)
            let sleeps: Set<String> = ["35", "230"]
        #elseif arch(arm64)
            let sleeps: Set<String> = ["101", "115"]
        #else
            let sleeps: Set<String> = []
        #endif
        let tasks = "/proc/\(pid)/task"
        let threads = (try? FileManager.default.contentsOfDirectory(atPath: tasks)) ?? []
        return threads.contains { thread in
            guard let name = try? String(contentsOfFile: "\(tasks)/\(thread)/comm", encoding: .utf8),
                name.trimmingCharacters(in: .whitespacesAndNewlines) == "sqlite-mirror",
                let syscall = try? String(contentsOfFile: "\(tasks)/\(thread)/syscall", encoding: .utf8),
                let number = syscall.split(separator: " ").first
            else { return false }
            return sleeps.contains(String(number))
        }
    }

    /// A thread of a process as `/proc/PID/task/TID` shows it.
    struct ThreadState: CustomStringConvertible {
        let id: String
        let name: String
        /// `stat`'s state letter: `R` running, `S` sleeping, `T` stopped, ...
        let state: String
        /// `syscall`'s first word: the system call's number, or `running`.
        let syscall: String
        var description: String { "\(id) \(name) \(state) \(syscall)" }
    }

    /// Each thread of process `pid` (none once it ended).
    static func threads(pid: Int32) -> [ThreadState] {
        let tasks = "/proc/\(pid)/task"
        let threads = (try? FileManager.default.contentsOfDirectory(atPath: tasks)) ?? []
        return threads.sorted().map { thread in
            let stat = (try? String(contentsOfFile: "\(tasks)/\(thread)/stat", encoding: .utf8)) ?? ""
            // "TID (NAME) STATE ...": the name may hold spaces and parentheses, so it ends at the last ")".
            let open = stat.firstIndex(of: "(")
            let close = stat.lastIndex(of: ")")
            var name: String?
            if let open, let close, open < close { name = String(stat[stat.index(after: open)..<close]) }
            let state = close.map { String(stat[$0...].dropFirst(2).prefix(1)) }
            let syscall = ((try? String(contentsOfFile: "\(tasks)/\(thread)/syscall", encoding: .utf8)) ?? "")
                .split(whereSeparator: \.isWhitespace).first.map(String.init)
            return ThreadState(id: thread, name: name ?? "?", state: state ?? "?", syscall: syscall ?? "?")
        }
    }

    /// Whether every thread of process `pid` is stopped (`T`; one that is ending, `Z` or `X`, is left out).
    static func stopped(pid: Int32) -> Bool {
        let states = threads(pid: pid).map(\.state)
        return !states.isEmpty && states.allSatisfy { ["T", "Z", "X"].contains($0) }
    }

    /// How many batches the member started to apply (`mirror: applying ...` lines on its stderr so far).
    static func applying(_ stderr: String) -> Int {
        stderr.split(separator: "\n").filter { $0.hasPrefix("mirror: applying ") }.count
    }

    /// Whether the last batch the member started to apply is not seen finished yet: no `mirror: applied ...` line nor
    /// refusal after its `mirror: applying ...` line.
    static func lastBatchUnfinished(_ stderr: String) -> Bool {
        let lines = stderr.split(separator: "\n")
        guard let last = lines.lastIndex(where: { $0.hasPrefix("mirror: applying ") }) else { return false }
        return !lines[(last + 1)...].contains { line in
            line.hasPrefix("mirror: applied ") || line.contains(" refused a batch of ")
        }
    }

    /// The lease of `shard`: its owner (empty when released) and generation.
    static func lease(_ db: Firestore, shard: Int) async -> (owner: String, generation: Int64)? {
        guard let data = try? await db.document("feedGroups/g/shards/\(shard)").getDocument().data(),
            case .string(let owner)? = data["owner"], case .integer(let generation)? = data["generation"]
        else { return nil }
        return (owner, generation)
    }

    /// The member's command line. With SQLite, a busy timeout of an hour: the test holds the file's write lock while it
    /// finds the paused member waiting for it, and every member waits for it meanwhile; SQLite counts the waits, so at
    /// the default 10 s a loaded machine could make a member's batch fail for the lock, not for its generation.
    static func arguments(host: String, project: String, store: MirrorChaosStore, member: String) -> [String] {
        [
            "mirror", "items", "--emulator", host, "--project", project, "--group", "g", "--shards", "\(shards)",
            "--lease", "\(lease)", "--renew", "0.5", "--member", member, "--verbose",
        ] + store.sinkArguments + (store.kind == .sqlite ? ["--busy-timeout", "3600"] : [])
    }

    @Test func aMemberPausedPastItsLeaseHasItsStaleBatchRefusedBySQLiteAndTheTableEndsEqualToTheQuery() async throws {
        try await Self.pausedPastItsLease(.sqlite)
    }

    @Test(.needsPostgres)
    func aMemberPausedPastItsLeaseHasItsStaleBatchRefusedByPostgresAndTheTableEndsEqualToTheQuery() async throws {
        try await Self.pausedPastItsLease(.postgres)
    }

    static func pausedPastItsLease(_ kind: MirrorChaosStore.Kind) async throws {
        let host = try EmulatorEnvironment.requireHost()
        let project = EmulatorEnvironment.uniqueProjectID("mirror-group-chaos")
        let db = try Firestore.emulator(host: host, projectID: project)
        let items = db.collection("items")
        let names = (0..<60).map { String(format: "d%02d", $0) }
        let seed = db.batch()
        for (index, name) in names.enumerated() {
            try seed.setData(["v": .integer(0), "i": .integer(Int64(index))], forDocument: items.document(name))
        }
        _ = try await seed.commit()
        let store = try await MirrorChaosStore.make(kind, label: "group_chaos")
        defer { Task { await store.remove() } }
        let table = store.table
        let trace = Mutex<[String]>([])

        // The writer: a random document every 10 to 40 ms, a sixth of the writes deleting it.
        let writes = Mutex(0)
        // Each document's writes with their commit times, printed for a document the table got wrong.
        let history = Mutex<[String: [String]]>([:])
        let writing = Task {
            var version: Int64 = 1
            while !Task.isCancelled {
                let document = items.document(names.randomElement() ?? "d00")
                do {
                    let deleting = Int.random(in: 0..<6) == 0
                    let result =
                        deleting
                        ? try await document.delete() : try await document.setData(["v": .integer(version)])
                    let line = "\(deleting ? "delete" : "set \(version)") at \(result.writeTime.rfc3339)"
                    history.withLock { $0[document.documentID, default: []].append(line) }
                    writes.withLock { $0 += 1 }
                } catch {
                    // A write the emulator refused under load is simply not made.
                }
                version += 1
                try? await Task.sleep(for: .milliseconds(Int.random(in: 10...40)))
            }
        }
        defer { writing.cancel() }

        var members = try ["a", "b", "c"].map { id in
            Member(
                id: id, process: try CLIProcess(Self.arguments(host: host, project: project, store: store, member: id)))
        }
        defer { for member in members { member.process.process.end(grace: 5) } }
        // Every shard held, and each written by its holder at its lease's generation.
        func settled() async -> [Int: (owner: String, generation: Int64)]? {
            var leases: [Int: (owner: String, generation: Int64)] = [:]
            for shard in 0..<Self.shards {
                guard let lease = await Self.lease(db, shard: shard), !lease.owner.isEmpty,
                    let stored = try? await store.rows("SELECT generation FROM \(table)_resume WHERE shard = \(shard)"),
                    stored.first?.first == String(lease.generation)
                else { return nil }
                leases[shard] = lease
            }
            return leases
        }
        /// The first settled state seen within 90 s where `accept` holds (read once: a renewal or a commit between two
        /// reads can unsettle it again for a moment).
        func settling(
            _ accept: @escaping @Sendable ([Int: (owner: String, generation: Int64)]) -> Bool = { _ in true }
        ) async -> [Int: (owner: String, generation: Int64)]? {
            let seen = Mutex<[Int: (owner: String, generation: Int64)]?>(nil)
            _ = await eventuallyAsync(seconds: 90) {
                guard let leases = await settled(), accept(leases) else { return false }
                seen.withLock { $0 = leases }
                return true
            }
            return seen.withLock { $0 }
        }
        let first = try #require(await settling(), "every shard held and written")

        // A member that holds a shard SIGKILLed and started again (as a new member): its leases expire and are
        // taken over.
        let killed = try #require(members.firstIndex { $0.id == first[0]?.owner })
        let killedID = members[killed].id
        kill(members[killed].process.process.processIdentifier, SIGKILL)
        _ = await members[killed].process.process.exitStatus(timeout: 30)
        members[killed] = Member(
            id: killedID + "2",
            process: try CLIProcess(
                Self.arguments(host: host, project: project, store: store, member: killedID + "2")),
            earlier: [String(decoding: members[killed].process.stderr.data, as: UTF8.self)])
        // The pause: the holder of the first shard, once the killed member's shards are taken over.
        let leases = try #require(
            await settling { !$0.values.contains { $0.owner == killedID } }, "the killed member's shards taken over")
        let (shard, held) = try #require(
            leases.sorted { $0.key < $1.key }.first.map { ($0.key, $0.value) })
        let paused = try #require(members.firstIndex { $0.id == held.owner })
        let pid = members[paused].process.process.processIdentifier
        let session = try await Session(store)
        // The holder's next batch (the writer touches every shard) waits for the lock, before its fencing read.
        let waiting: Bool
        switch kind {
        case .sqlite:
            try await session.execute("BEGIN IMMEDIATE")
            // A batch the holder started (`--verbose`: `mirror: applying ...`) and did not finish cannot commit
            // before the test lets go: one started once the test holds the lock, or the last one started, not seen
            // finished (the holder applies one batch at a time, so one that started just before the lock and waits
            // for it is the last line of its kind for good). Its thread sleeps in SQLite's busy handler meanwhile.
            let before = Self.applying(members[paused].stderr)
            trace.withLock { $0.append("\(ContinuousClock.now) lock taken; \(before) applying lines before") }
            waiting = await eventuallyAsync(seconds: 60) {
                let stderr = members[paused].stderr
                return (Self.applying(stderr) > before || Self.lastBatchUnfinished(stderr))
                    && Self.sleepsInSQLite(pid: pid)
            }
        case .postgres:
            let observer = try await Session(store)
            try await session.execute("BEGIN")
            _ = try await session.rows("SELECT generation FROM \(table)_resume WHERE shard = \(shard) FOR UPDATE")
            waiting = await eventuallyAsync(seconds: 60) {
                let rows = try? await observer.rows(
                    """
                    SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'
                    AND query LIKE '%\(table)_resume% FOR UPDATE%'
                    """)
                return rows?.first?.first.flatMap(Int.init).map { $0 >= 1 } ?? false
            }
        }
        if !waiting {
            print(
                "mirror group chaos (\(kind)): the holder's apply not seen waiting; threads \(Self.threads(pid: pid)); "
                    + "trace \(trace.withLock { $0 }); stderr of \(held.owner):\n"
                    + members[paused].stderr.suffix(6_000))
        }
        try #require(waiting, "the holder's apply waits for the lock")
        trace.withLock {
            $0.append("\(ContinuousClock.now) waiting seen; \(Self.applying(members[paused].stderr)) applying lines")
        }
        kill(pid, SIGSTOP)
        let afterKill = Self.threads(pid: pid)
        // `kill` returns before the member is stopped: one of its threads takes the signal and stops the others, and
        // until then they run. The lock is held until every thread is seen stopped, so that the batch waiting for it
        // is still in hand (released earlier, its thread could take it, find no higher generation yet and commit:
        // fc22, fc31, fc35, reproduced with the member's signal-taking thread in the idle scheduling class).
        let stopped = await eventually(seconds: 60) { Self.stopped(pid: pid) }
        let stderrAtStop = members[paused].stderr.count
        trace.withLock {
            $0.append(
                "\(ContinuousClock.now) SIGSTOP sent (\(stderrAtStop) characters); threads right after: \(afterKill); "
                    + "once stopped: \(Self.threads(pid: pid))")
        }
        try #require(stopped, "every thread of \(held.owner) stopped: \(Self.threads(pid: pid))")
        let pauseWall = Timestamp.now().rfc3339
        let pausedAt = ContinuousClock.now
        // Other members take the paused member's shards at higher generations once its leases expire.
        var takenOver: [Int: (owner: String, generation: Int64)] = [:]
        switch kind {
        case .sqlite:
            // The lock released, the new owners commit the shards they took: the paused member's batch loses the race.
            let beforeRollback = Self.threads(pid: pid)
            try await session.execute("ROLLBACK")
            trace.withLock { $0.append("\(ContinuousClock.now) lock released; threads before: \(beforeRollback)") }
            // Every shard settled and none the paused member's: whichever shard its batch in hand is of, the store
            // holds a higher generation for it.
            takenOver = try #require(
                await settling { !$0.values.contains { $0.owner == held.owner } },
                "the paused member's shards taken over and written")
        case .postgres:
            let took = await eventuallyAsync(seconds: 60) {
                guard let lease = await Self.lease(db, shard: shard), !lease.owner.isEmpty,
                    lease.owner != held.owner, lease.generation > held.generation
                else { return false }
                takenOver = [shard: lease]
                return true
            }
            try #require(took, "another member took shard \(shard)")
        }
        let taken = takenOver
        // Paused for two lease lengths at least, the writer going on (a hang guard is not what this is: the member's
        // leases must all have expired, whatever the machine's speed, so that the pause is past every lease).
        try await Task.sleep(until: pausedAt + .seconds(2 * Self.lease))
        if kind == .postgres {
            let newGeneration = try #require(taken[shard]?.generation)
            // The new owner's first commit, winning the race with the paused member.
            try await session.execute("UPDATE \(table)_resume SET generation = \(newGeneration) WHERE shard = \(shard)")
            try await session.execute("COMMIT")
        }
        let storedAtResume = try await store.rows("SELECT shard, generation FROM \(table)_resume ORDER BY shard")
        let stderrAtResume = members[paused].stderr.count
        trace.withLock { $0.append("\(ContinuousClock.now) SIGCONT; stored \(storedAtResume); taken \(taken)") }
        kill(pid, SIGCONT)
        let resumeWall = Timestamp.now().rfc3339
        let pause = ContinuousClock.now - pausedAt
        // The paused member's batch in hand, refused: a refusal of the paused member at a stored generation at or
        // after the one taken (stored before the pause, a generation was at most the paused member's), in PostgreSQL
        // of the locked shard at its generation then.
        let inHand = { @Sendable (refusal: Refusal) -> Bool in
            refusal.member == held.owner && (taken[refusal.shard].map { refusal.stored >= $0.generation } ?? false)
                && (kind == .sqlite || (refusal.shard == shard && refusal.generation == held.generation))
        }
        let refused = await eventuallyAsync(seconds: 60) {
            Self.refusals(members[paused].stderr, member: members[paused].id).contains(where: inHand)
        }

        // The rest of the run under the writer, then the writer stops and the table catches up.
        try await Task.sleep(for: .seconds(3))
        writing.cancel()
        _ = await writing.value
        let reader = try await store.open()
        let converged = await MirrorChaosLiveTests.converges(reader, to: items.query)
        if !converged {
            try await MirrorChaosLiveTests.printDifference(store, reader, items.query)
            let held = Set(try await reader.documents().map(\.id))
            let expected = Set(try await items.query.getDocuments().documents.compactMap(\.document).map(\.id))
            for id in held.symmetricDifference(expected).sorted() {
                let audit = try await store.rows(
                    "SELECT seq, update_time FROM \(store.auditTable) WHERE name LIKE '%/\(id)' ORDER BY seq")
                print(
                    "mirror group chaos: \(id): writes \(history.withLock { $0[id] ?? [] }); audit \(audit); "
                        + "pause from \(pauseWall) to \(resumeWall)")
            }
        }
        var results: [String: CLIProcess.Result] = [:]
        for member in members { kill(member.process.process.processIdentifier, SIGTERM) }
        for member in members { results[member.id] = await member.process.finish(timeout: 60) }
        let stderr = members.map { member in
            "\(member.id):\n\(member.earlier.joined(separator: "\n"))\(results[member.id]?.stderr ?? "")"
        }.joined(separator: "\n")
        if !converged { print("mirror group chaos: the members' stderr:\n\(stderr)") }
        let allRefusals = members.flatMap { member in
            Self.refusals(
                member.earlier.joined(separator: "\n") + (results[member.id]?.stderr ?? ""), member: member.id)
        }
        if !allRefusals.contains(where: inHand) {
            let steps = trace.withLock { $0 }.joined(separator: "\n")
            print(
                "mirror group chaos (\(kind)): no refusal of the paused member's batch; trace:\n\(steps)\n"
                    + "the paused member \(held.owner)'s stderr (\(stderrAtResume) characters at SIGCONT):\n"
                    + members[paused].stderr)
        }
        let figures = MirrorAuditFigures(try await store.audit())
        let generations = try await store.rows("SELECT shard, generation FROM \(table)_resume ORDER BY shard")
        let takenText = taken.sorted { $0.key < $1.key }.map {
            "shard \($0.key) by \($0.value.owner) at \($0.value.generation)"
        }
        print(
            "mirror group chaos (\(kind)): 1 kill, 1 pause of \(pause) (\(held.owner), holding shard \(shard) at "
                + "\(held.generation); taken: \(takenText)), \(writes.withLock { $0 }) writes; \(figures); "
                + "\(allRefusals.count) stale batches refused \(allRefusals); stored generations \(generations)")
        #expect(refused, "the paused member's batch was refused; stderr:\n\(stderr.suffix(4_000))")
        #expect(allRefusals.contains(where: inHand), "\(allRefusals)")
        #expect(converged, "the table never equalled the query; stderr:\n\(stderr.suffix(4_000))")
        #expect(figures.twice == [])
        #expect(figures.regressions == [])
        // The rule: a refused batch's generation is below the one the store holds for its shard.
        #expect(allRefusals.allSatisfy { $0.generation < $0.stored }, "\(allRefusals)")
        for member in members {
            #expect(
                results[member.id]?.status == 0, "\(member.id) exits 0 on SIGTERM; stderr:\n\(stderr.suffix(4_000))")
        }
    }
}
