import FirestoreWire

/// The document reads Firestore bills for a request, by the rules of Firestore pricing
/// (https://firebase.google.com/docs/firestore/pricing, "Reads"; https://cloud.google.com/firestore/pricing):
/// the meter behind FirestoreFeed's `PollStatistics.billedReads`. The emulator bills nothing; these are what
/// production charges for the same requests. Each rule is O(1). The Listen rules (a target's snapshots, a resumed
/// target, a liveness probe) are the feed's own; ``runQuery(documentsReturned:)``, ``batchGet(documentsRequested:)``
/// and ``aggregation(indexEntries:)`` price what a client sends.
public enum BilledReads {
    /// runQuery: one read per document returned, projections (`select`, keys only) included; a query that returns
    /// nothing still costs one read.
    public static func runQuery(documentsReturned: Int) -> Int { max(1, documentsReturned) }

    /// batchGet: one read per document asked for.
    public static func batchGet(documentsRequested: Int) -> Int { max(0, documentsRequested) }

    /// An aggregation (`count()`): one read per batch of up to 1,000 index entries it matches, at least one:
    /// ceil(entries / 1,000).
    public static func aggregation(indexEntries: Int) -> Int {
        guard indexEntries > 0 else { return 1 }
        return (indexEntries - 1) / 1000 + 1
    }

    /// A Listen target ("Listening to query results"): one read per document added to or updated in the result;
    /// the first snapshot is billed for its documents, at least one, like a query.
    package static func listen(documentsDelivered: Int, isFirstSnapshot: Bool) -> Int {
        isFirstSnapshot ? max(1, documentsDelivered) : max(0, documentsDelivered)
    }

    /// A Listen target resumed after a disconnection ("Listening to query results": a listener disconnected for
    /// more than 30 minutes is charged as a brand-new query, https://firebase.google.com/docs/firestore/pricing#listens):
    /// resumed with its resume token within 30 minutes, one read per document added or updated meanwhile (none when
    /// nothing changed); otherwise (no token sent) the whole result, at least one, as a new query.
    package static func listenResumed(documentsDelivered: Int, resultSize: Int, sentResumeToken: Bool) -> Int {
        sentResumeToken ? max(0, documentsDelivered) : max(1, resultSize)
    }

    /// A liveness probe of a quiet Listen stream: a documents target for one document that never exists, added and
    /// removed once it is current. Counted as one read, the most a one-document listen can be billed ("Listening to
    /// query results": one read per document in the result, and a query that matches nothing is billed one read,
    /// https://firebase.google.com/docs/firestore/pricing). Production Firestore sends a `NO_CHANGE` about every 30
    /// seconds on an idle stream, so a live production stream is never probed.
    package static let listenProbe = 1
}
