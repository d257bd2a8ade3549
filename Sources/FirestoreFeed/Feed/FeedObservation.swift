import FirestoreREST

/// A feed's events and delivered snapshots reported to its client's log handler and metrics factory
/// (`Firestore.logHandler`, `Firestore.metricsFactory`; the metrics are listed on `FirestoreMetricsFactory`).
package struct FeedObservation: Sendable {
    let observability: Observability
    let metadata: [String: String]
    /// The feed source's name: `listen`, `keys`, `full`, `delta`, or `group`.
    let source: String

    package init(_ query: Query, source: String, shard: Int? = nil) {
        observability = query.firestore.observability
        var metadata = query.firestore.logMetadata
        metadata["firestore.target"] = (try? QueryIdentity(query).description) ?? query.collectionID
        if let shard { metadata["firestore.shard"] = "\(shard)" }
        self.metadata = metadata
        self.source = source
    }

    /// `onEvent` that also reports each event.
    package func events(_ onEvent: (@Sendable (FeedEvent) -> Void)?) -> @Sendable (FeedEvent) -> Void {
        let observation = self
        return { event in
            observation.report(event)
            onEvent?(event)
        }
    }

    /// Reports one event: logged at debug (a poll's statistics at trace), counted where a metric counts it.
    package func report(_ event: FeedEvent) {
        switch event {
        case .polled(let statistics):
            observability.count(
                "firestore_feed_billed_reads_total", [("source", source)], by: Int64(statistics.billedReads))
            observability.log(.trace, "poll: \(statistics)", metadata: metadata)
            return
        case .backfillPage(_, _, _, let statistics):
            observability.count(
                "firestore_feed_billed_reads_total", [("source", "backfill")], by: Int64(statistics.billedReads))
            observability.log(.trace, "backfill page: \(statistics)", metadata: metadata)
            return
        case .listenFailed: observability.count("firestore_listen_reconnects_total")
        case .fellBackToPolling: observability.count("firestore_listen_fallbacks_total")
        case .snapshotsCoalesced(let count): observability.count("firestore_feed_coalesced_total", by: Int64(count))
        case .leaseAcquired: observability.count("firestore_group_lease_events_total", [("event", "acquired")])
        case .leaseStolen: observability.count("firestore_group_lease_events_total", [("event", "stolen")])
        case .leaseRenewedLate: observability.count("firestore_group_lease_events_total", [("event", "renewedLate")])
        case .leaseLost: observability.count("firestore_group_lease_events_total", [("event", "lost")])
        case .leaseReleased: observability.count("firestore_group_lease_events_total", [("event", "released")])
        case .leaseRenewalFailed:
            observability.count("firestore_group_lease_events_total", [("event", "renewalFailed")])
        case .publishFailed: observability.count("firestore_pubsub_publish_retries_total")
        default: break
        }
        observability.log(.debug, "feed: \(event)", metadata: metadata)
    }

    /// Reports a snapshot handed to the consumer: counted, its lag recorded, a Listen snapshot's billed reads
    /// counted (a poll's were counted with the poll).
    package func delivered(_ snapshot: QuerySnapshot) {
        observability.count("firestore_feed_snapshots_total", [("source", source)])
        if let readTime = snapshot.readTime {
            let lag = Timestamp.now().duration(since: readTime)
            let (seconds, attoseconds) = lag.components
            observability.record(
                "firestore_feed_lag_seconds", [("source", source)], Double(seconds) + Double(attoseconds) / 1e18)
        }
        if let statistics = snapshot.statistics, statistics.mode == nil {
            observability.count(
                "firestore_feed_billed_reads_total", [("source", source)], by: Int64(statistics.billedReads))
        }
        observability.log(
            .trace, "snapshot at \(snapshot.readTime?.rfc3339 ?? "-"): \(snapshot.documentChanges.count) changes",
            metadata: metadata)
    }
}
