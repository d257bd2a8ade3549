import FirestoreFeed
import FirestoreREST
import Testing

/// What a poll or a Listen snapshot cost, as text.
@Suite(.timeLimit(.minutes(2))) struct PollStatisticsTests {
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
}
