import FirestoreFeed
import FirestorePostgres
import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

/// Exactly once, as the database sees it: a trigger records every row the mirror writes (`PostgresAudit`); across
/// duplicates, late changes and a restart that delivers the last batches again, no version is written twice and none
/// after a newer one. And the apply rate, with the round trips per batch.
@Suite(.timeLimit(.minutes(2)), PostgresFixture.enabled) struct PostgresMirrorAuditTests {
    typealias F = PostgresFixture

    @Test func nothingIsWrittenTwiceOrOutOfOrderAcrossARestart() async throws {
        let (first, table) = try await F.mirror("audit")
        try F.execute(PostgresAudit.install(on: table))
        let batches = [
            F.batch([F.put("a", updated: 10), F.put("b", updated: 10)], read: 11, token: "1"),
            F.batch([F.put("a", updated: 12, ["v": 2])], read: 13, token: "2"),
            F.batch([F.put("a", updated: 11, ["v": 1]), F.remove("b")], read: 20, token: "3"),
        ]
        for batch in batches { try await first.apply(batch) }
        try await first.apply(batches[1])
        #expect(F.counts(first) == [4, 4, 2, 0])
        // A restart (a crash after the commit, before the feed moved on) delivers the last batches again.
        let second = try await PostgresMirror(url: try PostgresEnvironment.requireURL(), table: table)
        #expect(try await second.resumePoint(shard: 0)?.resumeToken == Array("2".utf8))
        try await second.apply(batches[1])
        try await second.apply(batches[2])
        try await second.apply(F.batch([F.put("a", updated: 30), F.put("b", updated: 31)], read: 32, token: "4"))
        #expect(F.counts(second) == [3, 2, 3, 0])
        #expect(try F.lines(PostgresAudit.check(table)) == ["5 0 0"])
        #expect(
            try F.lines("SELECT substr(name, \(F.prefix.utf8.count + 1)), update_time FROM \(table)_audit ORDER BY seq")
                == [
                    "a \(F.stored(10))", "b \(F.stored(10))", "a \(F.stored(12))", "a \(F.stored(30))",
                    "b \(F.stored(31))",
                ])
    }

    /// 20 batches of 500 new documents, then 20 of 500 changed ones: five round trips a batch whatever its size. The
    /// rate is printed (`PostgresMirror apply rate`), not asserted: it depends on the machine.
    @Test func aBatchIsAFewRoundTripsAndTheRateIsPrinted() async throws {
        let (mirror, table) = try await F.mirror("rate")
        let opened = mirror.statistics.roundTrips
        let clock = ContinuousClock()
        var documents = 0
        let took = try await clock.measure {
            for round in 0..<2 {
                for batch in 0..<20 {
                    let changes = (0..<500).map { index in
                        F.put(
                            "doc\(batch * 500 + index)", updated: Int64(10 + round * 100 + batch),
                            [
                                "n": .integer(Int64(index)), "name": .string("document \(index)"),
                                "round": .integer(Int64(round)),
                            ])
                    }
                    try await mirror.apply(F.batch(changes, read: Int64(11 + round * 100 + batch)))
                    documents += changes.count
                }
            }
        }
        #expect(mirror.statistics.roundTrips - opened == 40 * 5)
        #expect(F.counts(mirror) == [40, 20_000, 0, 0])
        #expect(
            try F.lines("SELECT count(*), sum((fields #>> '{round,integerValue}')::int) FROM \(table)") == [
                "10000 10000"
            ])
        // One document a batch: what each commit costs (its six round trips and the commit's WAL flush; fsync is off
        // on the tests' server).
        let single = try await clock.measure {
            for index in 0..<200 {
                try await mirror.apply(
                    F.batch([F.put("doc\(index)", updated: 300 + Int64(index))], read: 300 + Int64(index)))
            }
        }
        #expect(mirror.statistics.applied == 20_200)
        func seconds(_ duration: Duration) -> Double {
            Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        }
        print(
            "PostgresMirror apply rate: \(Int(Double(documents) / seconds(took))) documents/s (\(documents) documents in "
                + "40 batches of 500, \(Int(seconds(took) * 1000)) ms, 5 round trips a batch); "
                + "\(Int(200 / seconds(single))) batches/s of one document (200 in \(Int(seconds(single) * 1000)) ms)")
    }
}
