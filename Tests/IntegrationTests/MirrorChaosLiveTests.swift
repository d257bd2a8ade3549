import FirestoreREST
import FirestoreTestSupport
import Foundation
import Synchronization
import Testing

@testable import FirestoreFeed

#if canImport(Glibc)
    import Glibc
#endif

/// `firestore-feed mirror` into each store (`--sqlite`, `--postgres`) under a writer (creates, updates and deletes, a
/// few hot documents), SIGKILLed at random moments 20 times (during the load at one read time, during the Listen tail,
/// inside transactions) and restarted each time: an audit trigger in the store records every version the mirror
/// wrote, and none is written twice or after a newer one of its document; at the end (SIGTERM: exit 0) the table
/// equals the query. The kills' moments are random: where each lands is printed, not asserted (a loaded machine moves
/// them).
@Suite(.timeLimit(.minutes(5))) struct MirrorChaosLiveTests {
    static let kills = Int(ProcessInfo.processInfo.environment["FIRESTORE_FEED_MIRROR_CHAOS_KILLS"] ?? "") ?? 20

    /// Whether the store's documents equal the query's (names, fields, create and update times), within 60 s.
    static func converges(_ mirror: any FeedSink, to query: Query) async -> Bool {
        await eventuallyAsync(seconds: 60) {
            guard let direct = try? await query.getDocuments(), let held = try? await mirror.documents() else {
                return false
            }
            let expected = direct.documents.compactMap(\.document).sorted {
                Array($0.name.utf8).lexicographicallyPrecedes($1.name.utf8)
            }
            return held == expected
        }
    }

    /// What differs between the store and the query, printed when they never became equal.
    static func printDifference(_ store: MirrorChaosStore, _ reader: any FeedSink, _ query: Query) async throws {
        let direct = try await query.getDocuments().documents.compactMap(\.document)
        let held = try await reader.documents()
        let expected = Dictionary(direct.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let got = Dictionary(held.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let missing = expected.keys.filter { got[$0] == nil }.sorted()
        let extra = got.keys.filter { expected[$0] == nil }.sorted()
        let differing = expected.filter { got[$0.key] != nil && got[$0.key] != $0.value }.map {
            "\($0.key): held \(got[$0.key]?.updateTime?.rfc3339 ?? "-") \(got[$0.key]?.fields ?? [:]), query "
                + "\($0.value.updateTime?.rfc3339 ?? "-") \($0.value.fields)"
        }
        print(
            "mirror chaos (\(store.kind)): missing \(missing.suffix(20)), extra \(extra.suffix(20)), "
                + "differing \(differing.prefix(10))")
        let stones = try await store.tombstones()
        print(
            "mirror chaos (\(store.kind)): \(missing.count) missing, the first: "
                + missing.prefix(3).map { "\($0) (tombstone: \(stones[$0] ?? "none"))" }.joined(separator: ", "))
        print(
            "mirror chaos (\(store.kind)): resume point \(String(describing: try await reader.resumePoint(shard: 0)))")
    }

    @Test func killedTwentyTimesTheSQLiteMirrorAppliesEachVersionOnceAndEndsEqualToTheQuery() async throws {
        try await Self.killedTwentyTimes(.sqlite)
    }

    @Test(.needsPostgres) func killedTwentyTimesThePostgresMirrorAppliesEachVersionOnceAndEndsEqualToTheQuery()
        async throws
    {
        try await Self.killedTwentyTimes(.postgres)
    }

    static func killedTwentyTimes(_ kind: MirrorChaosStore.Kind) async throws {
        let host = try EmulatorEnvironment.requireHost()
        let project = EmulatorEnvironment.uniqueProjectID("mirror-chaos")
        let db = try Firestore.emulator(host: host, projectID: project)
        let items = db.collection("items")
        // 2,000 documents in pages of 50: the load takes 40 transactions, so the early kills land inside it.
        for start in stride(from: 0, to: 2_000, by: 200) {
            let batch = db.batch()
            for index in start..<(start + 200) {
                try batch.setData(
                    ["v": .integer(0), "i": .integer(Int64(index))],
                    forDocument: items.document(String(format: "d%03d", index)))
            }
            _ = try await batch.commit()
        }
        let store = try await MirrorChaosStore.make(kind, label: "mirror_chaos")
        defer { Task { await store.remove() } }

        // The writer: hot documents d000...d007 most of the time, any other sometimes; a fifth of the writes delete,
        // and a deleted document is created again by a later write.
        let writes = Mutex(0)
        let writing = Task {
            var version: Int64 = 1
            while !Task.isCancelled {
                let index = Int.random(in: 0..<4) == 0 ? Int.random(in: 0..<2_020) : Int.random(in: 0..<8)
                let document = items.document(String(format: "d%03d", index))
                do {
                    if Int.random(in: 0..<5) == 0 {
                        try await document.delete()
                    } else {
                        try await document.setData(["v": .integer(version), "i": .integer(Int64(index))])
                    }
                    writes.withLock { $0 += 1 }
                } catch {
                    // A write the emulator refused under load is simply not made.
                }
                version += 1
                try? await Task.sleep(for: .milliseconds(Int.random(in: 5...30)))
            }
        }
        defer { writing.cancel() }

        let arguments =
            ["mirror", "items", "--emulator", host, "--project", project, "--page-size", "50"] + store.sinkArguments
        var landed: [String] = []
        for kill in 0..<Self.kills {
            let process = try CLIProcess(arguments)
            // The first five kills within 0.5 s of the start (in its load, or before it), the others within 2 s.
            try await Task.sleep(for: .milliseconds(kill < 5 ? Int.random(in: 50...500) : Int.random(in: 200...2_000)))
            let before = (try? await store.open().resumePoint(shard: 0)) ?? nil
            Glibc.kill(process.process.processIdentifier, SIGKILL)
            let status = await process.process.exitStatus(timeout: 30)
            landed.append(
                "\(kill): \(before == nil ? "before the first page" : before?.loadCursor != nil ? "loading" : "tail") "
                    + "(status \(status))")
        }
        writing.cancel()
        _ = await writing.value

        // The last run: until the table equals the query, then SIGTERM, which ends it with the batch in hand.
        let last = try CLIProcess(arguments)
        let query = items.query
        let reader = try await store.open()
        let converged = await Self.converges(reader, to: query)
        if !converged { try await Self.printDifference(store, reader, query) }
        last.process.end(grace: 30)
        let result = await last.finish(timeout: 60)
        print(
            "mirror chaos (\(kind)): \(Self.kills) kills, \(writes.withLock { $0 }) writes; kills landed: \(landed)")
        #expect(converged, "the table never equalled the query; the last run's stderr: \(result.stderr.suffix(2_000))")
        #expect(result.status == 0, "SIGTERM ends the mirror with exit 0; stderr: \(result.stderr.suffix(2_000))")

        let figures = MirrorAuditFigures(try await store.audit())
        print("mirror chaos (\(kind)): \(figures)")
        #expect(figures.twice == [])
        #expect(figures.regressions == [])
        #expect(figures.versions >= 2_000)
    }
}
