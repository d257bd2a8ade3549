import FirestoreTestSupport
import Foundation
import Testing

@testable import FirestoreREST

/// Query explain: the request as the REST reference has it (`RunQueryRequest.explain_options`, `ExplainOptions`)
/// and what malformed metrics give.
@Suite(.timeLimit(.minutes(2))) struct ExplainTests {
    static let planOnly =
        #"[{"explainMetrics":{"planSummary":{"indexesUsed":[{"query_scope":"Collection","properties":"(__name__ ASC)"}]}}}]"#

    @Test(arguments: [(false, #"{"analyze":false}"#), (true, #"{"analyze":true}"#)])
    func theRequestCarriesExplainOptions(analyze: Bool, expected: String) async throws {
        let transport = ScriptedTransport([.response(status: 200, body: Self.planOnly)])
        let db = try transport.firestore()
        _ = try await db.collection("fruits").whereField("color", isEqualTo: "red").limit(to: 2)
            .explain(options: ExplainOptions(analyze: analyze))
        #expect(transport.calls == ["POST :runQuery"])
        #expect(
            transport.bodies[0]
                == (try json(
                    """
                    {"structuredQuery":{"from":[{"collectionId":"fruits"}],
                     "where":{"fieldFilter":{"field":{"fieldPath":"color"},"op":"EQUAL","value":{"stringValue":"red"}}},
                     "limit":2},
                     "explainOptions":\(expected)}
                    """)))
    }

    @Test func aPlanOnlyAnswerHasNoSnapshot() throws {
        let (response, metrics) = try Firestore.decodeExplainedRunQuery(json(Self.planOnly))
        #expect(response.documents == [])
        #expect(metrics?.planSummary.indexesUsed == [["query_scope": "Collection", "properties": "(__name__ ASC)"]])
        #expect(metrics?.executionStats == nil)
    }

    @Test(arguments: [
        (#"[{"explainMetrics":[]}]"#, "runQuery element 0: explain metrics: explainMetrics is a array, not an object"),
        (
            #"[{"explainMetrics":{"planSummary":{"indexesUsed":[1]}}}]"#,
            "runQuery element 0: explain metrics: planSummary.indexesUsed[0] is a number, not an object"
        ),
        (
            #"[{"explainMetrics":{"planSummary":{},"executionStats":{"readOperations":"x"}}}]"#,
            #"runQuery element 0: explain metrics: executionStats.readOperations "x" is not an int64"#
        ),
        (
            #"[{"explainMetrics":{"planSummary":{},"executionStats":{"executionDuration":"1.5"}}}]"#,
            #"runQuery element 0: explain metrics: executionStats.executionDuration "1.5" is not a Duration"#
        ),
        (#"[{"done":true}]"#, "runQuery response carries no readTime"),
    ])
    func malformedAnswersNameTheirMember(body: String, message: String) throws {
        #expect(throws: FirestoreError(code: .internal, message: message)) {
            try Firestore.decodeExplainedRunQuery(json(body))
        }
    }

    @Test(arguments: [
        ("3.5s", Duration.seconds(3) + .milliseconds(500)), ("0.021600s", .microseconds(21_600)),
        ("0s", .zero), ("-0.000000001s", .nanoseconds(-1)), ("12s", .seconds(12)),
    ])
    func durations(text: String, expected: Duration) {
        #expect(ExecutionStats.duration(text) == expected)
    }

    @Test(arguments: ["", "s", "1", "1.s", ".5s", "1.0000000001s", "a s", "--1s", "1e3s"])
    func badDurations(text: String) {
        #expect(ExecutionStats.duration(text) == nil)
    }
}
