import FirestoreFeed
import FirestorePubSub

let db = try Firestore.fromEnvironment(projectID: "demo-project")
let publisher = try PubSubPublisher.fromEnvironment(credentials: PubSubPublisher.credentials(from: db.credentials))
let topic = try PubSubTopic("projects/demo-project/topics/fruit-changes")
try await publisher.createTopic(topic)
let store = try await FeedCheckpointStore(path: "fruits.sqlite")
// Until the task is cancelled: each snapshot published, then checkpointed.
try await db.collection("fruits").publish(to: topic, with: publisher, checkpoint: store, key: "fruits")
