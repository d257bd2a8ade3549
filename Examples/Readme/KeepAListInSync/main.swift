import FirestoreFeed
import FirestoreREST

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
        print("poll failed, items kept:", error)
    }
}

let list = FruitList()
let fruits = BatchedArray(query: db.collection("fruits").order(by: "name"), interval: .seconds(1), delegate: list)
fruits.observeQuery()                    // idempotent; stopObserving() keeps the items
fruits.source = PollingQuerySource(db.collection("fruits").whereField("isFavourite", isEqualTo: true))
                                         // the old contents are diffed against the new query's first snapshot
for await update in fruits.updates() {   // the same updates for async code: update.diff, update.items
    print(update.items.count)
}
