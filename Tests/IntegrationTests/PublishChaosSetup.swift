import FirestorePubSub
import FirestoreREST
import FirestoreTestSupport
import Foundation

/// What the publish chaos tests start from: a fresh emulator project whose `items` hold `seeded` documents
/// (`d000`, `d001`, … with `v` 0 and `i` their index), a fresh topic with an ordered subscription, the consumer on it
/// (Google's Python subscriber) and a writer over `written` document names (not started).
struct PublishChaosSetup {
    let host: String
    let project: String
    let db: Firestore
    let items: CollectionReference
    let topic: PubSubTopic
    let consumer: PublishChaosConsumer
    let writer: PublishChaosWriter

    init(_ label: String, seeded: Int, written: Int) async throws {
        host = try EmulatorEnvironment.requireHost()
        project = EmulatorEnvironment.uniqueProjectID(label)
        db = try Firestore.emulator(host: host, projectID: project)
        items = db.collection("items")
        let seed = db.batch()
        for index in 0..<seeded {
            try seed.setData(
                ["v": .integer(0), "i": .integer(Int64(index))],
                forDocument: items.document(String(format: "d%03d", index)))
        }
        _ = try await seed.commit()
        let publisher = try PubSubPublisher.testEmulator()
        let (topic, subscription) = try await publisher.freshTopic(label, project: project)
        self.topic = topic
        consumer = try PublishChaosConsumer(subscription)
        writer = PublishChaosWriter(items, documents: written)
    }
}
