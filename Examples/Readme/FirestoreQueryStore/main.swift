import FirestoreFeed

let db = try Firestore.fromEnvironment(projectID: "demo-fruits")

struct Fruit: Codable {
    var name: String
    var isFavourite: Bool
}

final class FruitStore {
    @FirestoreQuery(collectionPath: "fruits", predicates: [.order(by: "name")],
                    decodingFailureStrategy: .ignore, firestore: db)
    var fruits: [Fruit]                         // or Result<[Fruit], any Error>

    func favouritesOnly() { $fruits.predicates = [.whereField("isFavourite", isEqualTo: true), .order(by: "name")] }
    var problem: String? { $fruits.error.map { "\($0)" } }   // fruits/u2: name: expected String, found integerValue
}

let store = FruitStore()
while store.fruits.isEmpty { try await Task.sleep(for: .milliseconds(100)) }
print("fruits:", store.fruits.map(\.name), "problem:", store.problem ?? "none")
