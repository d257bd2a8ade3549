import FirestoreREST

let db = try Firestore.fromEnvironment(projectID: "demo-fruits")

struct Fruit: Codable {
    @DocumentID var id: String?               // from the document name, never written
    var name: String
    var kcal: Int
    @ServerTimestamp var updated: Timestamp?  // nil: the server's commit time
}
try await db.document("fruits/apple").setData(from: Fruit(name: "Apple", kcal: 52))
let apple = try await db.document("fruits/apple").getDocument(as: Fruit.self)
let maybe = try await db.document("fruits/nope").getDocument(as: Fruit?.self)    // nil: no such document
let snapshot = try await db.collection("fruits").getDocuments()
let decoded = try snapshot.documents(as: Fruit.self, strategy: .ignore)          // values + failures
print(apple.name, apple.kcal, maybe == nil, decoded.values.map(\.name), decoded.failures.count)
