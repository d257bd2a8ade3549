import Foundation
import Testing

@testable import FirestoreREST

/// The meter's pricing rules and the statistics' text.
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

    @Test func descriptions() {
        let delta = PollStatistics(
            mode: .delta(field: "updatedAt"), bytesReceived: 600, latency: .milliseconds(5), requests: 2,
            documentsFetched: 1, billedReads: 11, marginRereads: 1)
        #expect(
            delta.description
                == "delta mode: 2 requests, 600 bytes, 1 document fetched (1 margin re-read), 11 billed reads, 5.0 ms")
        var scanned = delta
        scanned.marginRereads = 0
        scanned.keysScan = .countDiffers(counted: 9, expected: 10)
        #expect(
            scanned.description
                == "delta mode: 2 requests, 600 bytes, 1 document fetched, 11 billed reads, keys scan (count 9, expected 10), 5.0 ms"
        )
        scanned.keysScan = .reconcile
        scanned.drift = 0
        #expect(scanned.description.contains("keys scan (reconcile, drift 0)"))
        #expect(
            PollStatistics.listen(documentsDelivered: 3, isFirstSnapshot: false).description
                == "listen: 3 documents delivered, 3 billed reads")
        let keys = PollStatistics(
            mode: .keys, bytesReceived: 1843, latency: .microseconds(4100), requests: 2, documentsFetched: 3,
            billedReads: 10_000)
        #expect(
            keys.description == "keys mode: 2 requests, 1843 bytes, 3 documents fetched, 10000 billed reads, 4.1 ms")
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
