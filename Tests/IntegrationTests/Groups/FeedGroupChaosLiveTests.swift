import FirestoreREST
import FirestoreTestSupport
import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Several `watch --group` processes on the emulator under a writer, members SIGKILLed, SIGSTOPped and SIGCONTed at
/// random and new ones started: every committed write reaches some member (its version or a later one of the same
/// document), the members' latest versions together equal a direct query, a shard's generations never go back
/// (in read-time order), duplicates happen only across a handover, and a killed member's shards are delivered again
/// within the lease length plus one renewal interval (plus the time to open their targets). Runs
/// FIRESTORE_FEED_GROUP_CHAOS_SECONDS seconds (30 by default).
@Suite(.timeLimit(.minutes(5))) struct FeedGroupChaosLiveTests {
    static let seconds = Double(ProcessInfo.processInfo.environment["FIRESTORE_FEED_GROUP_CHAOS_SECONDS"] ?? "") ?? 30
    static let lease = 3.0
    static let renew = 0.75

    /// One printed shard line, as the test read it.
    struct Line: Sendable {
        let member: String
        let at: ContinuousClock.Instant
        let shard: Int
        let generation: Int64
        let readTime: String
        let changes: [(id: String, type: String, updateTime: String)]
    }

    /// A running `watch --group` process and how many of its lines were read.
    final class Member: @unchecked Sendable {
        let id: String
        let process: CLIProcess
        var read = 0
        var paused = false
        var killed = false
        init(id: String, process: CLIProcess) {
            self.id = id
            self.process = process
        }
    }

    static func parse(_ text: String, member: String, at: ContinuousClock.Instant) -> Line? {
        guard let json = try? JSONValue.parse(Data(text.utf8)), case .integer(let shard)? = json["shard"],
            case .integer(let generation)? = json["generation"], case .string(let readTime)? = json["readTime"],
            case .array(let changes)? = json["changes"]
        else { return nil }
        return Line(
            member: member, at: at, shard: Int(shard), generation: generation, readTime: readTime,
            changes: changes.compactMap { change in
                guard case .string(let id)? = change["id"], case .string(let type)? = change["type"],
                    case .string(let updateTime)? = change["updateTime"]
                else { return nil }
                return (id, type, updateTime)
            })
    }

    @Test func membersKilledPausedAndStartedLoseNoChange() async throws {
        let host = try EmulatorEnvironment.requireHost()
        let project = EmulatorEnvironment.uniqueProjectID("group-chaos")
        let db = try Firestore.emulator(host: host, projectID: project)
        let orders = db.collection("orders")
        let ids = (0..<40).map { String(format: "o%02d", $0) }
        let batch = db.batch()
        for id in ids { try batch.setData(["n": .value(.integer(0))], forDocument: orders.document(id)) }
        _ = try await batch.commit()

        var members: [Member] = []
        var started = 0
        func start() throws {
            let id = "m\(started)"
            started += 1
            let process = try CLIProcess([
                "watch", "orders", "--emulator", host, "--project", project, "--group", "g", "--shards", "4",
                "--member", id, "--lease", "\(Self.lease)", "--renew", "\(Self.renew)", "--format", "jsonl",
            ])
            members.append(Member(id: id, process: process))
        }
        var lines: [Line] = []
        func collect() {
            let now = ContinuousClock.now
            for member in members {
                let all = member.process.stdout.lines
                for text in all.dropFirst(member.read) {
                    if let line = Self.parse(text, member: member.id, at: now) { lines.append(line) }
                }
                member.read = all.count
            }
        }
        defer { for member in members { member.process.process.end(grace: 1) } }
        for _ in 0..<3 { try start() }
        let deadline = ContinuousClock.now + .seconds(60)
        while Set(lines.map(\.shard)).count < 4, ContinuousClock.now < deadline {
            collect()
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(Set(lines.map(\.shard)) == [0, 1, 2, 3])

        // The writer: one write every 100 ms to a random document, its update time kept.
        let writes = Mutex<[(id: String, updateTime: Timestamp)]>([])
        let writing = Task {
            var n: Int64 = 1
            while !Task.isCancelled {
                let id = ids[Int.random(in: 0..<ids.count)]
                if let result = try? await orders.document(id).setData(["n": .value(.integer(n))]),
                    let time = result.updateTime
                {
                    writes.withLock { $0.append((id, time)) }
                }
                n += 1
                try? await Task.sleep(for: .milliseconds(100))
            }
        }
        var kills: [(at: ContinuousClock.Instant, member: String, shards: [Int: Int64])] = []
        var pauses = 0
        let chaosEnd = ContinuousClock.now + .seconds(Self.seconds)
        var nextAction = ContinuousClock.now + .seconds(3)
        var resume: [(member: Member, at: ContinuousClock.Instant)] = []
        while ContinuousClock.now < chaosEnd {
            collect()
            for (member, at) in resume where ContinuousClock.now >= at {
                kill(member.process.process.processIdentifier, SIGCONT)
                member.paused = false
            }
            resume.removeAll { !$0.member.paused }
            if ContinuousClock.now >= nextAction {
                nextAction = ContinuousClock.now + .seconds(Double.random(in: 3...5))
                let running = members.filter { !$0.killed && !$0.paused }
                // A kill's failover is measured with every other member running: no kill while one is paused, no
                // pause until the killed member's shards were taken over.
                let quiet =
                    ContinuousClock.now > (kills.last?.at ?? .now - .seconds(60))
                    + .seconds(Self.lease + Self.renew + 3)
                // The first fault is a kill of a member that has delivered a shard, so every run measures a failover.
                let holders = running.filter { member in lines.contains { $0.member == member.id } }
                let choice = kills.isEmpty && !holders.isEmpty ? 0 : Int.random(in: 0..<3)
                switch choice {
                case 0 where running.count > 1 && resume.isEmpty && quiet:
                    let candidates = kills.isEmpty && !holders.isEmpty ? holders : running
                    let victim = candidates[Int.random(in: 0..<candidates.count)]
                    // The shards it delivered last (the highest generation printed for each is its).
                    var held: [Int: Int64] = [:]
                    for shard in 0..<4 {
                        if let last = lines.filter({ $0.shard == shard }).max(by: { $0.generation < $1.generation }),
                            last.member == victim.id
                        {
                            held[shard] = last.generation
                        }
                    }
                    kill(victim.process.process.processIdentifier, SIGKILL)
                    victim.killed = true
                    kills.append((ContinuousClock.now, victim.id, held))
                    try start()
                case 1 where running.count > 1 && quiet:
                    let victim = running[Int.random(in: 0..<running.count)]
                    kill(victim.process.process.processIdentifier, SIGSTOP)
                    victim.paused = true
                    pauses += 1
                    resume.append((victim, ContinuousClock.now + .seconds(Double.random(in: 3...5))))
                default:
                    if members.count(where: { !$0.killed }) < 5 { try start() }
                }
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        for (member, _) in resume {
            kill(member.process.process.processIdentifier, SIGCONT)
            member.paused = false
        }
        writing.cancel()
        _ = await writing.result
        let final = try await orders.getDocuments().documents
        let finalVersions = Dictionary(
            uniqueKeysWithValues: final.map { ($0.documentID, $0.updateTime?.rfc3339 ?? "") })
        // Caught up: each document's newest delivered version is the one the query returns.
        func newest() -> [String: String] {
            var result: [String: String] = [:]
            for line in lines {
                for change in line.changes where change.type != "removed" {
                    if change.updateTime > result[change.id, default: ""] { result[change.id] = change.updateTime }
                }
            }
            return result
        }
        let caughtUpDeadline = ContinuousClock.now + .seconds(60)
        while newest() != finalVersions, ContinuousClock.now < caughtUpDeadline {
            collect()
            try await Task.sleep(for: .milliseconds(50))
        }
        let behind = finalVersions.filter { newest()[$0.key] != $0.value }.keys.sorted()
        #expect(
            behind == [],
            "not caught up after 60 s: \(behind); last lines: \(lines.suffix(8).map { "\($0.member) shard \($0.shard) g\($0.generation) \($0.readTime)" })"
        )

        // SIGTERM: each live member releases its leases and exits 0.
        var statuses: [Int32] = []
        for member in members where !member.killed {
            kill(member.process.process.processIdentifier, SIGTERM)
        }
        for member in members where !member.killed {
            statuses.append(await member.process.process.exitStatus(timeout: 15))
        }
        #expect(statuses.allSatisfy { $0 == 0 }, "exit statuses \(statuses)")

        // No committed write lost.
        let delivered = newest()
        let committed = writes.withLock { $0 }
        let lost = committed.filter { delivered[$0.id, default: ""] < $0.updateTime.rfc3339 }
        #expect(lost.isEmpty, "lost: \(lost.map { "\($0.id)@\($0.updateTime.rfc3339)" })")
        // Generations never go back within a shard, in read-time order.
        for shard in 0..<4 {
            let ordered = lines.filter { $0.shard == shard }.sorted {
                ($0.readTime, $0.generation) < ($1.readTime, $1.generation)
            }
            let backwards = zip(ordered, ordered.dropFirst()).filter { $1.generation < $0.generation }
            #expect(backwards.isEmpty, "shard \(shard): \(backwards.map { "\($0.0.generation)->\($0.1.generation)" })")
        }
        // Duplicates (a version delivered twice) only across a handover (two generations).
        var deliveries: [String: Set<Int64>] = [:]
        var duplicates = 0
        for line in lines {
            for change in line.changes {
                let key = change.id + "@" + change.updateTime
                if deliveries[key] != nil { duplicates += 1 }
                #expect(
                    deliveries[key]?.contains(line.generation) != true, "\(key) twice in generation \(line.generation)")
                deliveries[key, default: []].insert(line.generation)
            }
        }
        // Failover: from a kill to the next delivery of each of its shards by another member.
        var failovers: [Double] = []
        for kill in kills {
            for (shard, generation) in kill.shards {
                if let next = lines.first(where: { $0.shard == shard && $0.generation > generation && $0.at > kill.at })
                {
                    let elapsed = next.at - kill.at
                    failovers.append(
                        Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
                }
            }
        }
        let bound = Self.lease + Self.renew
        print(
            "group chaos: \(Self.seconds) s, \(started) members started, \(kills.count) killed, \(pauses) paused, "
                + "\(committed.count) writes, \(lost.count) lost, \(duplicates) duplicate deliveries (across "
                + "handovers), \(lines.count) shard lines; failover after a kill: "
                + failovers.sorted().map { String(format: "%.2f", $0) }.joined(separator: ", ")
                + " s (bound \(bound) s plus opening the targets)")
        #expect(!kills.isEmpty, "no member was killed")
        #expect(!failovers.isEmpty, "no failover after a kill was seen")
        // Opening the new owner's targets (a read at the checkpoint, the Listen call, the first snapshot, the line
        // printed) comes on top of the bound; 3 s allows for a loaded machine running the rest of the suite.
        #expect(failovers.allSatisfy { $0 <= bound + 3 }, "failovers \(failovers)")
    }
}
