import Foundation
import Testing

@testable import FirestoreREST

/// The meter's pricing rules (the statistics' text: `PollStatisticsTests`).
@Suite(.timeLimit(.minutes(2))) struct BilledReadsTests {
    @Test func theRulesOfFirestorePricing() {
        #expect(BilledReads.runQuery(documentsReturned: 0) == 1)
        #expect(BilledReads.runQuery(documentsReturned: 10_000) == 10_000)
        #expect(BilledReads.batchGet(documentsRequested: 3) == 3)
        #expect(BilledReads.batchGet(documentsRequested: 0) == 0)
        #expect(BilledReads.aggregation(indexEntries: 0) == 1)
        #expect(BilledReads.aggregation(indexEntries: 1000) == 1)
        #expect(BilledReads.aggregation(indexEntries: 1001) == 2)
        #expect(BilledReads.aggregation(indexEntries: 10_000) == 10)
        #expect(BilledReads.listen(documentsDelivered: 0, isFirstSnapshot: true) == 1)
        #expect(BilledReads.listen(documentsDelivered: 0, isFirstSnapshot: false) == 0)
        #expect(BilledReads.listen(documentsDelivered: 7, isFirstSnapshot: false) == 7)
    }

    @Test func timestampArithmetic() throws {
        let time = try Timestamp(rfc3339: "2024-05-01T00:00:00.250Z")
        #expect(time.subtracting(.milliseconds(500)) == (try Timestamp(rfc3339: "2024-04-30T23:59:59.750Z")))
        #expect(time.subtracting(.milliseconds(-750)) == (try Timestamp(rfc3339: "2024-05-01T00:00:01Z")))
        #expect(Timestamp.minimum.subtracting(.seconds(1)) == .minimum)
        #expect(Timestamp.maximum.subtracting(.seconds(-1)) == .maximum)
        #expect(try Timestamp(rfc3339: "2024-05-01T00:00:02Z").duration(since: time) == .milliseconds(1750))
    }

    @Test func countResponses() throws {
        let good = try Firestore.decodeCount(
            json(
                #"[{"result":{"aggregateFields":{"count":{"integerValue":"10000"}}},"readTime":"2024-05-01T00:00:00Z"}]"#
            ))
        #expect(good.count == 10_000)
        #expect(good.readTime == (try Timestamp(rfc3339: "2024-05-01T00:00:00Z")))
        for broken in [
            #"[{"readTime":"2024-05-01T00:00:00Z"}]"#,
            #"[{"result":{"aggregateFields":{"count":{"stringValue":"7"}}}}]"#,
            #"[{"result":{"aggregateFields":{"count":{"integerValue":"-1"}}}}]"#, "{}",
        ] {
            let error = #expect(throws: FirestoreError.self) { try Firestore.decodeCount(json(broken)) }
            #expect(error?.code == .internal, "\(broken)")
        }
    }
}
