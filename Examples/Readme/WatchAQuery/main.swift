import FirestoreFeed

// FIRESTORE_EMULATOR_HOST=127.0.0.1:PORT (Scripts/emulator start prints it),
// or Firestore.emulator(host:projectID:)
let db = try Firestore.fromEnvironment(projectID: "demo-fruits")

struct Fruit: Codable {
    @DocumentID var id: String?   // filled from the document name
    var name: String
    var isFavourite: Bool
}

let favourites = db.collection("fruits")
    .whereField("isFavourite", isEqualTo: true)
    .order(by: "name")

let feed = favourites.snapshots() { event in   // the Listen stream; .snapshots(source: .poll(.keys)) polls
    print("feed:", event)   // a failed poll (the last snapshot stays), recovery, ...
}
do {
    for try await snapshot in feed {
        for change in snapshot.documentChanges {
            let fruit = try change.document.data(as: Fruit.self)
            let from = change.oldIndex.map(String.init) ?? "-", to = change.newIndex.map(String.init) ?? "-"
            print(change.type, fruit.name, from, "->", to)
        }
        print("favourites:", try snapshot.documents(as: Fruit.self).values.map(\.name))
    }
} catch {
    print("the feed ended:", error)   // a permanent error (permission-denied, a bad query), or a document that
}                                     // does not decode: an expected failure, not a crash

