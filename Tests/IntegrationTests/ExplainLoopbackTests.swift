import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

/// Query explain decoded from a scripted loopback HTTP server that answers as the REST reference shows
/// (`RunQueryResponse.explain_metrics` in the stream's last element; `ExplainMetrics`, `PlanSummary`,
/// `ExecutionStats`), since the emulator ignores `explainOptions`.
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
}
