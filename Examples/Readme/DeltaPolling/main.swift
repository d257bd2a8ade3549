import FirestoreFeed

let db = try Firestore.fromEnvironment(projectID: "demo").settingServerTimestamp(on: "updatedAt")
try await db.document("orders/o1").setData(["status": "open", "item": "Apple"])   // updatedAt: the server time
let feed = db.collection("orders").whereField("status", isEqualTo: "open")
    .snapshots(source: .poll(.delta(field: "updatedAt")))   // margin 5 s, reconcileInterval 10 min by default

for try await snapshot in feed {
    let scan = snapshot.statistics?.keysScan.map { "\($0)" } ?? "none"   // the first poll scans, later ones not
    print(snapshot.documentChanges.map { "\($0.type) \($0.document.documentID)" }, "keys scan:", scan)
    guard snapshot.count == 1 else { break }
    try await db.document("orders/o2").setData(["status": "open", "item": "Fig"])   // the next poll finds it
}
