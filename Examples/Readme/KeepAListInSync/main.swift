import FirestoreFeed

let db = try Firestore.fromEnvironment(projectID: "demo-fruits")

final class FruitList: BatchedArrayDelegate {
    func batchedArray(_ array: BatchedArray, willUpdateWith diff: SnapshotArrayDiff<DocumentSnapshot>) {
        // array.items still holds diff.initial here
    }
    func batchedArray(_ array: BatchedArray, didUpdateWith diff: SnapshotArrayDiff<DocumentSnapshot>) {
        print("-", diff.deletedIndexes, "+", diff.insertedIndexes, "changed", diff.changedResultIndexes)
        print(array.items.map(\.documentID))
    }
    func batchedArray(_ array: BatchedArray, queryDidFailWithError error: any Error) {
        print("feed failed, items kept:", error)   // it reconnects; a permanent error ends it
    }
}

let list = FruitList()
let fruits = BatchedArray(query: db.collection("fruits").order(by: "name"), delegate: list)   // the Listen stream
fruits.observeQuery()                    // idempotent; stopObserving() keeps the items
fruits.source = FeedQuerySource(db.collection("fruits").whereField("isFavourite", isEqualTo: true))
                                         // Listen again; the old contents are diffed against its first snapshot
for await update in fruits.updates() {   // the same updates for async code: update.diff, update.items
    print(update.items.count)
}
