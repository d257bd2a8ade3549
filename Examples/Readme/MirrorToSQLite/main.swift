import FirestoreFeed

let db = try Firestore.fromEnvironment(projectID: "demo-orders")
let mirror = try await SQLiteMirror(path: "orders.sqlite", table: "orders")   // the file and tables made when missing
let open = db.collection("orders").whereField("status", isEqualTo: "open")
do {
    try await open.mirror(into: mirror)   // runs until the task is cancelled; a restart resumes from the table
} catch let stale as FeedSinkStaleGeneration {
    print("another writer holds the shard:", stale)
}
// sqlite3 orders.sqlite "SELECT name, fields ->> '$.total.integerValue' FROM orders ORDER BY update_time"
