import FirestoreFeed
import FirestorePostgres

let db = try Firestore.fromEnvironment(projectID: "demo-orders")
let mirror = try await PostgresMirror(url: "postgresql://mirror@localhost/shop", table: "orders")   // tables made when missing
let open = db.collection("orders").whereField("status", isEqualTo: "open")
do {
    try await open.mirror(into: mirror)   // runs until the task is cancelled; a restart resumes from the table
} catch let stale as FeedSinkStaleGeneration {
    print("another writer holds the shard:", stale)
}
// psql shop -c "SELECT name, (fields #>> '{total,integerValue}')::bigint FROM orders ORDER BY update_time"
