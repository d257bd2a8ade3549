import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

/// Query explain on the real emulator over REST and gRPC, which ignores `explainOptions` on both wires: it runs the query and answers with the
/// plain results, so the explanation has the results and no metrics, whatever `analyze` says.
@Suite(.timeLimit(.minutes(2))) struct ExplainLiveTests {
    @Test(arguments: [false, true], LiveFirestore.protocols)
    func theEmulatorReturnsResultsWithoutMetrics(analyze: Bool, wire: FirestoreProtocol) async throws {
        let db = try LiveFirestore.make("explain", wire)
        try await db.document("fruits/apple").setData(["color": "red"])
        try await db.document("fruits/fig").setData(["color": "purple"])
        let explained = try await db.collection("fruits").whereField("color", isEqualTo: "red")
            .explain(options: ExplainOptions(analyze: analyze))
        #expect(explained.metrics == nil)
        #expect(explained.snapshot?.documents.map(\.documentID) == ["apple"])
        #expect(explained.snapshot?.readTime != nil)
    }

    /// Aggregation explain on the emulator, which ignores `explainOptions` on runAggregationQuery too: `count()` over
    /// three documents, explained with `analyze`, comes back as the plain result (count 3) with no metrics.
    @Test(arguments: LiveFirestore.protocols)
    func anExplainedCountReturnsTheResultWithoutMetrics(wire: FirestoreProtocol) async throws {
        let db = try LiveFirestore.make("explain-count", wire)
        for name in ["apple", "fig", "kiwi"] { try await db.document("fruits/\(name)").setData(["color": "red"]) }
        let explained = try await db.collection("fruits").count.explain(options: ExplainOptions(analyze: true))
        #expect(explained.metrics == nil)
        #expect(explained.snapshot?.count == 3)
        #expect(explained.snapshot?.readTime != nil)
    }
}
