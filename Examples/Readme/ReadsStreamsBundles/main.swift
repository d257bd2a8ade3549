import FirestoreREST

let db = try Firestore.fromEnvironment(projectID: "demo-accounts")
let batch = db.batch()
try batch.setData(["balance": 60], forDocument: db.document("accounts/a"))
try batch.setData(["balance": 40], forDocument: db.document("accounts/b"))
try await batch.commit()
print(batch.commitTime != nil)                                  // true: the one time both writes took effect

// Read-only: every read sees one point in time; nothing locked, nothing committed, never retried.
let total = try await db.runTransaction(options: .readOnly()) { transaction in
    let pair = try await transaction.getAll([db.document("accounts/a"), db.document("accounts/b")], fieldMask: nil)
    return pair.compactMap { if case .integer(let n)? = $0.get("balance") { n } else { nil } }.reduce(0, +)
}
print(total)                                                    // 100

// Streamed: decoded while the response arrives; memory holds one batch, not the result.
for try await account in db.collection("accounts").order(by: "balance").stream() {
    print(account.documentID, account.readTime != nil)          // b true, then a true
}

// Explain: production plans (and with analyze runs) the query; the emulator answers with plain results.
let explained = try await db.collection("accounts").explain(options: ExplainOptions(analyze: true))
print(explained.metrics == nil, explained.snapshot?.count ?? 0) // true 2 (on the emulator)

// A bundle for web and mobile clients (loadBundle, namedQuery), byte for byte as the Node SDK builds it.
let bundle = db.bundle("accounts")
try bundle.add("all-accounts", try await db.collection("accounts").getDocuments())
print(String(decoding: bundle.build(), as: UTF8.self).contains(#""totalDocuments":2"#))   // true

// What no builder makes: a PATCH with an update mask, through the client's credentials, retries and transport.
let patched = try await db.rawRequest(
    "PATCH", "\(db.database.documentsRoot)/accounts/c", queryItems: [("updateMask.fieldPaths", "balance")],
    body: ["fields": ["balance": ["integerValue": "0"]]])
print(patched["name"]?.stringValue ?? "")                       // projects/demo-accounts/.../accounts/c
