import Foundation
import Testing

@testable import FirestoreREST

/// `setData(from:)` on a batch: what the model becomes on the wire, and errors naming the document.
@Suite(.timeLimit(.minutes(2))) struct CodableWriteTests {
    struct Post: Codable {
        @DocumentID var id: String?
        var title: String
        var views: Int
        var note: String?
        @ServerTimestamp var updatedAt: Timestamp?
    }

    @Test func modelBecomesFieldsAndAServerTimestampTransform() throws {
        let db = try offlineFirestore()
        let batch = db.batch()
        try batch.setData(from: Post(id: "ignored", title: "t", views: 3), forDocument: db.document("posts/p1"))
        let expected = try json(
            #"""
            {"update":{"name":"projects/p/databases/(default)/documents/posts/p1",
                       "fields":{"title":{"stringValue":"t"},"views":{"integerValue":"3"}}},
             "updateTransforms":[{"fieldPath":"updatedAt","setToServerValue":"REQUEST_TIME"}]}
            """#)
        #expect(batch.writes.map { $0.restJSON(database: db.database) } == [expected])
    }

    @Test func mergeMasksOnlyTheWrittenFields() throws {
        let db = try offlineFirestore()
        let batch = db.batch()
        let post = Post(title: "t", views: 3, updatedAt: Timestamp(uncheckedSeconds: 1_700_000_000, nanos: 0))
        try batch.setData(from: post, forDocument: db.document("posts/p1"), merge: true)
        try batch.setData(from: post, forDocument: db.document("posts/p2"), mergeFields: ["views"])
        let expected = [
            try json(
                #"""
                {"update":{"name":"projects/p/databases/(default)/documents/posts/p1",
                           "fields":{"title":{"stringValue":"t"},"views":{"integerValue":"3"},
                                     "updatedAt":{"timestampValue":"2023-11-14T22:13:20Z"}}},
                 "updateMask":{"fieldPaths":["title","updatedAt","views"]}}
                """#),
            try json(
                #"""
                {"update":{"name":"projects/p/databases/(default)/documents/posts/p2",
                           "fields":{"views":{"integerValue":"3"}}},
                 "updateMask":{"fieldPaths":["views"]}}
                """#),
        ]
        #expect(batch.writes.map { $0.restJSON(database: db.database) } == expected)
    }

    @Test func encodingErrorsNameTheDocumentAndField() throws {
        struct Big: Codable { var count: UInt64 }
        let db = try offlineFirestore()
        let batch = db.batch()
        let error = thrownError {
            try batch.setData(from: Big(count: .max), forDocument: db.document("counters/c"))
        }
        #expect(
            error.map(codingMessage)
                == "counters/c: count: 18446744073709551615 is out of range for an integerValue (a signed 64-bit integer, at most 9223372036854775807)"
        )
        let notAMap = thrownError { try batch.setData(from: [1, 2], forDocument: db.document("counters/c")) }
        #expect(
            notAMap.map(codingMessage)
                == "counters/c: top-level Array<Int> encoded as arrayValue, not as a map: document data is a map of fields"
        )
        #expect(batch.count == 0)
    }

    @Test func firestoreLimitsAreCheckedWhenWritten() throws {
        struct Grid: Codable { var rows: [[Int]] }
        let db = try offlineFirestore()
        #expect(try FirestoreEncoder().encode(Grid(rows: [[1]])) == ["rows": .array([.array([.integer(1)])])])
        let error = thrownError { try db.batch().setData(from: Grid(rows: [[1]]), forDocument: db.document("g/1")) }
        #expect(error as? FirestoreError == .invalidArgument("an array cannot directly hold an array (field rows)"))
    }
}
