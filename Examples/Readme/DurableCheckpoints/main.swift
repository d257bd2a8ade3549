import FirestoreFeed
import FirestoreREST

let db = try Firestore.fromEnvironment(projectID: "demo-orders")
func handle(_ change: DocumentChange) async throws { print(change.type, change.document.documentID) }

let store = try await FeedCheckpointStore(path: "orders-feed.sqlite")   // created when missing
let open = db.collection("orders").whereField("status", isEqualTo: "open")
for try await snapshot in open.snapshots(checkpoint: store, key: "open-orders") {   // any source or mode
    for change in snapshot.documentChanges { try await handle(change) }
    // Asking for the next snapshot writes this one; store.acknowledge(key:) writes it earlier.
}
