import FirestoreFeed
import FirestoreREST
import FirestoreTestSupport
import Foundation
import Synchronization
import Testing

@testable import FirestorePubSub

/// A checkpointed feed published to the Pub/Sub emulator (`query.publish(to:with:checkpoint:key:)`) on the Firestore
/// emulator: stopped and started again from its checkpoint, its messages applied by the consumer's rule (a message
/// applies only when its `updateTime` is later than the one held for its `name`) give the query's result; one
/// document's `updateTime`s never go back in delivery order.
@Suite(.timeLimit(.minutes(3)), .needsPubSub) struct PubSubFeedLiveTests {
    final class Count: Sendable { let value = Mutex(0) }

    /// What a consumer holds per document: the last applied message's `updateTime` and data (`nil` once removed).
    struct Consumer {
        var held: [String: (updateTime: String, data: String?)] = [:]
        var applied = 0
        var duplicates = 0
        var regressions: [String] = []
        var lastSeen: [String: String] = [:]

        mutating func take(_ message: PulledMessage) {
            guard let name = message.attributes["name"], let updateTime = message.attributes["updateTime"] else {
                regressions.append("no name or updateTime: \(message.attributes)")
                return
            }
            if let last = lastSeen[name], last > updateTime {
                regressions.append("\(name): \(updateTime) after \(last)")
            }
            lastSeen[name] = max(lastSeen[name] ?? "", updateTime)
            if let current = held[name], current.updateTime >= updateTime {
                duplicates += 1
                return
            }
            held[name] = (updateTime, message.attributes["changeType"] == "removed" ? nil : message.data)
            applied += 1
        }

        /// The documents held: name to fields JSON.
        var documents: [String: JSONValue] {
            held.compactMapValues { entry in
                entry.data.flatMap { try? JSONValue.parse($0) }.flatMap { $0["fields"] }
            }
        }
    }

    @Test func aRestartedFeedsMessagesAppliedByTheConsumersRuleGiveTheQuery() async throws {
        let db = try LiveFirestore.make("pubsub-feed")
        let publisher = try PubSubPublisher.testEmulator()
        let (topic, subscription) = try await publisher.freshTopic("feed")
        let path = NSTemporaryDirectory() + "pubsub-feed-\(UUID().uuidString).sqlite"
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        for id in ["apple", "banana"] { try await db.document("fruits/\(id)").setData(["name": .string(id)]) }
        let fruits = db.collection("fruits")
        let published = Count()

        func run() -> Task<Void, any Error> {
            Task { [fruits, publisher, topic, path, published] in
                let store = try await FeedCheckpointStore(path: path)
                try await fruits.publish(
                    to: topic, with: publisher, checkpoint: store, key: "fruits",
                    onPublished: { _, count in published.value.withLock { $0 += count } })
            }
        }
        var consumer = Consumer()
        let first = run()
        for message in try await publisher.pull(2, from: subscription) { consumer.take(message) }
        try await db.document("fruits/apple").setData(["name": "apple", "kcal": 52])
        try await db.document("fruits/banana").delete()
        for message in try await publisher.pull(2, from: subscription) { consumer.take(message) }
        first.cancel()
        try await first.value
        let before = published.value.withLock { $0 }
        #expect(before == 4)

        // Stopped: changes meanwhile, then the feed again from its checkpoint.
        try await db.document("fruits/cherry").setData(["name": "cherry"])
        try await db.document("fruits/apple").delete()
        let second = run()
        for message in try await publisher.pull(2, from: subscription) { consumer.take(message) }
        second.cancel()
        try await second.value
        #expect(published.value.withLock { $0 } == 6)

        let expected = try await fruits.getDocuments().documents.reduce(into: [String: JSONValue]()) {
            result, snapshot in
            if let document = snapshot.document { result[document.name] = FirestoreValue.encodeFields(document.fields) }
        }
        #expect(consumer.documents == expected)
        #expect(expected.keys.sorted().map { $0.split(separator: "/").last.map(String.init) ?? "" } == ["cherry"])
        #expect(consumer.applied == 6)
        #expect(consumer.regressions == [])
        #expect(try await publisher.pullAndAcknowledge(subscription) == [])
    }
}
