import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

/// `Firestore.rawRequest` on the real emulator, for three requests no builder makes: a PATCH with an update mask,
/// createDocument, and a commit of a transform-only write.
@Suite(.timeLimit(.minutes(2))) struct RawRequestLiveTests {
    @Test func threeRequestsNoBuilderMakes() async throws {
        let db = try LiveFirestore.make("rawrequest")
        let root = db.database.documentsRoot

        // createDocument: POST {parent}/{collectionId}?documentId=; a second create is already-exists.
        let created = try await db.rawRequest(
            "POST", "\(root)/fruits", queryItems: [("documentId", "fig")],
            body: ["fields": ["kcal": ["integerValue": "74"], "color": ["stringValue": "purple"]]])
        #expect(created["name"] == .string("\(root)/fruits/fig"))
        await #expect(throws: FirestoreError.self) {
            try await db.rawRequest("POST", "\(root)/fruits", queryItems: [("documentId", "fig")], body: [:])
        }

        // PATCH with an update mask: only kcal changes, color stays, and a missing field in the mask is deleted.
        let patched = try await db.rawRequest(
            "PATCH", "\(root)/fruits/fig",
            queryItems: [("updateMask.fieldPaths", "kcal"), ("updateMask.fieldPaths", "gone")],
            body: ["fields": ["kcal": ["integerValue": "80"], "color": ["stringValue": "ignored"]]])
        #expect(patched["fields"] == ["kcal": ["integerValue": "80"], "color": ["stringValue": "purple"]])

        // A transform-only write: no update, only an increment, in a commit.
        let commit = try await db.rawRequest(
            "POST", "\(root):commit",
            body: [
                "writes": [
                    [
                        "transform": [
                            "document": .string("\(root)/fruits/fig"),
                            "fieldTransforms": [["fieldPath": "kcal", "increment": ["integerValue": "1"]]],
                        ]
                    ]
                ]
            ])
        #expect(commit["writeResults"]?.arrayValue?.first?["transformResults"] == [["integerValue": "81"]])
        let fig = try await db.document("fruits/fig").getDocument()
        #expect(fig.data() == ["kcal": 81, "color": "purple"])
    }
}
