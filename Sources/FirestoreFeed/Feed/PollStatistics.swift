import FirestoreREST

/// What one poll of a change feed, or one snapshot of the Listen stream, cost: carried by every snapshot a feed
/// publishes (and, for every poll, changed or not, by `FeedEvent.polled`).
///
/// ``billedReads`` is the meter: the document reads Firestore bills for the requests made, by the rules of
/// Firestore pricing (https://firebase.google.com/docs/firestore/pricing, "Reads" and "Listening to query
/// results"; https://cloud.google.com/firestore/pricing), as FirestoreREST's `BilledReads` computes them. The
/// emulator bills nothing; the figure is what production would charge for the same requests. A snapshot a slow listener receives
/// folded from several (`FeedEvent.snapshotsCoalesced`) carries the newest one's statistics; `FeedEvent.polled`
/// reports every poll.
public struct PollStatistics: Sendable, Hashable, CustomStringConvertible {
    /// Why a delta poll ran a keys scan instead of (or besides) the delta request.
    public enum KeysScan: Sendable, Hashable {
        /// There was no previous result to build on (the feed's first poll).
        case firstPoll
        /// The `count()` at the poll's `readTime` differed from the documents the delta accounts for: a document
        /// left the result or was deleted (or was added by a writer that did not set the tracking field).
        case countDiffers(counted: Int, expected: Int)
        /// A change could move the edge of the `limit` / `limit(toLast:)` window, so documents beyond it may
        /// come in.
        case windowEdge
        /// The periodic reconciling scan (`reconcileInterval`); ``PollStatistics/drift`` says what it found.
        case reconcile
        /// The query cannot be polled by delta: it has an `offset`, or a projection without a field it orders by.
        case unsupportedQuery(String)
    }

    /// The mode this poll used; `nil` for a snapshot of the Listen stream.
    public var mode: PollMode?
    /// Response body bytes received by the poll (after decompression), every request together; 0 for Listen.
    public var bytesReceived: Int
    /// Wall-clock time from the first request's start to the last response, every request together; zero for
    /// Listen.
    public var latency: Duration
    /// HTTP requests made: 1 in full mode; 1 or 2 (or more for large batches) in keys mode; 2 in delta mode
    /// (the delta runQuery and the count), more when it scans; 0 for Listen.
    public var requests: Int
    /// Documents fetched with their fields: in keys mode by phase two, in full mode every document, in delta mode
    /// those the delta request returned (plus a scan's batchGet); for Listen, the documents delivered (added or
    /// modified).
    public var documentsFetched: Int
    /// The document reads Firestore bills for this poll or snapshot (FirestoreREST's `BilledReads`): runQuery, one
    /// per document returned and at least 1; batchGet, one per document asked for; a count, one per 1,000 index
    /// entries and at least 1; Listen, one per document delivered (the first snapshot: its documents, at least 1).
    public var billedReads: Int
    /// Delta mode: documents the delta request returned again, inside the margin, whose `updateTime` had not
    /// moved (billed, never reported as changes); 0 otherwise.
    public var marginRereads: Int
    /// Delta mode: why this poll ran a keys scan; `nil` when the delta request and the count sufficed (and in the
    /// other modes).
    public var keysScan: KeysScan?
    /// Delta mode, on a reconciling scan: how many documents the scan found out of date against what the delta
    /// polls had built (missing, extra, or at another `updateTime`); 0 when every writer sets the tracking field.
    /// `nil` when no reconciling scan ran, or when the same poll also saw a document leave (the comparison is then
    /// made at the next poll).
    public var drift: Int?

    /// Statistics with every figure given; the delta figures default to none.
    public init(
        mode: PollMode?, bytesReceived: Int, latency: Duration, requests: Int, documentsFetched: Int,
        billedReads: Int, marginRereads: Int = 0, keysScan: KeysScan? = nil, drift: Int? = nil
    ) {
        self.mode = mode
        self.bytesReceived = bytesReceived
        self.latency = latency
        self.requests = requests
        self.documentsFetched = documentsFetched
        self.billedReads = billedReads
        self.marginRereads = marginRereads
        self.keysScan = keysScan
        self.drift = drift
    }

    /// The statistics of a Listen snapshot that delivered `delivered` documents (added or modified), billed
    /// `BilledReads.listen(documentsDelivered:isFirstSnapshot:)` (FirestoreREST).
    package static func listen(documentsDelivered delivered: Int, isFirstSnapshot: Bool) -> PollStatistics {
        PollStatistics(
            mode: nil, bytesReceived: 0, latency: .zero, requests: 0, documentsFetched: delivered,
            billedReads: BilledReads.listen(documentsDelivered: delivered, isFirstSnapshot: isFirstSnapshot))
    }

    /// The statistics of the first snapshot of a resumed Listen target (a feed restarted from its checkpoint) that
    /// delivered `delivered` documents (added or modified) of `resultSize`, billed
    /// `BilledReads.listenResumed(documentsDelivered:resultSize:sentResumeToken:)` (FirestoreREST).
    package static func listenResumed(documentsDelivered delivered: Int, resultSize: Int, sentResumeToken: Bool)
        -> PollStatistics
    {
        PollStatistics(
            mode: nil, bytesReceived: 0, latency: .zero, requests: 0, documentsFetched: delivered,
            billedReads: BilledReads.listenResumed(
                documentsDelivered: delivered, resultSize: resultSize, sentResumeToken: sentResumeToken))
    }

    /// `keys mode: 2 requests, 1843 bytes, 3 documents fetched, 10000 billed reads, 4.1 ms`; a delta poll adds its
    /// margin re-reads and any scan (`delta mode: ..., 11 billed reads, keys scan (count 9, expected 10), 5.0 ms`);
    /// a Listen snapshot is `listen: 3 documents delivered, 3 billed reads`.
    public var description: String {
        func plural(_ count: Int, _ noun: String) -> String { "\(count) \(noun)\(count == 1 ? "" : "s")" }
        guard let mode else {
            return "listen: \(plural(documentsFetched, "document")) delivered, \(plural(billedReads, "billed read"))"
        }
        let milliseconds = Double(latency.components.seconds) * 1000 + Double(latency.components.attoseconds) / 1e15
        let rounded = (milliseconds * 10).rounded() / 10
        var text = "\(mode.name) mode: \(plural(requests, "request")), \(bytesReceived) bytes, "
        text += "\(plural(documentsFetched, "document")) fetched"
        if marginRereads > 0 { text += " (\(plural(marginRereads, "margin re-read")))" }
        text += ", \(plural(billedReads, "billed read"))"
        switch keysScan {
        case nil: break
        case .firstPoll: text += ", keys scan (first poll)"
        case .countDiffers(let counted, let expected): text += ", keys scan (count \(counted), expected \(expected))"
        case .windowEdge: text += ", keys scan (window edge)"
        case .reconcile: text += ", keys scan (reconcile" + (drift.map { ", drift \($0)" } ?? "") + ")"
        case .unsupportedQuery(let reason): text += ", keys scan (\(reason))"
        }
        return text + ", \(rounded) ms"
    }
}
