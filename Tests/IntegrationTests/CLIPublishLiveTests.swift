import FirestorePubSub
import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `firestore-feed publish` against the Firestore and Pub/Sub emulators, over each `--pubsub-protocol`: a checkpointed
/// run ended by SIGTERM (exit 0), changes while it is down, a second run from the checkpoint; what an ordered subscription delivers, applied
/// by the consumer's rule, equals the query, and each document's `updateTime`s only go forward.
@Suite(.timeLimit(.minutes(3)), .needsPubSub) struct CLIPublishLiveTests {
    @Test(arguments: PubSubProtocol.allCases)
    func aPublishStoppedAndStartedAgainDeliversEveryChangeOnceInOrderPerDocument(_ wireProtocol: PubSubProtocol)
        async throws
    {
        let host = try EmulatorEnvironment.requireHost()
        let project = EmulatorEnvironment.uniqueProjectID("cli-publish")
        let db = try Firestore.emulator(host: host, projectID: project)
        let publisher = try PubSubPublisher.testEmulator()
        let topicID = PubSubEnvironment.uniqueID("cli")
        let topic = try PubSubTopic(projectID: project, topicID: topicID)
        let subscription = try PubSubSubscription(projectID: project, subscriptionID: topicID + "-sub")
        let path = NSTemporaryDirectory() + "cli-publish-\(UUID().uuidString).sqlite"
        defer { CheckpointLiveTests.remove(path) }
        let arguments = [
            "publish", "fruits", "--emulator", host, "--project", project, "--topic", topic.name, "--checkpoint", path,
            "--verbose", "--pubsub-protocol", wireProtocol.rawValue,
        ]

        // An empty collection: nothing is published before the subscription exists (a message published before it
        // is not delivered to it).
        let first = try CLIProcess(arguments + ["--create-topic"])
        #expect(await eventuallyAsync(seconds: 30) { await publisher.topicExists(topic) })
        try await publisher.createSubscription(subscription, topic: topic, ordered: true)
        try await db.document("fruits/apple").setData(["kcal": 52])
        var pulled = try await publisher.pull(1, from: subscription)
        try await db.document("fruits/banana").setData(["kcal": 89])
        try await db.document("fruits/apple").setData(["kcal": 53])
        pulled += try await publisher.pull(2, from: subscription)
        kill(first.process.processIdentifier, SIGTERM)
        let firstResult = await first.finish(timeout: 60)
        #expect(firstResult.status == 0, "\(firstResult.stderr)")
        #expect(firstResult.stderr.contains("note: created the topic \(topic.name)"))

        try await db.document("fruits/banana").delete()
        try await db.document("fruits/cherry").setData(["kcal": 50])
        let second = try CLIProcess(arguments)
        pulled += try await publisher.pull(2, from: subscription)
        kill(second.process.processIdentifier, SIGTERM)
        let secondResult = await second.finish(timeout: 60)
        #expect(secondResult.status == 0, "\(secondResult.stderr)")

        // The consumer's rule: a message applies only when its updateTime is later than the one held for its name.
        var held: [String: (updateTime: String, fields: JSONValue?)] = [:]
        var regressions: [String] = []
        for message in pulled {
            let name = message.attributes["name"] ?? ""
            let updateTime = message.attributes["updateTime"] ?? ""
            if let current = held[name] {
                if current.updateTime > updateTime { regressions.append("\(name) \(updateTime)") }
                if current.updateTime >= updateTime { continue }
            }
            let fields =
                message.attributes["changeType"] == "removed"
                ? nil : (try? JSONValue.parse(message.data))?["fields"]
            held[name] = (updateTime, fields)
        }
        #expect(regressions == [])
        let prefix = "projects/\(project)/databases/(default)/documents/fruits/"
        #expect(
            held.compactMapValues(\.fields)
                == [
                    prefix + "apple": ["kcal": ["integerValue": "53"]],
                    prefix + "cherry": ["kcal": ["integerValue": "50"]],
                ])
        #expect(held[prefix + "banana"].map { $0.fields == nil } == true)
        #expect(
            pulled.map { "\($0.attributes["changeType"] ?? "") \($0.orderingKey.dropFirst(prefix.count))" }.sorted()
                == ["added apple", "added banana", "added cherry", "modified apple", "removed banana"])
    }
}

extension Trait where Self == ConditionTrait {
    /// Skips the suite without `PUBSUB_EMULATOR_HOST`, except under CI (see `PubSubEnvironment`).
    static var needsPubSub: Self {
        .enabled(if: PubSubEnvironment.enabled, Comment(rawValue: PubSubEnvironment.skipMessage))
    }
}
