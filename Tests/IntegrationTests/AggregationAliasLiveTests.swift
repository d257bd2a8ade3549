import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

/// Aggregations under the caller's aliases on the real emulator: the results come back under exactly those
/// names (spaces, dots and backticks included, taken literally), mixed with the client's `aggregate_<i>`.
@Suite(.timeLimit(.minutes(2))) struct AggregationAliasLiveTests {
    static func seeded(_ label: String, _ wire: FirestoreProtocol) async throws -> CollectionReference {
        let db = try LiveFirestore.make(label, wire)
        let cities = db.collection("cities")
        try await cities.document("sf").setData(["state": "CA", "pop": 860_000])
        try await cities.document("la").setData(["state": "CA", "pop": 3_900_000])
        try await cities.document("tok").setData(["state": "JP", "pop": 14_000_000])
        try await cities.document("nowhere").setData(["state": "??"])
        return cities
    }

    @Test(arguments: LiveFirestore.protocols) func resultsComeBackUnderTheCallersAliases(wire: FirestoreProtocol)
        async throws
    {
        let cities = try await Self.seeded("aliases", wire)
        let snapshot = try await cities.whereField("state", isEqualTo: "CA")
            .aggregate([
                .count(alias: "cities"), .sum("pop", alias: "people in CA"), .average("pop", alias: "a.b"),
                .count(upTo: 1, alias: "`q`"),
            ])
            .getAggregation()
        #expect(
            snapshot.data() == [
                "cities": .integer(2), "people in CA": .integer(4_760_000), "a.b": .double(2_380_000),
                "`q`": .integer(1),
            ])
        #expect(snapshot.get("people in CA") == .integer(4_760_000))
        #expect(snapshot.get(.sum("pop", alias: "people in CA")) == .integer(4_760_000))
        #expect(snapshot.count == 2)
    }

    @Test(arguments: LiveFirestore.protocols) func callerAliasesAndTheClientsOwnMix(wire: FirestoreProtocol)
        async throws
    {
        let cities = try await Self.seeded("aliasmix", wire)
        let query = cities.aggregate([.sum("pop"), .count(alias: "all")])
        let snapshot = try await query.getAggregation()
        // 3, not 4: beside a sum the emulator counts only documents with the field (next test).
        #expect(snapshot.data() == ["aggregate_0": .integer(18_760_000), "all": .integer(3)])
        #expect(snapshot.get(.sum("pop")) == .integer(18_760_000))
    }

    /// Observed on the emulator: a count in the same request as a sum or an average counts only the documents that
    /// have the summed field (here 3 of 4); alone it counts all 4.
    @Test(arguments: LiveFirestore.protocols) func aCountBesideASumCountsTheDocumentsWithTheField(
        wire: FirestoreProtocol
    ) async throws {
        let cities = try await Self.seeded("aliascount", wire)
        let together = try await cities.aggregate([.count(alias: "n"), .sum("pop", alias: "pop")]).getAggregation()
        #expect(together.data() == ["n": .integer(3), "pop": .integer(18_760_000)])
        #expect(try await cities.aggregate([.count(alias: "n")]).getAggregation().data() == ["n": .integer(4)])
    }

    @Test(arguments: LiveFirestore.protocols) func aDuplicateAliasIsRefusedBeforeTheServerSeesIt(
        wire: FirestoreProtocol
    ) async throws {
        let cities = try await Self.seeded("aliasdup", wire)
        let error = await #expect(throws: FirestoreError.self) {
            try await cities.aggregate([.count(alias: "x"), .sum("pop", alias: "x")]).getAggregation()
        }
        #expect(error == .invalidArgument(#"aggregation alias "x" is used twice (sum(pop) as x)"#))
    }
}
