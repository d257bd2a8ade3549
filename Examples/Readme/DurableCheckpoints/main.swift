import FirestoreFeed

let db = try Firestore.fromEnvironment(projectID: "demo-orders")
func handle(_ change: DocumentChange) async throws { print(change.type, change.document.documentID) }

let store = try await FeedCheckpointStore(path: "orders-feed.sqlite")   // created when missing
let open = db.collection("orders").whereField("status", isEqualTo: "open")
do {
    for try await snapshot in open.snapshots(checkpoint: store, key: "open-orders") {   // any source or mode
        for change in snapshot.documentChanges { try await handle(change) }
        try await store.acknowledge(key: "open-orders")   // handled: written now (asking for the next one would too)
        // Leaving the loop (break, throw) before acknowledging redelivers this snapshot's changes on the next start.
    }
} catch {
    print("feed ended:", error)   // e.g. failed-precondition: another process holds the key (its process ID named)
}
