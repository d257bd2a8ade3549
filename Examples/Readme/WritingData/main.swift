import FirestoreREST
import Foundation

// print buffers when stdout is a pipe (a service's log); FileHandle writes each line at once. (fflush(stdout) does
// not compile in Swift 6 mode: stdout is a C global that is not concurrency-safe.)
func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

let db = try Firestore.fromEnvironment(projectID: "demo-writes")

// A document's fields are FirestoreValues: .null, .boolean, .integer, .double, .timestamp, .string, .bytes,
// .reference, .geoPoint, .array, .map (and .vector(...)); literals make the common ones.
let kiwi: [String: FirestoreValue] = [
    "name": "Kiwi",                                      // .string("Kiwi")
    "isFavourite": true,                                 // .boolean(true) (there is no .bool)
    "kcal": 61,                                          // .integer(61)
    "price": 0.45,                                       // .double(0.45)
    "tags": ["green", "fuzzy"],                          // .array([...])
    "origin": ["country": "NZ"],                         // .map([...])
    "picked": .timestamp(Timestamp(date: Date())),
    "orchard": .geoPoint(GeoPoint(latitude: -37.7, longitude: 176.2)),
]
try await db.document("fruits/kiwi").setData(kiwi.mapValues { .value($0) })   // one write

do {
    let batch = db.batch()                               // several writes, all or nothing, one commit
    try batch.setData(["name": "Lime", "kcal": 30], forDocument: db.document("fruits/lime"))
    try batch.updateData(["kcal": .increment(1)], forDocument: db.document("fruits/kiwi"))
    try batch.updateData(["kcal": 0], forDocument: db.document("fruits/nope"))   // no such document
    try await batch.commit()
} catch let error as FirestoreError {
    say("nothing written: \(error.code)")               // not-found: the update of fruits/nope refused the batch
}
let lime = try await db.document("fruits/lime").getDocument()
say("lime exists: \(lime.exists)")                       // false: the batch was refused as a whole
