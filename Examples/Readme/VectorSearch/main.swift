import FirestoreREST

let db = try Firestore.fromEnvironment(projectID: "demo-items")
try await db.document("items/fig").setData(["color": "red", "embedding": .vector([0.1, 0.3, 0.4])])
let nearest = try await db.collection("items").whereField("color", isEqualTo: "red")
    .findNearest(vectorField: "embedding", queryVector: [0.1, 0.3, 0.5], limit: 5,
                 distanceMeasure: .cosine, distanceResultField: "distance", distanceThreshold: 0.2)
    .getDocuments()
for item in nearest.documents { print(item.documentID, item.get("distance") ?? .null) }
