import FirestoreFeed
import FirestoreREST

let db = try Firestore.fromEnvironment(projectID: "demo-fruits")
// Run this in two processes: each prints its own shards' changes; kill one and the other takes its shards over.
let group = FeedGroup(db.collection("fruits"), name: "fruit-mailer", options: FeedGroupOptions(shards: 2))
do {
    for try await shard in group.snapshots {   // asking for the next one acknowledges this one
        for change in shard.snapshot.documentChanges {
            print("shard \(shard.shard) generation \(shard.generation): \(change.type) \(change.document.documentID)")
        }
    }
} catch {
    print("the feed group ended: \(error)")
}
