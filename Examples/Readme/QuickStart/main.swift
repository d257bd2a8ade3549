import FirestoreFeed

struct Fruit: Codable {
    @DocumentID var id: String?  // filled from the document's name
    var name: String
    var isFavourite: Bool
}

// The emulator at FIRESTORE_EMULATOR_HOST (`Scripts/emulator start` prints it); production: applicationDefault()
let db = try Firestore.fromEnvironment(projectID: "demo-fruits")
try await db.document("fruits/fig").setData(from: Fruit(name: "Fig", isFavourite: true))

let favourites = db.collection("fruits").whereField("isFavourite", isEqualTo: true).order(by: "name")
for try await snapshot in favourites.snapshots() {  // Firestore's Listen stream: each change as it commits
    for change in snapshot.documentChanges {
        print(change.type, try change.document.data(as: Fruit.self).name)  // added Fig, then each write
    }
}
