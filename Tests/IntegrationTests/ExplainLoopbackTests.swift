import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

/// Query and aggregation explain decoded from a scripted loopback HTTP server that answers as the REST reference
/// shows (`RunQueryResponse.explain_metrics`, `RunAggregationQueryResponse.explain_metrics` in the stream's last
/// element; `ExplainMetrics`, `PlanSummary`, `ExecutionStats`), and aggregation explain from the scripted gRPC server
/// (`Scripts/grpc-script-server`, whose messages Google's own protobuf runtime encodes and whose log decodes the
/// request), since the emulator ignores `explainOptions`.
@Suite(.timeLimit(.minutes(2))) struct ExplainLoopbackTests {
    static let root = "projects/p/databases/(default)/documents"

    @Test func planOnly() async throws {
        let answer = ScriptedHTTPServer.Answer(chunks: [
            #"[{"explainMetrics":{"planSummary":{"indexesUsed":["#,
            #"{"query_scope":"Collection","properties":"(color ASC, __name__ ASC)"}]}}}]"#,
        ])
        try await ScriptedHTTPServer.with([answer]) { server in
            let db = try server.firestore()
            let explained = try await db.collection("fruits").whereField("color", isEqualTo: "red").explain()
            #expect(explained.snapshot == nil)
            #expect(
                explained.metrics
                    == ExplainMetrics(
                        planSummary: PlanSummary(indexesUsed: [
                            ["query_scope": "Collection", "properties": "(color ASC, __name__ ASC)"]
                        ]), executionStats: nil))
            let received = try await server.received()
            #expect(received.map(\.path) == ["/v1/\(Self.root):runQuery"])
            #expect(try JSONValue.parse(Data(received[0].body.utf8))["explainOptions"] == ["analyze": false])
        }
    }

    @Test func analyzeReturnsTheResultsAndTheExecutionStats() async throws {
        let answer = ScriptedHTTPServer.Answer(chunks: [
            #"[{"document":{"name":"\#(Self.root)/fruits/apple","fields":{"color":{"stringValue":"red"}},"#
                + #""createTime":"2024-05-01T00:00:00Z","updateTime":"2024-05-01T00:00:00Z"},"#
                + #""readTime":"2024-05-01T00:00:07Z"},"#,
            #"{"readTime":"2024-05-01T00:00:07Z","explainMetrics":{"planSummary":{"indexesUsed":"#
                + #"[{"query_scope":"Collection","properties":"(color ASC, __name__ ASC)"}]},"#
                + #""executionStats":{"resultsReturned":"1","executionDuration":"0.021600s","readOperations":"2","#
                + #""debugStats":{"billing_details":{"documents_billable":"1","index_entries_billable":"1","#
                + #""small_ops":"0","min_query_cost":"0"},"documents_scanned":"1","index_entries_scanned":"1"}}},"#
                + #""done":true}]"#,
        ])
        try await ScriptedHTTPServer.with([answer]) { server in
            let db = try server.firestore()
            let explained = try await db.collection("fruits").whereField("color", isEqualTo: "red")
                .explain(options: ExplainOptions(analyze: true))
            #expect(explained.snapshot?.documents.map(\.documentID) == ["apple"])
            #expect(explained.snapshot?.readTime == (try Timestamp(seconds: 1_714_521_607, nanos: 0)))
            let stats = try #require(explained.metrics?.executionStats)
            #expect(stats.resultsReturned == 1)
            #expect(stats.readOperations == 2)
            #expect(stats.executionDuration == .microseconds(21_600))
            #expect(
                stats.debugStats
                    == [
                        "billing_details": [
                            "documents_billable": "1", "index_entries_billable": "1", "small_ops": "0",
                            "min_query_cost": "0",
                        ],
                        "documents_scanned": "1", "index_entries_scanned": "1",
                    ])
            #expect(
                explained.metrics?.planSummary.indexesUsed == [
                    ["query_scope": "Collection", "properties": "(color ASC, __name__ ASC)"]
                ])
        }
    }

    /// The plan of `count()` over `fruits` where `color == "red"`, as the server describes its index: the
    /// `planSummary` member of `explainMetrics`.
    static let aggregationPlan =
        #""planSummary":{"indexesUsed":[{"query_scope":"Collection","properties":"(color ASC, __name__ ASC)"}]}"#
    static let aggregationIndexes: [[String: JSONValue]] = [
        ["query_scope": "Collection", "properties": "(color ASC, __name__ ASC)"]
    ]
    /// The execution of that `count()`: one result, one billable read.
    static let aggregationStats =
        #"{"resultsReturned":"1","executionDuration":"0.012500s","readOperations":"1","#
        + #""debugStats":{"billing_details":{"documents_billable":"0","index_entries_billable":"3"},"#
        + #""documents_scanned":"0","index_entries_scanned":"3"}}"#

    static func expectAggregationStats(_ stats: ExecutionStats?) {
        #expect(
            stats
                == ExecutionStats(
                    resultsReturned: 1, executionDuration: .microseconds(12_500), readOperations: 1,
                    debugStats: [
                        "billing_details": ["documents_billable": "0", "index_entries_billable": "3"],
                        "documents_scanned": "0", "index_entries_scanned": "3",
                    ]))
    }

    @Test func aggregationPlanOnly() async throws {
        let answer = ScriptedHTTPServer.Answer(chunks: [#"[{"explainMetrics":{"# + Self.aggregationPlan + "}}]"])
        try await ScriptedHTTPServer.with([answer]) { server in
            let db = try server.firestore()
            let explained = try await db.collection("fruits").whereField("color", isEqualTo: "red").count.explain()
            #expect(explained.snapshot == nil)
            #expect(
                explained.metrics
                    == ExplainMetrics(
                        planSummary: PlanSummary(indexesUsed: Self.aggregationIndexes), executionStats: nil))
            let received = try await server.received()
            #expect(received.map(\.path) == ["/v1/\(Self.root):runAggregationQuery"])
            #expect(try JSONValue.parse(Data(received[0].body.utf8))["explainOptions"] == ["analyze": false])
        }
    }

    @Test func aggregationAnalyzeReturnsTheResultAndTheExecutionStats() async throws {
        let answer = ScriptedHTTPServer.Answer(chunks: [
            #"[{"result":{"aggregateFields":{"aggregate_0":{"integerValue":"3"}}},"readTime":"2024-05-01T00:00:07Z"},"#,
            #"{"readTime":"2024-05-01T00:00:07Z","explainMetrics":{"# + Self.aggregationPlan
                + #","executionStats":"# + Self.aggregationStats + "}}]",
        ])
        try await ScriptedHTTPServer.with([answer]) { server in
            let db = try server.firestore()
            let explained = try await db.collection("fruits").whereField("color", isEqualTo: "red").count
                .explain(options: ExplainOptions(analyze: true))
            #expect(explained.snapshot?.count == 3)
            #expect(explained.snapshot?.readTime == (try Timestamp(seconds: 1_714_521_607, nanos: 0)))
            #expect(explained.metrics?.planSummary.indexesUsed == Self.aggregationIndexes)
            Self.expectAggregationStats(explained.metrics?.executionStats)
            let received = try await server.received()
            #expect(try JSONValue.parse(Data(received[0].body.utf8))["explainOptions"] == ["analyze": true])
        }
    }

    /// The same answers over gRPC: `RunAggregationQueryResponse` messages (ProtoJSON in the script, encoded by
    /// Google's runtime) with `explain_metrics = 10`; the request the server decoded carries `explain_options = 8`.
    @Test(arguments: [false, true])
    func aggregationOverGRPC(analyze: Bool) async throws {
        let result =
            #"{"result":{"aggregateFields":{"aggregate_0":{"integerValue":"3"}}},"readTime":"2024-05-01T00:00:07Z"}"#
        let stats = analyze ? #","executionStats":"# + Self.aggregationStats : ""
        let server = try await ScriptedGRPCServer.start(
            script: #"{"other": ["#
                + (analyze ? #"{"respond": "# + result + "}, " : "")
                + #"{"respond": {"explainMetrics": {"# + Self.aggregationPlan + stats + "}}}, "
                + #"{"end": {"status": 0}}]}"#)
        let db = try Firestore.emulator(host: server.host, projectID: "p").using(protocol: .grpc)
        let explained = try await db.collection("fruits").whereField("color", isEqualTo: "red").count
            .explain(options: ExplainOptions(analyze: analyze))
        #expect(explained.metrics?.planSummary.indexesUsed == Self.aggregationIndexes, "\(server.stderr)")
        if analyze {
            #expect(explained.snapshot?.count == 3)
            #expect(explained.snapshot?.readTime == (try Timestamp(seconds: 1_714_521_607, nanos: 0)))
            Self.expectAggregationStats(explained.metrics?.executionStats)
        } else {
            #expect(explained.snapshot == nil)
            #expect(explained.metrics?.executionStats == nil)
        }
        let requests = await server.requests(call: 1, atLeast: 1)
        #expect(
            requests.first?["explainOptions"] == ["analyze": .bool(analyze)],
            "\(server.events("call").first?["path"] ?? .null)")
        #expect(requests.first?["parent"] == .string(Self.root))
        #expect(
            requests.first?["structuredAggregationQuery"]?["aggregations"]
                == [["alias": "aggregate_0", "count": [:]]])
    }
}
