import FirestoreFeed
import FirestorePubSub
import FirestoreREST

extension PublishCommand {
    /// Connects to Firestore and Pub/Sub, then publishes the query's changes until SIGTERM or SIGINT (exit 0 once the
    /// snapshot in hand is published and checkpointed), the feed or a publish fails for good, or `--max-failures`
    /// failures come in a row.
    package func run() async throws(CLIError) {
        let topic: PubSubTopic
        do {
            topic = try self.topic()
        } catch {
            throw .usage(error.message)
        }
        let firestore = try await connection.makeClient()
        let published = query.query(on: firestore)
        do {
            _ = try published.structuredQuery()
        } catch {
            throw .usage(error.message)
        }
        let key = try checkpoint.key(for: published)
        let verbose = self.verbose
        let source = mode.source
        let interval = self.interval
        let group = self.group
        let checkpoint = self.checkpoint
        let createTopic = self.createTopic
        let pubSubProtocol = self.pubSubProtocol
        try await CLIError.runtimeErrors {
            let publisher = try PubSubPublisher.fromEnvironment(
                credentials: PubSubPublisher.credentials(from: firestore.credentials), transport: firestore.transport,
                protocol: pubSubProtocol)
            if createTopic, try await publisher.createTopic(topic) {
                Console.error("note: created the topic \(topic)")
            }
            let store = try await checkpoint.openStore()
            try await failureLimit.watching(report: Console.report) { onEvent in
                try await TerminateSignal.untilTerminated(interrupt: true) {
                    if let name = group.name {
                        let feedGroup = FeedGroup(
                            published, name: name, options: group.options(policy: PollingPolicy(interval: interval)),
                            onEvent: onEvent)
                        try await feedGroup.publish(to: topic, with: publisher) { shard, count in
                            if verbose { Self.tell(count, at: shard.snapshot.readTime, shard: shard.shard) }
                        }
                    } else if let store {
                        try await published.publish(
                            to: topic, with: publisher, source: source, interval: interval, checkpoint: store,
                            key: key, onEvent: onEvent,
                            onPublished: { snapshot, count in
                                if verbose { Self.tell(count, at: snapshot.readTime, shard: nil) }
                            })
                    } else {
                        try await Self.publishWithoutCheckpoint(
                            published, to: topic, with: publisher, source: source, interval: interval,
                            verbose: verbose, onEvent: onEvent)
                    }
                }
            }
        }
    }

    /// Without `--checkpoint` or `--group`: every start publishes the whole result first (each document `added`),
    /// then the changes; SIGTERM lets the snapshot in hand be published.
    static func publishWithoutCheckpoint(
        _ query: Query, to topic: PubSubTopic, with publisher: PubSubPublisher, source: FeedSource,
        interval: Duration, verbose: Bool, onEvent: @escaping @Sendable (FeedEvent) -> Void
    ) async throws {
        for try await snapshot in query.snapshots(source: source, interval: interval, onEvent: onEvent) {
            let messages = try PubSubChangeMessage.messages(for: snapshot)
            // Published to its end even when SIGTERM comes meanwhile.
            try await Task {
                if !messages.isEmpty {
                    _ = try await publisher.publish(
                        messages, to: topic, onRetry: FeedEvent.publishRetries(to: onEvent))
                }
            }.value
            if verbose { tell(messages.count, at: snapshot.readTime, shard: nil) }
        }
    }

    /// `--verbose`'s line for a published snapshot.
    static func tell(_ count: Int, at readTime: Timestamp?, shard: Int?) {
        let lag = readTime.map { " lag \(Console.seconds(Timestamp.now().duration(since: $0))) s," } ?? ""
        Console.error(
            "publish: \(count) message\(count == 1 ? "" : "s")\(shard.map { " of shard \($0)" } ?? "") at "
                + "\(readTime?.rfc3339 ?? "no read time"),\(lag) accepted")
    }
}
