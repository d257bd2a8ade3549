import FirestoreTestSupport
import Foundation
import Testing

@testable import FirestoreREST

/// Aggregation explain: the request as the REST reference and `google/firestore/v1/firestore.proto` have it
/// (`RunAggregationQueryRequest.explain_options = 8`, `RunAggregationQueryResponse.explain_metrics = 10`), on both
/// wires, and what its answers decode to. The gRPC bytes were written by Google's own protobuf runtime
/// (`google-cloud-firestore`'s `RunAggregationQueryRequest.serialize`).
@Suite(.timeLimit(.minutes(1))) struct AggregateExplainTests {
    static let root = "projects/p/databases/(default)/documents"
    static let planOnly =
        #"[{"explainMetrics":{"planSummary":{"indexesUsed":[{"query_scope":"Collection","properties":"(__name__ ASC)"}]}}}]"#
    static let planOnlyMetrics = ExplainMetrics(
        planSummary: PlanSummary(indexesUsed: [["query_scope": "Collection", "properties": "(__name__ ASC)"]]),
        executionStats: nil)
    /// `RunAggregationQueryResponse { explain_metrics = 10 { plan_summary { indexes_used { "query_scope":
    /// "Collection", "properties": "(__name__ ASC)" } } } }`: a plan-only answer, no result, no read time.
    static let planOnlyMessage = hex(
        """
        5241 0a3f 0a3d 0a1b 0a0b 71756572795f73636f7065 120c 1a0a 436f6c6c656374696f6e
        0a1e 0a0a 70726f70657274696573 1210 1a0e 285f5f6e616d655f5f2041534329
        """)
    /// `RunAggregationQueryResponse { result { aggregate_fields { "aggregate_0": integer_value 3 } }, read_time {
    /// seconds: 1714521607 }, explain_metrics = 10 { plan_summary { indexes_used { "query_scope": "Collection" } },
    /// execution_stats { results_returned: 1, execution_duration { nanos: 21600000 }, read_operations: 1,
    /// debug_stats { "documents_scanned": "3" } } } }`.
    static let analyzedMessage = hex(
        """
        0a13 1211 0a0b 6167677265676174655f30 1202 1003
        1a06 0887 8cc6 b106
        524a 0a1f 0a1d 0a1b 0a0b 71756572795f73636f7065 120c 1a0a 436f6c6c656374696f6e
        1227 0801 1a05 1080aea60a 2001 2a1a 0a18 0a11 646f63756d656e74735f7363616e6e6564 1203 1a01 33
        """)

    @Test(arguments: [(false, #"{"analyze":false}"#), (true, #"{"analyze":true}"#)])
    func theRESTRequestCarriesExplainOptions(analyze: Bool, expected: String) async throws {
        let answer =
            #"[{"result":{"aggregateFields":{"aggregate_0":{"integerValue":"1"}}},"readTime":"2024-05-01T00:00:07Z","#
            + #""explainMetrics":{"planSummary":{"indexesUsed":[]}}}]"#
        let transport = ScriptedTransport([.response(status: 200, body: answer)])
        let db = try transport.firestore()
        let explained = try await db.collection("fruits").whereField("color", isEqualTo: "red").count
            .explain(options: ExplainOptions(analyze: analyze))
        // With metrics, the result counts only when the aggregation was asked to run.
        #expect(explained.snapshot?.count == (analyze ? 1 : nil))
        #expect(explained.metrics == ExplainMetrics(planSummary: PlanSummary(indexesUsed: []), executionStats: nil))
        #expect(transport.calls == ["POST :runAggregationQuery"])
        #expect(
            transport.bodies[0]
                == (try json(
                    """
                    {"structuredAggregationQuery":{"structuredQuery":{"from":[{"collectionId":"fruits"}],
                     "where":{"fieldFilter":{"field":{"fieldPath":"color"},"op":"EQUAL","value":{"stringValue":"red"}}}},
                     "aggregations":[{"alias":"aggregate_0","count":{}}]},
                     "explainOptions":\(expected)}
                    """)))
    }

    /// `RunAggregationQueryRequest { parent, structured_aggregation_query { structured_query { from { collection_id:
    /// "fruits" } }, aggregations { count { }, alias: "aggregate_0" } }, explain_options = 8 { analyze } }`: an empty
    /// `ExplainOptions` plans only, `08 01` is `analyze: true`.
    @Test(arguments: [(false, "4200"), (true, "4202 0801")])
    func theGRPCRequestCarriesExplainOptions(analyze: Bool, explainOptions: String) async throws {
        let transport = ScriptedRPCTransport(rpc: [.messages([Self.analyzedMessage])])
        let db = Firestore(
            database: try DatabaseID(projectID: "p"), baseURL: "https://test.invalid/v1/",
            credentials: NoCredentials(), transport: transport, isEmulator: false
        ).using(protocol: .grpc)
        let explained = try await db.collection("fruits").count.explain(options: ExplainOptions(analyze: analyze))
        #expect(transport.calls.map(\.method) == ["/google.firestore.v1.Firestore/RunAggregationQuery"])
        #expect(
            transport.calls.first?.request
                == hex(
                    """
                    0a28 70726f6a656374732f702f6461746162617365732f2864656661756c74292f646f63756d656e7473
                    121d 0a0a 1208 1206 667275697473 1a0f 0a00 3a0b 6167677265676174655f30
                    """ + explainOptions))
        #expect(explained.metrics?.executionStats?.resultsReturned == 1)
        #expect(explained.snapshot?.count == (analyze ? 3 : nil))
    }

    @Test func aPlanOnlyRESTAnswerHasMetricsAndNoResult() throws {
        let (response, metrics) = try Firestore.decodeExplainedRunAggregationQuery(json(Self.planOnly))
        #expect(response == RunAggregationQueryResponse(aggregateFields: [:], readTime: nil))
        #expect(metrics == Self.planOnlyMetrics)
    }

    @Test func gRPCMessagesGiveTheResultAndTheMetricsOfTheMessageThatCarriesThem() throws {
        let planOnly = try Firestore.addRunAggregationQueryMessage(
            Self.planOnlyMessage, to: RunAggregationQueryResponse(aggregateFields: [:], readTime: nil))
        #expect(planOnly == RunAggregationQueryResponse(aggregateFields: [:], readTime: nil))
        #expect(
            try ExplainMetrics.read(field: 10, of: Self.planOnlyMessage, message: "RunAggregationQueryResponse")
                == Self.planOnlyMetrics)

        let analyzed = try Firestore.addRunAggregationQueryMessage(
            Self.analyzedMessage, to: RunAggregationQueryResponse(aggregateFields: [:], readTime: nil))
        #expect(
            analyzed
                == RunAggregationQueryResponse(
                    aggregateFields: ["aggregate_0": .integer(3)],
                    readTime: try Timestamp(seconds: 1_714_521_607, nanos: 0)))
        #expect(
            try ExplainMetrics.read(field: 10, of: Self.analyzedMessage, message: "RunAggregationQueryResponse")
                == ExplainMetrics(
                    planSummary: PlanSummary(indexesUsed: [["query_scope": "Collection"]]),
                    executionStats: ExecutionStats(
                        resultsReturned: 1, executionDuration: .microseconds(21_600), readOperations: 1,
                        debugStats: ["documents_scanned": "3"])))
        // A message without field 10 has no metrics.
        #expect(try ExplainMetrics.read(field: 10, of: [0x1A, 0x00], message: "RunAggregationQueryResponse") == nil)
    }

    @Test(arguments: [
        (
            #"[{"explainMetrics":"plan"}]"#,
            "runAggregationQuery element 0: explain metrics: explainMetrics is a string, not an object"
        ),
        (
            #"[{"readTime":"2024-05-01T00:00:07Z"},{"explainMetrics":{"planSummary":{"indexesUsed":{}}}}]"#,
            "runAggregationQuery element 1: explain metrics: planSummary.indexesUsed is a object, not an array"
        ),
    ])
    func malformedMetricsNameTheirElement(body: String, message: String) throws {
        #expect(throws: FirestoreError(code: .internal, message: message)) {
            try Firestore.decodeExplainedRunAggregationQuery(json(body))
        }
    }
}
