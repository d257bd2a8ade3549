import FirestoreREST

let db = try Firestore.fromEnvironment(projectID: "demo-fruits")
try await db.document("counters/visits").setData(["n": 41])

let visits = db.document("counters/visits")
let result = try await visits.updateData(["n": .increment(Int64(1)), "at": .serverTimestamp()])
print(result.transformResults)   // ["2026-12-01T11:01:52.673Z", 42]: at, then n (path order)
let before = try await visits.getDocument(readTime: result.updateTime)            // as of that write
let page = try await db.collection("users").listDocuments(pageToken: nil, pageSize: 100, showMissing: true)
let stats = try await db.collection("fruits").aggregate([.count(alias: "fruits"), .sum("kcal", alias: "kcal")])
    .getAggregation()
print(stats.get("kcal") ?? .null)
print(before.get("n") ?? .null, page.documents.map(\.documentID), stats.get("fruits") ?? .null)
