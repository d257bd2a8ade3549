import FirestoreTestSupport
import Foundation
import Testing

@testable import FirestoreREST

/// Aggregations under the caller's aliases (REST `StructuredAggregationQuery.Aggregation.alias`: unique, a valid
/// field name) and the public decoder of runAggregationQuery responses, which takes any alias.
@Suite(.timeLimit(.minutes(2))) struct AggregationAliasTests {
    static func cities() throws -> CollectionReference {
        try ScriptedTransport { _, _ in .ok([:]) }.firestore().collection("cities")
    }

    @Test func callerAliasesAreSentAndTheOthersGetTheirPosition() throws {
        let query = try Self.cities().aggregate([
            .count(alias: "cities"), .sum("pop"), .average("pop", alias: "mean pop"), .count(upTo: 10),
        ])
        #expect(query.aliases == ["cities", "aggregate_1", "mean pop", "aggregate_3"])
        #expect(
            try query.structuredAggregationQuery()["aggregations"]
                == json(
                    """
                    [{"alias":"cities","count":{}},{"alias":"aggregate_1","sum":{"field":{"fieldPath":"pop"}}},
                     {"alias":"mean pop","avg":{"field":{"fieldPath":"pop"}}},{"alias":"aggregate_3","count":{"upTo":"10"}}]
                    """))
    }

    /// The same aggregation under two aliases is two aggregations; the same one twice is one.
    @Test func anAliasMakesAnAggregationDistinct() throws {
        let query = try Self.cities().aggregate([.count(), .count(alias: "n"), .count(alias: "n"), .count()])
        #expect(query.aggregations == [.count(), .count(alias: "n")])
        #expect(query.aggregations.map(\.description) == ["count()", "count() as n"])
    }

    @Test(arguments: [
        (
            [AggregateField.count(alias: "x"), .sum("pop", alias: "x")],
            #"aggregation alias "x" is used twice (sum(pop) as x)"#
        ),
        ([.sum("pop", alias: "aggregate_1"), .count()], #"aggregation alias "aggregate_1" is used twice (count())"#),
        ([.count(alias: "")], "an aggregation alias cannot be empty"),
        ([.count(alias: "__bad__")], #"aggregation alias "__bad__" is reserved (the form __…__)"#),
    ])
    func invalidAliasesAreRefusedBeforeSending(aggregations: [AggregateField], message: String) async throws {
        let transport = ScriptedTransport { _, _ in .ok([:]) }
        let error = await #expect(throws: FirestoreError.self) {
            try await transport.firestore().collection("cities").aggregate(aggregations).getAggregation()
        }
        #expect(error == .invalidArgument(message))
        #expect(transport.requests.isEmpty)
    }

    @Test func aLongAliasIsRefused() throws {
        let alias = String(repeating: "a", count: 1501)
        #expect(throws: FirestoreError.self) {
            try Self.cities().aggregate([.count(alias: alias)]).structuredAggregationQuery()
        }
        _ = try Self.cities().aggregate([.count(alias: String(repeating: "a", count: 1500))])
            .structuredAggregationQuery()
    }

    /// The response the emulator sent for aliases `total`, `s` and `a b` (with `newTransaction`), and one for
    /// aggregations sent without aliases, which the server names `field_1`, `field_2`.
    @Test func theDecoderTakesAnyAlias() throws {
        let response = try RunAggregationQueryResponse(
            decoding: json(
                """
                [{"transaction":"EQgAAAAAAAAA"},
                 {"result":{"aggregateFields":{"total":{"integerValue":"1"},"s":{"integerValue":"1"},"a b":{"doubleValue":1.0}}},
                  "readTime":"2026-12-01T11:02:01.493381Z","done":true}]
                """))
        #expect(response.aggregateFields == ["total": .integer(1), "s": .integer(1), "a b": .double(1)])
        #expect(response.readTime == (try Timestamp(rfc3339: "2026-12-01T11:02:01.493381Z")))
        #expect(response.transaction == "EQgAAAAAAAAA")
        let serverNamed = try RunAggregationQueryResponse(
            decoding: Data(
                #"[{"result":{"aggregateFields":{"field_1":{"integerValue":"1"},"field_2":{"nullValue":null}}},"readTime":"2026-12-01T11:02:01.947831Z","done":true}]"#
                    .utf8))
        #expect(serverNamed.aggregateFields == ["field_1": .integer(1), "field_2": .null])
        #expect(serverNamed.transaction == nil)
    }

    @Test func theSnapshotGivesResultsByAliasAndByField() throws {
        let query = try Self.cities().aggregate([
            .count(alias: "cities"), .sum("pop", alias: "people"), .average("pop"),
        ])
        let response = RunAggregationQueryResponse(
            aggregateFields: ["cities": .integer(6), "people": .integer(100), "aggregate_2": .double(16.5)],
            readTime: ts(1_714_521_600))
        let snapshot = try AggregateQuerySnapshot(query: query, response: response)
        #expect(snapshot.count == 6)
        #expect(snapshot.get("people") == .integer(100))
        #expect(snapshot.get(.sum("pop", alias: "people")) == .integer(100))
        #expect(snapshot.get(.sum("pop")) == nil)
        #expect(snapshot.get(.average("pop")) == .double(16.5))
        #expect(snapshot.get("nothing") == nil)
        #expect(snapshot.data() == ["cities": .integer(6), "people": .integer(100), "aggregate_2": .double(16.5)])
        #expect(snapshot.readTime == ts(1_714_521_600))
    }

    @Test func aResponseWithoutARequestedAliasIsAnError() throws {
        let query = try Self.cities().aggregate([.count(alias: "cities")])
        let response = RunAggregationQueryResponse(aggregateFields: ["aggregate_0": .integer(6)], readTime: nil)
        #expect(
            throws: FirestoreError(
                code: .internal, message: "runAggregationQuery response lacks cities (count() as cities)")
        ) { try AggregateQuerySnapshot(query: query, response: response) }
    }

    @Test(arguments: [
        (#"[{"result":{"aggregateFields":{"n":{"stringValue":"6"}}}}]"#, "aggregate n is a stringValue"),
        (#"[{"result":{"aggregateFields":[]}}]"#, "runAggregationQuery element 0: aggregateFields is an array"),
        (#"{"documents":[]}"#, "runAggregationQuery response is an object, not an array"),
        (#"[{"transaction":7}]"#, "runAggregationQuery element 0: transaction is not a transaction ID"),
    ])
    func malformedResponsesAreErrorsNamingWhat(body: String, message: String) throws {
        let error = #expect(throws: FirestoreError.self) { try RunAggregationQueryResponse(decoding: json(body)) }
        #expect(error?.code == .internal)
        #expect(error?.message == message)
    }

    @Test func theServersErrorIsThrown() throws {
        let error = #expect(throws: FirestoreError.self) {
            try RunAggregationQueryResponse(
                decoding: json(
                    #"{"error":{"code":400,"message":"Aggregation aliases contain duplicate alias: x.","status":"INVALID_ARGUMENT"}}"#
                ))
        }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message == "Aggregation aliases contain duplicate alias: x.")
        #expect(throws: FirestoreError.self) { try RunAggregationQueryResponse(decoding: Data()) }
    }

    @Test func anAggregationAtAReadTimeSendsIt() async throws {
        let transport = ScriptedTransport { _, _ in
            .ok([
                [
                    "result": ["aggregateFields": ["aggregate_0": ["integerValue": "3"]]],
                    "readTime": "2024-05-01T00:00:00Z",
                ]
            ])
        }
        let snapshot = try await transport.firestore().collection("c").count.getAggregation(readTime: ts(1_714_521_600))
        #expect(snapshot.count == 3)
        #expect(transport.bodies.first?["readTime"] == "2024-05-01T00:00:00Z")
    }
}
