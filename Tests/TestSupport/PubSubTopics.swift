import FirestorePubSub
import FirestoreREST
import Foundation

/// A message as an ordered subscription delivered it.
package struct PulledMessage: Sendable, Equatable {
    package var data: String
    package var attributes: [String: String]
    package var orderingKey: String
}

extension PubSubPublisher {
    /// A client of the tests' Pub/Sub emulator.
    package static func testEmulator(retry: PubSubRetrySettings = .publishDefaults) throws -> PubSubPublisher {
        try emulator(host: PubSubEnvironment.requireHost(), retry: retry)
    }

    /// A fresh topic with an ordered subscription on it, in project `project`.
    package func freshTopic(_ label: String, project: String = "demo-pubsub") async throws -> (
        PubSubTopic, PubSubSubscription
    ) {
        let topic = try PubSubTopic(projectID: project, topicID: PubSubEnvironment.uniqueID(label))
        let subscription = try PubSubSubscription(
            projectID: project, subscriptionID: PubSubEnvironment.uniqueID(label + "-sub"))
        try await createTopic(topic)
        // A pull the emulator cancels after taking its messages (see ``pullAndAcknowledge(_:)``) has them delivered
        // again after the acknowledgement deadline (60 s), within ``pull(_:from:)``'s guard.
        try await createSubscription(subscription, topic: topic, ordered: true)
        return (topic, subscription)
    }

    /// Pulls what `subscription` has now (at most 1,000 messages) and acknowledges it, in delivery order. Both calls
    /// are retried as a publish is: the emulator answers `CANCELLED` ("call already cancelled") now and then while
    /// other tests' publishers are killed (fc30).
    package func pullAndAcknowledge(_ subscription: PubSubSubscription) async throws -> [PulledMessage] {
        let answer = try await sendRetried(
            "POST", subscription.name + ":pull", body: ["maxMessages": 1_000, "returnImmediately": true])
        let received = answer["receivedMessages"]?.arrayValue ?? []
        let ackIDs = received.compactMap { $0["ackId"]?.stringValue }
        if !ackIDs.isEmpty {
            _ = try await sendRetried(
                "POST", subscription.name + ":acknowledge", body: ["ackIds": .array(ackIDs.map { .string($0) })])
        }
        return received.map { entry in
            let message = entry["message"]
            let data = message?["data"]?.stringValue.flatMap { Data(base64Encoded: $0) } ?? Data()
            return PulledMessage(
                data: String(decoding: data, as: UTF8.self),
                attributes: message?["attributes"]?.objectValue?.compactMapValues(\.stringValue) ?? [:],
                orderingKey: message?["orderingKey"]?.stringValue ?? "")
        }
    }

    /// Pulls until `count` messages came (or 90 s passed: a hang guard), acknowledging them.
    package func pull(_ count: Int, from subscription: PubSubSubscription) async throws -> [PulledMessage] {
        var messages: [PulledMessage] = []
        let deadline = ContinuousClock.now + .seconds(90)
        while messages.count < count, ContinuousClock.now < deadline {
            let batch = try await pullAndAcknowledge(subscription)
            messages += batch
            if batch.isEmpty { try await Task.sleep(for: .milliseconds(50)) }
        }
        return messages
    }
}

extension PubSubPublisher {
    /// Whether `topic` exists (`GET projects/P/topics/T` answers).
    package func topicExists(_ topic: PubSubTopic) async -> Bool {
        (try? await send("GET", topic.name, body: nil)) != nil
    }
}
