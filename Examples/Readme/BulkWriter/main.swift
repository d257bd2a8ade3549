import FirestoreREST

let db = try Firestore.fromEnvironment(projectID: "demo-users")
let users = [(id: "bob", name: "Bob"), (id: "eve", name: "Eve")]

let writer = try db.bulkWriter()                   // default: the 500/50/5 ramp-up throttle
writer.onWriteError { error in                     // decides retries (replaces the default rule)
    print(error)                                   // create of users/ann failed (attempt 1): already-exists ...
    return error.code == .unavailable && error.failedAttempts < 5
}
for user in users {
    try await writer.setData(["name": .value(.string(user.name))], forDocument: db.collection("users").document(user.id))
}
let ann = try await writer.create(["name": "Ann"], forDocument: db.document("users/ann"))
try await writer.close()                           // sends the last partial batch, waits for every result
do { print(try await ann.result.writeTime) } catch {  // a second run: the BulkWriterError (already-exists)
    print(error)
}
