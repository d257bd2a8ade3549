import FirestoreFeed
import LoggingShape
import ServiceLifecycleShape

/// The feed as a swift-service-lifecycle `Service`: a graceful shutdown (SIGTERM) cancels the feed's task, and the
/// feed finishes the snapshot in hand, acknowledges it, writes its checkpoint and returns.
struct OrdersFeed: Service {
    let feed: FeedService

    func run() async throws {
        try await cancelWhenGracefulShutdown { try await feed.run() }
    }
}

func handle(_ changes: [DocumentChange]) async throws {
    for change in changes { print(change.type, change.document.documentID) }  // mail each new order, ...
}

let logger = Logger(label: "orders")
let db = try Firestore.fromEnvironment(projectID: "demo-orders")
let store = try await FeedCheckpointStore(path: "orders-feed.sqlite")  // created when missing
let orders = db.collection("orders").service(checkpoint: store, key: "orders") { snapshot in
    try await handle(snapshot.documentChanges)  // returning acknowledges the snapshot
}
let group = ServiceGroup(
    configuration: .init(services: [OrdersFeed(feed: orders)], gracefulShutdownSignals: [.sigterm], logger: logger))
try await group.run()  // until SIGTERM: the snapshot in hand is handled and written, then run() returns
await db.shutdown()  // requests, streams, connections and threads of the client end
print("stopped")
